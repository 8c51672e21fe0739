#pragma once
// What task_numa_migrate() knows of a node's load, and the two load tests it asks:
// update_numa_stats() and numa_classify() (the node's numa_type, v5.7+), the task capacity
// of v4.1..v4.18, and load_too_imbalanced() in its v3.17..v4.18 and v4.19+ forms.
//
// All of it reads a machine_view, per CPU through machine_reads:: (current_task, load,
// capacity, util, runnable, nr_running, idle). A view may provide these members; each has a
// default:
//   task_index current_task(cpu_index) const   the task running on the CPU (dst_rq->curr), or
//                                              no_task when idle; default: the first of tasks_on(c)
//   std::uint64_t cpu_load(cpu_index) const     cpu_load()/weighted_cpuload(); default: the sum
//                                              of task_load over tasks_on(c)
//   std::uint64_t cpu_capacity(cpu_index) const capacity_of(); default 1024 (one full CPU)
//   std::uint64_t cpu_util(cpu_index) const     cpu_util(); default min(capacity, cpu_load)
//   std::uint64_t cpu_runnable(cpu_index) const cpu_runnable(); default cpu_load
//   bool numa_migrate_on(cpu_index) const       rq->numa_migrate_on: another task's NUMA move
//                                              to this CPU is under way (v4.19+); default false
//   bool idle_cpu(cpu_index) const              idle_cpu(); default: tasks_on(c) is empty
//   bool kernel_thread(task_index) const        the task is a kernel thread or has no mm
//                                              (task_numa_compare() of 6.17+ skips it); default false
// Allocation-free; nothing here writes to the view.

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <utility>

#include "inputs.hpp"
#include "machine_view.hpp"

namespace numaplace {

/// A CPU's capacity in the kernel's SCHED_CAPACITY_SCALE.
inline constexpr std::uint64_t cpu_capacity_scale = 1024;

/// What the migration policies read of a view, per CPU, with the defaults above.
namespace machine_reads {

/// How many runnable tasks CPU c queues (rq->nr_running).
template <machine_view M>
constexpr unsigned nr_running(const M& m, cpu_index c) {
  return static_cast<unsigned>(detail::range_length(m.tasks_on(c)));
}

/// Whether CPU c is idle: machine_view.hpp's cpu_idle (the view's idle_cpu(c) if it has one).
template <machine_view M>
constexpr bool idle(const M& m, cpu_index c) {
  return cpu_idle(m, c);
}

/// The task running on CPU c (dst_rq->curr), no_task when it is idle.
template <machine_view M>
constexpr task_index current_task(const M& m, cpu_index c) {
  if constexpr (requires { { m.current_task(c) } -> std::convertible_to<task_index>; }) {
    return m.current_task(c);
  } else {
    const auto& q = m.tasks_on(c);
    const auto it = std::ranges::begin(q);
    return it == std::ranges::end(q) ? no_task : static_cast<task_index>(*it);
  }
}

template <machine_view M>
constexpr std::uint64_t load(const M& m, cpu_index c) {
  if constexpr (requires { { m.cpu_load(c) } -> std::convertible_to<std::uint64_t>; }) {
    return m.cpu_load(c);
  } else {
    std::uint64_t sum = 0;
    for (auto t : m.tasks_on(c)) sum += m.task_load(static_cast<task_index>(t));
    return sum;
  }
}

template <machine_view M>
constexpr std::uint64_t capacity(const M& m, cpu_index c) {
  if constexpr (requires { { m.cpu_capacity(c) } -> std::convertible_to<std::uint64_t>; }) {
    return m.cpu_capacity(c);
  } else {
    return cpu_capacity_scale;
  }
}

template <machine_view M>
constexpr std::uint64_t util(const M& m, cpu_index c) {
  if constexpr (requires { { m.cpu_util(c) } -> std::convertible_to<std::uint64_t>; }) {
    return m.cpu_util(c);
  } else {
    return std::min(capacity(m, c), load(m, c));
  }
}

template <machine_view M>
constexpr std::uint64_t runnable(const M& m, cpu_index c) {
  if constexpr (requires { { m.cpu_runnable(c) } -> std::convertible_to<std::uint64_t>; }) {
    return m.cpu_runnable(c);
  } else {
    return load(m, c);
  }
}

/// Whether another task's NUMA migration to CPU c is under way (rq->numa_migrate_on, v4.19+).
template <machine_view M>
constexpr bool migration_pending(const M& m, cpu_index c) {
  if constexpr (requires { { m.numa_migrate_on(c) } -> std::convertible_to<bool>; }) {
    return m.numa_migrate_on(c);
  } else {
    return false;
  }
}

/// Whether task t is a kernel thread or has no mm (PF_KTHREAD or !p->mm): a runtime's view
/// names such a task when something it does not manage runs on a CPU; false by default.
template <machine_view M>
constexpr bool kernel_thread(const M& m, task_index t) {
  if constexpr (requires { { m.kernel_thread(t) } -> std::convertible_to<bool>; }) {
    return m.kernel_thread(t);
  } else {
    return false;
  }
}

/// Whether node n has CPUs in the view.
template <machine_view M>
constexpr bool has_cpus(const M& m, node_index n) {
  const auto& cpus = m.cpus_of(n);
  return std::ranges::begin(cpus) != std::ranges::end(cpus);
}

}  // namespace machine_reads

/// enum numa_type (v5.7+): how loaded a node is, as the load balancer would see it.
enum class numa_type : std::uint8_t {
  has_spare,   ///< node_has_spare: room for more tasks
  fully_busy,  ///< node_fully_busy: every CPU used, no task waits for long
  overloaded,  ///< node_overloaded: tasks compete for CPU time
};

/// struct numa_stats: one node summed over its CPUs.
struct numa_stats {
  std::uint64_t load = 0;              ///< sum of cpu_load
  std::uint64_t runnable = 0;          ///< sum of cpu_runnable (v5.7+)
  std::uint64_t util = 0;              ///< sum of cpu_util (v5.7+)
  std::uint64_t compute_capacity = 0;  ///< sum of capacity_of
  unsigned nr_running = 0;             ///< runnable tasks on the node
  unsigned weight = 0;                 ///< CPUs in the node
  numa_type node_type = numa_type::has_spare;
  cpu_index idle_cpu = no_cpu;  ///< first idle CPU the task may use (v5.7+, destination only)
  unsigned task_capacity = 0;   ///< v4.1..v4.18: tasks the node runs without sharing a core
  bool has_free_capacity = false;

