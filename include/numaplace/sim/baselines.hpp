#pragma once
// The baselines an experiment may name besides placement stacks: NUMA balancing off, with or
// without binding, or with the scheduler of before scheduling domains.

#include <string_view>

namespace numaplace::sim {

/// The baselines a stack list may name besides the named stacks.
inline constexpr std::string_view no_balancing_name = "no-balancing";
inline constexpr std::string_view hard_binding_name = "hard-binding";
/// autonuma-benchmark's numa01/numa02_INVERSE_BIND: each process's CPUs bound as hard binding
/// binds them (sched_setaffinity), its memory bound (set_mempolicy(MPOL_BIND)) to the nodes
/// farthest from them, where numa01 binds it to the other process's nodes: the worst case a
/// placement can do, for scale.
inline constexpr std::string_view inverse_binding_name = "inverse-binding";
/// Linux 2.5's O(1) scheduler without the NUMA scheduler: no NUMA balancing, and a scheduler
/// that sees every CPU as equal, SMT siblings included (o1_scheduler.hpp): seed 002's "stock
/// sched, no numa".
inline constexpr std::string_view o1_scheduler_name = "linux-2.5";

/// Whether `stack` names a baseline (NUMA balancing off), not a placement stack.
inline bool is_baseline(std::string_view stack) {
  return stack == no_balancing_name || stack == hard_binding_name || stack == inverse_binding_name ||
         stack == o1_scheduler_name;
}

/// Whether `stack` binds processes to their bind_nodes.
inline bool binds_to_nodes(std::string_view stack) {
  return stack == hard_binding_name || stack == inverse_binding_name;
}

}  // namespace numaplace::sim
