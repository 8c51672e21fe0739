#pragma once
// machine_view: what the balancing-loop policies (task_numa_migrate, fork placement, the scan
// period, memory migration) read of a running machine. The simulator implements it over its
// model; a user-space scheduler or runtime implements it over its own bookkeeping (its worker
// threads, their CPUs and their fault statistics). Policies only read a view; the caller
// applies what they decide (moves a task, swaps two, sets a preferred node).
//
// A task and a CPU are dense indices the implementation chooses. Faults come as fault_views,
// so a runtime can hand in fault_stats::view() or counts of its own.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <type_traits>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

/// The weight of one runnable nice-0 task (the kernel's NICE_0_LOAD, scaled down).
inline constexpr std::uint64_t nice_0_load = 1024;

namespace detail {
template <class R, class T>
concept range_of = std::ranges::input_range<R> && std::convertible_to<std::ranges::range_value_t<R>, T>;

// std::ranges::distance, empty and find are missing from libc++ 14 (its ranges were still
// switched off as incomplete); these need only ranges::begin and end, which every C++20
// standard library has.
template <std::ranges::input_range R>
constexpr std::ptrdiff_t range_length(R&& r) {
  auto it = std::ranges::begin(r);
  const auto last = std::ranges::end(r);
  if constexpr (std::sized_sentinel_for<std::remove_const_t<decltype(last)>, decltype(it)>) {
    return last - it;
  } else {
    std::ptrdiff_t n = 0;
    for (; it != last; ++it) ++n;
    return n;
  }
}

template <std::ranges::input_range R>
constexpr bool range_empty(R&& r) {
  return std::ranges::begin(r) == std::ranges::end(r);
}

/// The position of the first element equal to `value`, or the range's length.
template <std::ranges::input_range R, class T>
constexpr std::ptrdiff_t range_index_of(R&& r, const T& value) {
  std::ptrdiff_t i = 0;
  for (auto it = std::ranges::begin(r), last = std::ranges::end(r); it != last; ++it, ++i) {
    if (*it == value) return i;
  }
  return i;
}
}  // namespace detail

/// A machine as the balancing-loop policies see it.
///
/// Nodes are topology indices; `cpus_of(n)` is empty for a node without CPUs. `tasks_on(c)`
/// lists the runnable tasks queued on CPU c, the running one included. A task's group faults
/// are an empty view when it has no numa_group; `group_of` is then no_group. `allowed(t, n)`
/// says whether t's affinity admits node n. `task_load` is the task's contribution to its
/// CPU's load (nice_0_load for an always-runnable nice-0 task).
///
/// Laws. Beyond the syntax below, the policies rely on these; check_machine_view()
/// (policy/check_machine_view.hpp) checks them on a view and names the first one broken.
/// Every task the laws speak of is one some `tasks_on(c)` lists.
///  - distances: `node_count()` and `distance()` obey numa_topology's laws (local distance 10
///    on the diagonal, every other entry larger, all within 10..255; not necessarily symmetric).
///  - cpu_on_its_node: every c in `cpus_of(n)` has `node_of_cpu(c) == n`.
///  - cpus_dense: the CPUs of all nodes together are 0..N-1, each listed once.
///  - task_on_its_cpu: every t in `tasks_on(c)` has `task_cpu(t) == c`, so a node's runnable
///    count (running_on) is the number of tasks its CPUs list.
///  - task_queued_once: no task is listed twice, on one CPU or on two.
///  - task_node_is_cpu_node: `task_node(t) == node_of_cpu(task_cpu(t))`.
///  - preferred_in_range: `task_preferred(t)` is no_node or below `node_count()`.
///  - fault_spans_sized: in `task_faults(t)` and `group_faults(t)`, `memory` and `cpu` are each
///    empty or hold two counters per node.
///  - group_faults_with_group: `group_faults(t)` is empty exactly when `group_of(t)` is no_group.
///  - group_faults_shared: tasks of one group read the same group faults.
///  - allowed_where_running: `allowed(t, task_node(t))`: a task runs where its affinity admits.
///  - idle_cpu_queues_nothing: where the view has `idle_cpu(c)`, an idle CPU lists no task.
template <class M>
concept machine_view = requires(const M& m, node_index n, cpu_index c, task_index t) {
  { m.node_count() } -> std::convertible_to<std::size_t>;
  { m.distance(n, n) } -> std::convertible_to<distance_t>;
  { m.cpus_of(n) } -> detail::range_of<cpu_index>;
  { m.node_of_cpu(c) } -> std::convertible_to<node_index>;
  { m.tasks_on(c) } -> detail::range_of<task_index>;
  { m.task_cpu(t) } -> std::convertible_to<cpu_index>;
  { m.task_node(t) } -> std::convertible_to<node_index>;
  { m.task_preferred(t) } -> std::convertible_to<node_index>;
  { m.task_faults(t) } -> std::convertible_to<fault_view>;
  { m.group_faults(t) } -> std::convertible_to<fault_view>;
  { m.group_of(t) } -> std::convertible_to<group_index>;
  { m.allowed(t, n) } -> std::convertible_to<bool>;
  { m.task_load(t) } -> std::convertible_to<std::uint64_t>;
};

