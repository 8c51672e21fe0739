#pragma once
// test_machine: a small machine_view for tests. Nodes and distances come from a topology;
// each node with CPUs gets `cpus_per_node` CPUs, numbered by node (node 0's first). Tasks
// queue on CPUs (the first queued one is the running one), carry private memory faults per
// node, an optional group, a preferred node, a load and an affinity. Groups carry their own
// faults (memory, and CPU faults for active-node counting), set by the test, not summed.
//
//   test_machine m(generate::fully_connected(2), 2);     // CPUs 0,1 on node 0; 2,3 on node 1
//   const auto g = m.add_group({10, 90});                 // group faults 10 on node 0, 90 on 1
//   const auto a = m.add_task(0, {10, 90}, g, 1);         // on CPU 0, prefers node 1

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

#include <numaplace/policy/machine_view.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace::testing {

class test_machine {
 public:
  struct task_info {
    cpu_index cpu = no_cpu;
    node_index preferred = no_node;
    group_index group = no_group;
    std::vector<std::uint64_t> memory;  ///< shared, private per node
    std::uint64_t total = 0;
    std::uint64_t load = nice_0_load;
    std::vector<bool> forbidden;  ///< per node; empty: every node allowed
  };
  struct group_info {
    std::vector<std::uint64_t> memory;
    std::vector<std::uint64_t> cpu;
    std::uint64_t total = 0;
  };

  test_machine(const dynamic_topology& t, unsigned cpus_per_node) : nodes_(t.node_count()), node_cpus_(nodes_) {
    std::vector<unsigned> per_node(nodes_);
    for (node_index n = 0; n < nodes_; ++n) per_node[n] = t.has_cpu(n) ? cpus_per_node : 0;
    build(t, per_node);
  }
  /// CPUs per node given one by one (0: a CPU-less node, whatever the topology says).
  test_machine(const dynamic_topology& t, std::initializer_list<unsigned> cpus_per_node)
      : nodes_(t.node_count()), node_cpus_(nodes_) {
    std::vector<unsigned> per_node(cpus_per_node);
    per_node.resize(nodes_, 0);
    build(t, per_node);
  }

  /// A group with private memory faults per node; CPU faults as given (default: the same).
  group_index add_group(std::initializer_list<std::uint64_t> faults, std::initializer_list<std::uint64_t> cpu_faults = {}) {
    group_info g;
    g.memory = pairs(faults, g.total);
    std::uint64_t ignored = 0;
    g.cpu = cpu_faults.size() == 0 ? g.memory : pairs(cpu_faults, ignored);
    groups_.push_back(std::move(g));
    return static_cast<group_index>(groups_.size() - 1);
  }

  /// A task queued on `cpu` with private memory faults per node.
  task_index add_task(cpu_index cpu, std::initializer_list<std::uint64_t> faults, group_index group = no_group,
                      node_index preferred = no_node) {
    task_info t;
    t.cpu = cpu;
    t.group = group;
    t.preferred = preferred;
    t.memory = pairs(faults, t.total);
    tasks_.push_back(std::move(t));
    const auto id = static_cast<task_index>(tasks_.size() - 1);
    queues_[cpu].push_back(id);
    return id;
  }

  void set_preferred(task_index t, node_index n) { tasks_[t].preferred = n; }
  void set_load(task_index t, std::uint64_t load) { tasks_[t].load = load; }
  void forbid(task_index t, node_index n) {
    tasks_[t].forbidden.resize(nodes_, false);
    tasks_[t].forbidden[n] = true;
  }
  /// Moves task t to the back of `cpu`'s queue (what a caller does with a decision).
  void move(task_index t, cpu_index cpu) {
    auto& q = queues_[tasks_[t].cpu];
    std::erase(q, t);
    queues_[cpu].push_back(t);
    tasks_[t].cpu = cpu;
  }
  task_info& task(task_index t) { return tasks_[t]; }
  std::size_t cpu_count() const noexcept { return cpu_node_.size(); }

  // ---- machine_view --------------------------------------------------------------------
  std::size_t node_count() const noexcept { return nodes_; }
  distance_t distance(node_index a, node_index b) const noexcept { return dist_[a * nodes_ + b]; }
  std::span<const cpu_index> cpus_of(node_index n) const noexcept { return node_cpus_[n]; }
  node_index node_of_cpu(cpu_index c) const noexcept { return cpu_node_[c]; }
  std::span<const task_index> tasks_on(cpu_index c) const noexcept { return queues_[c]; }
  cpu_index task_cpu(task_index t) const noexcept { return tasks_[t].cpu; }
  node_index task_node(task_index t) const noexcept { return cpu_node_[tasks_[t].cpu]; }
  node_index task_preferred(task_index t) const noexcept { return tasks_[t].preferred; }
  fault_view task_faults(task_index t) const noexcept { return {tasks_[t].memory, {}, tasks_[t].total}; }
  fault_view group_faults(task_index t) const noexcept {
    if (tasks_[t].group == no_group) return {};
    const group_info& g = groups_[tasks_[t].group];
    return {g.memory, g.cpu, g.total};
  }
  group_index group_of(task_index t) const noexcept { return tasks_[t].group; }
  bool allowed(task_index t, node_index n) const noexcept {
    return tasks_[t].forbidden.empty() || !tasks_[t].forbidden[n];
  }
  std::uint64_t task_load(task_index t) const noexcept { return tasks_[t].load; }

 private:
  void build(const dynamic_topology& t, const std::vector<unsigned>& per_node) {
    for (node_index a = 0; a < nodes_; ++a) {
      for (node_index b = 0; b < nodes_; ++b) dist_.push_back(t.distance(a, b));
    }
    for (node_index n = 0; n < nodes_; ++n) {
      for (unsigned i = 0; i < per_node[n]; ++i) {
        node_cpus_[n].push_back(static_cast<cpu_index>(cpu_node_.size()));
        cpu_node_.push_back(n);
      }
    }
    queues_.resize(cpu_node_.size());
  }

  std::vector<std::uint64_t> pairs(std::initializer_list<std::uint64_t> per_node, std::uint64_t& total) const {
    std::vector<std::uint64_t> v(2 * nodes_, 0);
    node_index n = 0;
    total = 0;
    for (std::uint64_t f : per_node) {
      if (n < nodes_) v[2 * n + 1] = f;
      total += f;
      ++n;
    }
    return v;
  }

  std::size_t nodes_;
  std::vector<distance_t> dist_;
  std::vector<std::vector<cpu_index>> node_cpus_;
  std::vector<node_index> cpu_node_;
  std::vector<std::vector<task_index>> queues_;
  std::vector<task_info> tasks_;
  std::vector<group_info> groups_;
};

static_assert(machine_view<test_machine>);

}  // namespace numaplace::testing
