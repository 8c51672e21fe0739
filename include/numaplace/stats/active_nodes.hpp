#pragma once
// Active nodes of a numa_group, the v4.6+ rule (spec 2.4): a node is active while the group's
// CPU faults there exceed a third of those on its busiest node. An active count above one
// means the group spans nodes, so task_numa_migrate looks beyond the preferred node.
//
// The kernel iterates online nodes (CPU nodes since v5.18); a node without CPUs never has CPU
// faults, so iterating every node gives the same answer. With no CPU faults at all the count
// is 0 (the kernel starts a new group at 1 and recounts once faults arrive).

#include <cstdint>

#include "../topology/types.hpp"
#include "fault_view.hpp"

namespace numaplace {

/// ACTIVE_NODE_FRACTION: active means more than 1/3 of the busiest node's CPU faults.
inline constexpr std::uint64_t active_node_fraction = 3;

/// The busiest node's CPU faults (the group's max_faults_cpu).
constexpr std::uint64_t max_cpu_faults(const fault_view& group) noexcept {
  std::uint64_t max = 0;
  for (node_index n = 0; n < group.node_count(); ++n) {
    if (group.cpu_faults(n) > max) max = group.cpu_faults(n);
  }
  return max;
}

/// numa_is_active_node(), with the group's max_faults_cpu as the kernel caches it.
constexpr bool is_active_node(const fault_view& group, node_index n, std::uint64_t max_faults_cpu) noexcept {
  return group.cpu_faults(n) * active_node_fraction > max_faults_cpu;
}

/// numa_is_active_node(), computing the maximum first.
constexpr bool is_active_node(const fault_view& group, node_index n) noexcept {
  return is_active_node(group, n, max_cpu_faults(group));
}

/// numa_group_count_active_nodes(): how many nodes are active.
constexpr unsigned count_active_nodes(const fault_view& group) noexcept {
  const std::uint64_t max = max_cpu_faults(group);
  unsigned active = 0;
  for (node_index n = 0; n < group.node_count(); ++n) active += is_active_node(group, n, max) ? 1u : 0u;
  return active;
}

}  // namespace numaplace
