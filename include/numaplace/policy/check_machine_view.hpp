#pragma once
// check_machine_view: machine_view's laws (policy/machine_view.hpp) checked on a view at run
// time. A runtime or a test that builds its own view calls it once (or after each change it
// is unsure of) instead of debugging a policy that read a machine that cannot exist.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../topology/check_topology.hpp"
#include "machine_view.hpp"

namespace numaplace {

/// machine_view's laws, in the order check_machine_view() checks them.
enum class view_law : std::uint8_t {
  none,
  distances,                ///< node_count() and distance() obey numa_topology's laws
  cpu_on_its_node,          ///< every c in cpus_of(n) has node_of_cpu(c) == n
  cpus_dense,               ///< all nodes' CPUs together are 0..N-1, each listed once
  task_on_its_cpu,          ///< every t in tasks_on(c) has task_cpu(t) == c
  task_queued_once,         ///< no task is listed twice
  task_node_is_cpu_node,    ///< task_node(t) == node_of_cpu(task_cpu(t))
  preferred_in_range,       ///< task_preferred(t) is no_node or a node
  fault_spans_sized,        ///< fault views hold no counter or two per node
  group_faults_with_group,  ///< group_faults(t) is empty exactly when group_of(t) is no_group
  group_faults_shared,      ///< tasks of one group read the same group faults
  allowed_where_running,    ///< allowed(t, task_node(t))
  idle_cpu_queues_nothing,  ///< a CPU the view's idle_cpu() calls idle lists no task
};

constexpr std::string_view to_string(view_law law) noexcept {
  switch (law) {
    case view_law::none: return "none";
    case view_law::distances: return "distances";
    case view_law::cpu_on_its_node: return "cpu_on_its_node";
    case view_law::cpus_dense: return "cpus_dense";
    case view_law::task_on_its_cpu: return "task_on_its_cpu";
    case view_law::task_queued_once: return "task_queued_once";
    case view_law::task_node_is_cpu_node: return "task_node_is_cpu_node";
    case view_law::preferred_in_range: return "preferred_in_range";
    case view_law::fault_spans_sized: return "fault_spans_sized";
    case view_law::group_faults_with_group: return "group_faults_with_group";
    case view_law::group_faults_shared: return "group_faults_shared";
    case view_law::allowed_where_running: return "allowed_where_running";
    case view_law::idle_cpu_queues_nothing: return "idle_cpu_queues_nothing";
  }
  return "unknown";
}

/// The first law a view breaks: which, and a message that names it and the task, CPU or node
/// (`law == none`, false, when the view keeps them all).
struct view_problem {
  view_law law = view_law::none;
  std::string message;

