#pragma once
// How the composer reads a policy. A policy is a small, stateless-by-default class that opts
// into hooks by declaring them; the traits below detect each hook with a `requires`
// expression and supply the default when it is absent (Abseil's hash_policy_traits and
// EnTT's component_traits work the same way).
//
// Hooks (all optional, all noexcept, none allocates). `pl` is the composed placement, so a
// hook can call back into it (pl.topology(), pl.group_weight(...), ...).
//
//   static constexpr bool applies_to<numa_kind K>      default true; false drops the policy from
//                                                      placements on K (it then adds no code)
//   node_index select_preferred(pl, in) const          the base choice of task_numa_placement;
//                                                      exactly one policy of a stack provides it
//   node_index choose_group_node(pl, in, nid) const    preferred_group_nid(): folded in order
//   node_index refine_preferred(pl, in, nid) const     a last word on the chosen node (user policies)
//   std::uint64_t score_nearby(pl, faults, nid, dist) const   score_nearby_nodes(): summed
//   bool scan_all_nodes(pl, in) const                  task_numa_migrate also scans non-preferred nodes
//   long adjust_imbalance(const imbalance_args&) const adjust_numa_imbalance(); at most one
//   bool has_capacity(const node_load& src, const node_load& dst) const   all must agree
//   void interleave_nodes(pl, in, std::span<bool> out) const   shared memory's node mask; at most one
//   node_index settle_preferred(pl, in, const migrate_outcome&) const   after task_numa_migrate; at most one
//
// Read by runtimes from the policy itself, not folded by the composer:
//   node_index spread_target(pl, from, running_per_node, cpus_per_node) const   concentric_spread

#include "../topology/types.hpp"

namespace numaplace {

/// Whether policy `P` takes part in placements on topologies of kind `K`.
template <class P, numa_kind K>
constexpr bool policy_applies() {
  if constexpr (requires { P::template applies_to<K>; }) {
    return P::template applies_to<K>;
  } else {
    return true;
  }
}

}  // namespace numaplace
