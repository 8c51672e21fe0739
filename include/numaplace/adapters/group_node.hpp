#pragma once
// Where a group's work should run: the node a placement prefers for the group's faults.

#include "../stats/fault_stats.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace::adapters {

/// task_numa_placement()'s answer for a group whose faults are `group` (read as one task's,
/// without a numa_group): placement::preferred_node, or `fallback` while the faults give no
/// answer (none recorded yet, or statistics for another node count).
template <class Placement>
node_index preferred_node_or(const Placement& pl, const fault_stats& group, node_index fallback) {
  const node_index n = pl.preferred_node(decision_input{group.view(), fault_view{}});
  return n == no_node ? fallback : n;
}

}  // namespace numaplace::adapters
