#pragma once
// shared_interleave: where a shared group's memory should go (seed 003, Ingo Molnar's "track
// shared task's node groups and interleave their memory allocations", 2012).
//
// A group that fits on one node gets a one-node mask, its preferred node, so interleaving
// degenerates into node-local allocation. A group that spans nodes interleaves over every node
// it and its buddies use, spreading its memory bandwidth instead of overloading one node's
// links. A task without a group is private: its preferred node, as node-local allocation.
//
// "Uses" is the v4.6+ active-node rule (stats/active_nodes.hpp) over the group's CPU faults,
// i.e. where its tasks run; when the caller tracks no CPU faults (all zero or absent), over its
// memory faults instead. The seed's own test was whether any buddy currently ran on the node;
// the active-node rule is the later kernels' answer to the same question, with a threshold so
// that a stray task does not pull a whole node into the mask.
//
// This is advice for a memory policy (an MPOL_INTERLEAVE mask): mainline never adopted the
// seed's patch, so no kernel stack includes the policy.

#include <algorithm>
#include <span>

#include "../stats/active_nodes.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

struct shared_interleave {
  /// Sets out[n] for each node the memory should interleave over and clears the rest. All
  /// clear means no advice: the inputs do not match the topology, or there are no faults yet.
  template <class Placement>
  void interleave_nodes(const Placement& pl, const decision_input& in, std::span<bool> out) const noexcept {
    std::fill(out.begin(), out.end(), false);
    if (!pl.fits(in)) return;
    if (in.has_group()) {
      const fault_view where = where_it_runs(in.group);
      const std::uint64_t max = max_cpu_faults(where);
      if (count_active_nodes(where) > 1) {
        const auto n = static_cast<node_index>(std::min(where.node_count(), out.size()));
        for (node_index i = 0; i < n; ++i) out[i] = is_active_node(where, i, max);
        return;
      }
    }
    const node_index nid = pl.preferred_node(in);
    if (nid < out.size()) out[nid] = true;  // no_node is never in range
  }

 private:
  // The group's CPU faults, or its memory faults read as if they were (the same spans'
  // layout) when no CPU faults are tracked.
  static constexpr fault_view where_it_runs(const fault_view& group) noexcept {
    if (max_cpu_faults(group) > 0) return group;
    return fault_view{group.memory, group.memory, group.total};
  }
};

}  // namespace numaplace
