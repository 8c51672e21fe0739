#pragma once
// page_placement_only: balancenuma as merged in v3.8 (Mel Gorman's series; v3.8..v3.12), where
// NUMA hinting faults moved pages towards the tasks that touched them and nothing moved tasks
// towards their pages. task_numa_placement() was a placeholder ("scheduling placement policy
// hints go here"): a task's numa_preferred_nid never left -1, so task_numa_migrate() and the
// load balancer's locality rules never had a node to act on, and tasks shared no numa_group
// (groups came with v3.13's task placement).
//
// It fills select_preferred, the one hook every stack needs, with "no answer". The scan pace
// and page filter of that kernel are scan_pacing<scan_pacing_rule::v3_8> and
// page_migration<page_migration_rule::v3_8> (stacks::linux_3_8).

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "trace.hpp"

namespace numaplace {

struct page_placement_only {
  /// No preferred node, whatever the faults: the kernel then keeps numa_preferred_nid (-1).
  template <class Placement>
  node_index select_preferred(const Placement& pl, const decision_input&) const noexcept {
    record_step(pl.trace(), [] { return steps::places_no_task{}; });
    return no_node;
  }
  /// task_numa_fault() of v3.8 joined no groups: it recorded no faulting pid to tell shared
  /// pages from private ones (page->last_nid only).
  static constexpr bool forms_groups = false;
};

}  // namespace numaplace
