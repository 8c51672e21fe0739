#pragma once
// test_machine: the reference machine_view (simple_machine_view) with the policy tests'
// shorthands: `cpus_per_node` CPUs on every node that has CPUs, and faults given as private
// counts per node (group CPU faults, for active-node counting, the same unless given).
//
//   test_machine m(generate::fully_connected(2), 2);     // CPUs 0,1 on node 0; 2,3 on node 1
//   const auto g = m.add_group({10, 90});                 // group faults 10 on node 0, 90 on 1
//   const auto a = m.add_task(0, {10, 90}, g, 1);         // on CPU 0, prefers node 1

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <numaplace/policy/simple_machine_view.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace::testing {

class test_machine : public simple_machine_view {
 public:
  test_machine(const dynamic_topology& t, unsigned cpus_per_node) : simple_machine_view(t, cpus_on(t, cpus_per_node)) {}
  /// CPUs per node given one by one (0: a CPU-less node, whatever the topology says).
  test_machine(const dynamic_topology& t, std::initializer_list<unsigned> cpus_per_node)
      : simple_machine_view(t, cpus_per_node) {}

  /// A group with private memory faults per node; CPU faults as given (default: the same).
  group_index add_group(std::initializer_list<std::uint64_t> faults, std::initializer_list<std::uint64_t> cpu_faults = {}) {
    std::vector<std::uint64_t> memory = private_faults(faults);
    std::vector<std::uint64_t> cpu = cpu_faults.size() == 0 ? memory : private_faults(cpu_faults);
    return simple_machine_view::add_group(std::move(memory), std::move(cpu));
  }

  /// A task queued on `cpu` with private memory faults per node.
  task_index add_task(cpu_index cpu, std::initializer_list<std::uint64_t> faults, group_index group = no_group,
                      node_index preferred = no_node) {
    return simple_machine_view::add_task(cpu, private_faults(faults), group, preferred);
  }

 private:
  static std::vector<unsigned> cpus_on(const dynamic_topology& t, unsigned cpus_per_node) {
    std::vector<unsigned> per_node(t.node_count());
    for (node_index n = 0; n < per_node.size(); ++n) per_node[n] = t.has_cpu(n) ? cpus_per_node : 0;
    return per_node;
  }

  std::vector<std::uint64_t> private_faults(std::initializer_list<std::uint64_t> per_node) const {
    std::vector<std::uint64_t> pairs(2 * node_count(), 0);
    node_index n = 0;
    for (std::uint64_t f : per_node) {
      if (n < node_count()) pairs[2 * n + 1] = f;
      ++n;
    }
    return pairs;
  }
};

static_assert(machine_view<test_machine>);

}  // namespace numaplace::testing