/// Runnable tasks on node `n` (the sum of its CPUs' nr_running).
template <machine_view M>
constexpr std::size_t running_on(const M& m, node_index n) {
  std::size_t count = 0;
  for (cpu_index c : m.cpus_of(n)) count += static_cast<std::size_t>(detail::range_length(m.tasks_on(c)));
  return count;
}

/// Whether CPU c is idle (idle_cpu(); available_idle_cpu() without idle states): the view's
/// own `bool idle_cpu(cpu_index) const` when it has one (a CPU may queue nothing and still not
/// be idle, a wakeup pending), else whether it queues nothing.
template <machine_view M>
constexpr bool cpu_idle(const M& m, cpu_index c) {
  if constexpr (requires { { m.idle_cpu(c) } -> std::convertible_to<bool>; }) {
    return m.idle_cpu(c);
  } else {
    return detail::range_empty(m.tasks_on(c));
  }
}

/// CPUs of node `n` that run nothing (sg_lb_stats::idle_cpus of a node-sized group).
template <machine_view M>
constexpr std::size_t idle_cpus_on(const M& m, node_index n) {
  std::size_t count = 0;
  for (cpu_index c : m.cpus_of(n)) count += cpu_idle(m, c) ? 1 : 0;
  return count;
}

/// A task's load as seen from the root runqueue, task_h_load() (v3.8+) for a task in a cgroup:
/// its own load_avg scaled by its cfs_rq's hierarchical share, load_avg * h_load / (cfs_rq load
/// + 1). update_cfs_rq_h_load() runs at most once a jiffy: if it ran in this one, the h_load it
/// set stands; else it runs now and, for a cfs_rq at the root (no task groups), sets h_load to
/// the cfs_rq's load. A view over a traced kernel uses this for task_load().
constexpr std::uint64_t task_h_load(std::uint64_t load_avg, std::uint64_t cfs_rq_load, std::uint64_t h_load,
                                    bool h_load_refreshed_this_jiffy) noexcept {
  const std::uint64_t h = h_load_refreshed_this_jiffy ? h_load : cfs_rq_load;
  return load_avg * h / (cfs_rq_load + 1);
}

/// CPU c's load: the sum of task_load() over its runnable tasks (cpu_load() / weighted_cpuload()).
template <machine_view M>
constexpr std::uint64_t load_on_cpu(const M& m, cpu_index c) {
  std::uint64_t load = 0;
  for (task_index t : m.tasks_on(c)) load += m.task_load(t);
  return load;
}

/// Node n's load: the sum of its CPUs' cpu_load().
template <machine_view M>
constexpr std::uint64_t load_on_node(const M& m, node_index n) {
  std::uint64_t load = 0;
  for (cpu_index c : m.cpus_of(n)) load += load_on_cpu(m, c);
  return load;
}

/// CPUs on node n.
template <machine_view M>
constexpr std::size_t cpu_count_of(const M& m, node_index n) {
  return static_cast<std::size_t>(detail::range_length(m.cpus_of(n)));
}

/// The decision input of task t: its faults and its group's.
template <machine_view M>
constexpr decision_input input_of(const M& m, task_index t) {
  return {m.task_faults(t), m.group_faults(t)};
}

}  // namespace numaplace