  explicit operator bool() const noexcept { return law != view_law::none; }
};

namespace detail {

inline view_problem broken(view_law law, const std::string& where) {
  return {law, std::string(to_string(law)) + ": " + where};
}

inline std::string counters(std::size_t size) { return std::to_string(size) + " counters"; }

// Why fault view `f` breaks fault_spans_sized on an n-node machine, or "" when it does not.
inline std::string fault_span_error(const fault_view& f, std::size_t n) {
  if (!f.memory.empty() && f.memory.size() != 2 * n) return "memory holds " + counters(f.memory.size());
  if (!f.cpu.empty() && f.cpu.size() != 2 * n) return "cpu holds " + counters(f.cpu.size());
  return {};
}

inline bool same_faults(const fault_view& a, const fault_view& b) {
  return a.total == b.total && std::equal(a.memory.begin(), a.memory.end(), b.memory.begin(), b.memory.end()) &&
         std::equal(a.cpu.begin(), a.cpu.end(), b.cpu.begin(), b.cpu.end());
}

}  // namespace detail

/// Checks machine_view's laws on `m`; returns the first one broken, with where. It reads every
/// CPU and every task a CPU lists once; a view with no tasks checks only its nodes and CPUs.
template <machine_view M>
view_problem check_machine_view(const M& m) {
  using detail::broken;
  const auto str = [](auto i) { return std::to_string(i); };

  if (const matrix_problem p = check_topology(m)) return broken(view_law::distances, to_error(p, "distance").what());
  const auto nodes = static_cast<node_index>(m.node_count());

  std::size_t cpu_total = 0;
  for (node_index n = 0; n < nodes; ++n) {
    for (auto listed : m.cpus_of(n)) {
      const auto c = static_cast<cpu_index>(listed);
      const auto at = static_cast<node_index>(m.node_of_cpu(c));
      if (at != n) {
        return broken(view_law::cpu_on_its_node,
                      "node " + str(n) + " lists CPU " + str(c) + ", whose node_of_cpu is " + str(at));
      }
      ++cpu_total;
    }
  }
  std::vector<bool> listed_cpu(cpu_total, false);
  for (node_index n = 0; n < nodes; ++n) {
    for (auto listed : m.cpus_of(n)) {
      const auto c = static_cast<cpu_index>(listed);
      if (c >= cpu_total) {
        return broken(view_law::cpus_dense, "node " + str(n) + " lists CPU " + str(c) + ", but the nodes list " +
                                                str(cpu_total) + " CPUs, so indices must be 0.." + str(cpu_total - 1));
      }
      if (listed_cpu[c]) return broken(view_law::cpus_dense, "node " + str(n) + " lists CPU " + str(c) + " twice");
      listed_cpu[c] = true;
    }
  }

  std::unordered_map<task_index, cpu_index> queued_on;
  std::unordered_map<group_index, task_index> first_member;
  for (cpu_index c = 0; c < cpu_total; ++c) {
    if constexpr (requires { { m.idle_cpu(c) } -> std::convertible_to<bool>; }) {
      if (m.idle_cpu(c) && !detail::range_empty(m.tasks_on(c))) {
        const auto queued = detail::range_length(m.tasks_on(c));
        return broken(view_law::idle_cpu_queues_nothing,
                      "CPU " + str(c) + " is idle but lists " + str(queued) + (queued == 1 ? " task" : " tasks"));
      }
    }
    const auto cpu_node = static_cast<node_index>(m.node_of_cpu(c));
    for (auto queued : m.tasks_on(c)) {
      const auto t = static_cast<task_index>(queued);
      const std::string task = "task " + str(t);
      if (const auto on = static_cast<cpu_index>(m.task_cpu(t)); on != c) {
        return broken(view_law::task_on_its_cpu, "CPU " + str(c) + " lists " + task + ", whose task_cpu is " + str(on));
      }
      if (const auto [it, first] = queued_on.try_emplace(t, c); !first) {
        return broken(view_law::task_queued_once,
                      task + " is listed on CPU " + str(it->second) + " and again on CPU " + str(c));
      }
      if (const auto node = static_cast<node_index>(m.task_node(t)); node != cpu_node) {
        return broken(view_law::task_node_is_cpu_node,
                      task + " runs on CPU " + str(c) + " of node " + str(cpu_node) + ", but its task_node is " + str(node));
      }
      if (const auto p = static_cast<node_index>(m.task_preferred(t)); p != no_node && p >= nodes) {
        return broken(view_law::preferred_in_range,
                      task + " prefers node " + str(p) + " of a " + str(nodes) + "-node machine");
      }
      const fault_view own = m.task_faults(t);
      const fault_view group = m.group_faults(t);
      if (const std::string e = detail::fault_span_error(own, nodes); !e.empty()) {
        return broken(view_law::fault_spans_sized, task + "'s task_faults " + e + " for " + str(nodes) + " nodes");
      }
      if (const std::string e = detail::fault_span_error(group, nodes); !e.empty()) {
        return broken(view_law::fault_spans_sized, task + "'s group_faults " + e + " for " + str(nodes) + " nodes");
      }
      const auto g = static_cast<group_index>(m.group_of(t));
      if ((g == no_group) != group.empty()) {
        return broken(view_law::group_faults_with_group,
                      g == no_group ? task + " is in no group but has group faults"
                                    : task + " is in group " + str(g) + " but its group faults are empty");
      }
      if (g != no_group) {
        const auto [it, first] = first_member.try_emplace(g, t);
        if (!first && !detail::same_faults(m.group_faults(it->second), group)) {
          return broken(view_law::group_faults_shared, "tasks " + str(it->second) + " and " + str(t) + " of group " +
                                                           str(g) + " read different group faults");
        }
      }
      if (!static_cast<bool>(m.allowed(t, cpu_node))) {
        return broken(view_law::allowed_where_running,
                      task + " runs on node " + str(cpu_node) + ", which allowed() excludes");
      }
    }
  }
  return {};
}

}  // namespace numaplace
