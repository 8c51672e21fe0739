#pragma once
// What the load balancer asks NUMA balancing before it pulls a task to another node:
// migrate_degrades_locality() in can_migrate_task(), in its three-valued form (v4.2, "Prefer
// NUMA hotness over cache hotness", unchanged in shape through 6.1).
//
// The answer: the move degrades locality (resist it until balancing has failed often enough),
// improves it (take it), or is neutral (the cache-hotness test decides). A task leaving its
// preferred node degrades locality only while its runqueue holds tasks that do not prefer that
// node, which could go instead; a move to an idle CPU is neutral, since leaving a core idle is
// worse; otherwise the task's (or its group's) weights at the two nodes decide.

#include <cstdint>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

enum class locality_effect : std::int8_t { improves = 0, degrades = 1, neutral = -1 };

/// The facts migrate_degrades_locality() reads about one candidate move.
struct balance_move {
  node_index src = no_node, dst = no_node;
  node_index preferred = no_node;  ///< the task's numa_preferred_nid
  bool has_faults = false;         ///< the task has NUMA statistics at all
  bool dst_idle = false;           ///< the pulling CPU is idle (CPU_IDLE balancing)
  unsigned src_nr_running = 0;     ///< tasks on the source runqueue
  unsigned src_nr_preferred = 0;   ///< of those, tasks that prefer the source node
};

/// migrate_degrades_locality() (v4.2+): `pl` gives the weights, `in` the task's statistics.
template <class Placement>
locality_effect migrate_degrades_locality(const Placement& pl, const decision_input& in,
                                          const balance_move& mv) noexcept {
  if (!mv.has_faults || mv.src == mv.dst) return locality_effect::neutral;
  if (mv.src == mv.preferred) {
    return mv.src_nr_running > mv.src_nr_preferred ? locality_effect::degrades : locality_effect::neutral;
  }
  if (mv.dst == mv.preferred) return locality_effect::improves;
  if (mv.dst_idle) return locality_effect::neutral;
  const distance_t dist = pl.topology().distance(mv.src, mv.dst);
  const auto weight = [&](node_index n) {
    return in.has_group() ? pl.group_weight(in, n, dist) : pl.task_weight(in, n, dist);
  };
  return weight(mv.dst) < weight(mv.src) ? locality_effect::degrades : locality_effect::improves;
}

}  // namespace numaplace
