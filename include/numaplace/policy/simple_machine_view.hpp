#pragma once
// simple_machine_view: a machine_view as plain tables a runtime (or a test) fills: a distance
// matrix, each node's CPUs, each CPU's queue, and per task its CPU, preferred node, faults,
// group, load and the nodes its affinity excludes. Built from a topology, it numbers CPUs by
// node (node 0's first); add_task and move keep the tables consistent, so it keeps
// machine_view's laws (check_machine_view) as long as the tables are filled through them.
//
//   simple_machine_view m(generate::fully_connected(2), {2, 2});  // CPUs 0,1 on node 0; 2,3 on 1
//   const auto g = m.add_group({0, 10, 0, 90});                    // two counters per node
//   const auto t = m.add_task(0, {0, 10, 0, 90}, g, 1);            // on CPU 0, prefers node 1

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "../topology/concept.hpp"
#include "machine_view.hpp"

namespace numaplace {

struct simple_machine_view {
  struct task_entry {
    cpu_index cpu = no_cpu;
    node_index preferred = no_node;
    group_index group = no_group;
    std::vector<std::uint64_t> faults;  ///< two per node, shared then private; empty: none counted
    std::uint64_t total = 0;            ///< the weights' denominator: the sum of `faults`
    std::uint64_t load = nice_0_load;
    std::vector<bool> forbidden;        ///< per node; empty: every node allowed
    bool kernel = false;                ///< a kernel thread, or a task without mm
  };
  struct group_entry {
    std::vector<std::uint64_t> memory;  ///< two per node, shared then private
    std::vector<std::uint64_t> cpu;     ///< the same, by the node the faults ran on; may be empty
    std::uint64_t total = 0;
  };

  std::size_t nodes = 0;
  std::vector<distance_t> distances;              ///< nodes x nodes, row-major
  std::vector<std::vector<cpu_index>> node_cpus;  ///< per node
  std::vector<node_index> cpu_node;               ///< per CPU
  std::vector<std::vector<task_index>> queues;    ///< per CPU, the running task first
  std::vector<task_entry> tasks;
  std::vector<group_entry> groups;

  simple_machine_view() = default;

  /// `topology`'s nodes and distances, with cpus_per_node[n] CPUs on node n (missing: 0).
  template <numa_topology T>
  simple_machine_view(const T& topology, std::span<const unsigned> cpus_per_node)
      : nodes(topology.node_count()), node_cpus(nodes) {
    for (node_index a = 0; a < nodes; ++a) {
      for (node_index b = 0; b < nodes; ++b) distances.push_back(static_cast<distance_t>(topology.distance(a, b)));
    }
    for (node_index n = 0; n < nodes && n < cpus_per_node.size(); ++n) {
      for (unsigned i = 0; i < cpus_per_node[n]; ++i) {
        node_cpus[n].push_back(static_cast<cpu_index>(cpu_node.size()));
        cpu_node.push_back(n);
      }
    }
    queues.resize(cpu_node.size());
  }
  template <numa_topology T>
  simple_machine_view(const T& topology, std::initializer_list<unsigned> cpus_per_node)
      : simple_machine_view(topology, std::span<const unsigned>(cpus_per_node.begin(), cpus_per_node.size())) {}

  /// A group whose faults are `memory` (two per node) and, if given, `cpu`; total: sum of memory.
  group_index add_group(std::vector<std::uint64_t> memory, std::vector<std::uint64_t> cpu = {}) {
    const std::uint64_t total = std::accumulate(memory.begin(), memory.end(), std::uint64_t{0});
    groups.push_back({std::move(memory), std::move(cpu), total});
    return static_cast<group_index>(groups.size() - 1);
  }

  /// A task queued last on `cpu` with `faults` (two per node; total: their sum).
  task_index add_task(cpu_index cpu, std::vector<std::uint64_t> faults = {}, group_index group = no_group,
                      node_index preferred = no_node) {
    task_entry t;
    t.cpu = cpu;
    t.group = group;
    t.preferred = preferred;
    t.total = std::accumulate(faults.begin(), faults.end(), std::uint64_t{0});
    t.faults = std::move(faults);
    tasks.push_back(std::move(t));
    const auto id = static_cast<task_index>(tasks.size() - 1);
    queues[cpu].push_back(id);
    return id;
  }

  /// Moves task t to the back of `cpu`'s queue (what a caller does with a decision).
  void move(task_index t, cpu_index cpu) {
    std::erase(queues[tasks[t].cpu], t);
    queues[cpu].push_back(t);
    tasks[t].cpu = cpu;
  }

  /// Task t's affinity excludes node n.
  void forbid(task_index t, node_index n) {
    tasks[t].forbidden.resize(nodes, false);
    tasks[t].forbidden[n] = true;
  }

  std::size_t cpu_count() const noexcept { return cpu_node.size(); }

  // ---- machine_view ----------------------------------------------------------------------
  std::size_t node_count() const noexcept { return nodes; }
  distance_t distance(node_index a, node_index b) const noexcept { return distances[a * nodes + b]; }
  std::span<const cpu_index> cpus_of(node_index n) const noexcept { return node_cpus[n]; }
  node_index node_of_cpu(cpu_index c) const noexcept { return cpu_node[c]; }
  std::span<const task_index> tasks_on(cpu_index c) const noexcept { return queues[c]; }
  cpu_index task_cpu(task_index t) const noexcept { return tasks[t].cpu; }
  node_index task_node(task_index t) const noexcept { return cpu_node[tasks[t].cpu]; }
  node_index task_preferred(task_index t) const noexcept { return tasks[t].preferred; }
  fault_view task_faults(task_index t) const noexcept { return {tasks[t].faults, {}, tasks[t].total}; }
  fault_view group_faults(task_index t) const noexcept {
    if (tasks[t].group == no_group) return {};
    const group_entry& g = groups[tasks[t].group];
    return {g.memory, g.cpu, g.total};
  }
  group_index group_of(task_index t) const noexcept { return tasks[t].group; }
  bool allowed(task_index t, node_index n) const noexcept {
    return tasks[t].forbidden.empty() || !tasks[t].forbidden[n];
  }
  std::uint64_t task_load(task_index t) const noexcept { return tasks[t].load; }
  /// load_imbalance.hpp's optional member: task_numa_compare() of 6.17+ skips such a task.
  bool kernel_thread(task_index t) const noexcept { return tasks[t].kernel; }
};

static_assert(machine_view<simple_machine_view>);

}  // namespace numaplace