  /// The same node as numa_has_capacity() (placement::has_capacity) reads it.
  constexpr node_load as_node_load() const noexcept { return {load, compute_capacity, nr_running, weight}; }
};

/// numa_classify() (v5.7; runnable taken into account as merged in v5.7).
constexpr numa_type numa_classify(unsigned imbalance_pct, const numa_stats& ns) noexcept {
  const std::uint64_t cap = ns.compute_capacity;
  if (ns.nr_running > ns.weight &&
      (cap * 100 < ns.util * imbalance_pct || cap * imbalance_pct < ns.runnable * 100)) {
    return numa_type::overloaded;
  }
  if (ns.nr_running < ns.weight || (cap * 100 > ns.util * imbalance_pct && cap * imbalance_pct > ns.runnable * 100)) {
    return numa_type::has_spare;
  }
  return numa_type::fully_busy;
}

/// update_numa_stats(): node `nid` of the view. With `find_idle_for` a task, the first idle
/// CPU (in the view's CPU order) on a node that task may use becomes idle_cpu (v5.7 looks
/// for one on the destination only; SMT idle cores are not modelled: the view has no cores).
template <machine_view M>
constexpr numa_stats update_numa_stats(const M& m, unsigned imbalance_pct, node_index nid,
                                       task_index find_idle_for = no_task) {
  numa_stats ns;
  const bool may_use = find_idle_for != no_task && m.allowed(find_idle_for, nid);
  for (auto cpu : m.cpus_of(nid)) {
    const auto c = static_cast<cpu_index>(cpu);
    ns.load += machine_reads::load(m, c);
    ns.runnable += machine_reads::runnable(m, c);
    ns.util += machine_reads::util(m, c);
    ns.nr_running += machine_reads::nr_running(m, c);
    ns.compute_capacity += machine_reads::capacity(m, c);
    ++ns.weight;
    // A CPU another NUMA migration has claimed is not offered (v5.7's update_numa_stats).
    if (may_use && ns.idle_cpu == no_cpu && machine_reads::idle(m, c) && !machine_reads::migration_pending(m, c)) {
      ns.idle_cpu = c;
    }
  }
  ns.node_type = numa_classify(imbalance_pct, ns);
  // v4.1..v4.18: smt := ceil(cpus / capacity); task_capacity = min(cpus / smt, round(capacity)).
  if (ns.weight != 0 && ns.compute_capacity != 0) {
    const std::uint64_t smt = (cpu_capacity_scale * ns.weight + ns.compute_capacity - 1) / ns.compute_capacity;
    const std::uint64_t cores = ns.weight / smt;
    const std::uint64_t rounded = (ns.compute_capacity + cpu_capacity_scale / 2) / cpu_capacity_scale;
    ns.task_capacity = static_cast<unsigned>(std::min(cores, rounded));
    ns.has_free_capacity = ns.nr_running < ns.task_capacity;
  }
  return ns;
}

/// Which load_too_imbalanced() the kernel has.
enum class imbalance_test : std::uint8_t {
  v3_17,  ///< v3.17..v4.18: over the imbalance_pct threshold, and worse than before
  v4_19,  ///< v4.19+: any imbalance worse than before (Srikar's simplification)
};

/// load_too_imbalanced(): whether loads `src_load`/`dst_load` after a move or swap leave the
/// two nodes more imbalanced (per capacity) than they are now (src/dst's stats).
template <imbalance_test Form>
constexpr bool load_too_imbalanced(long src_load, long dst_load, const numa_stats& src, const numa_stats& dst,
                                   unsigned imbalance_pct) noexcept {
  const auto src_capacity = static_cast<long>(src.compute_capacity);
  const auto dst_capacity = static_cast<long>(dst.compute_capacity);
  long orig_src_load = static_cast<long>(src.load);
  long orig_dst_load = static_cast<long>(dst.load);
  const auto pct = static_cast<long>(imbalance_pct);
  if constexpr (Form == imbalance_test::v3_17) {
    // The slope, not the direction: the loads swap, the capacities stay with their nodes.
    if (dst_load < src_load) std::swap(dst_load, src_load);
    const long imb = dst_load * src_capacity * 100 - src_load * dst_capacity * pct;
    if (imb <= 0) return false;  // below the threshold
    if (orig_dst_load < orig_src_load) std::swap(orig_dst_load, orig_src_load);
    const long old_imb = orig_dst_load * src_capacity * 100 - orig_src_load * dst_capacity * pct;
    return imb > old_imb;
  } else {
    const auto diff = [](long a) { return a < 0 ? -a : a; };
    const long imb = diff(dst_load * src_capacity - src_load * dst_capacity);
    const long old_imb = diff(orig_dst_load * src_capacity - orig_src_load * dst_capacity);
    return imb > old_imb;
  }
}

}  // namespace numaplace
