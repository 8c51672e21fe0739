#pragma once
// preferred_settling: what a grouped task's preferred node becomes after task_numa_migrate()
// (its last step, v3.13..today: sched_setnuma()). Seed 001's fix (v4.2) made a task that found no
// better CPU still settle, so a spread-out group stops chasing one node; v4.19 settles on
// where the task actually went, and kernels since do the same.
//
// Every kernel stack lists its rule (stacks.hpp); a stack that lists none does not settle:
// the settle_preferred hook's default keeps the preferred node (policy/hooks.hpp).

#include <cstdint>

#include "../stats/active_nodes.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "loop_inputs.hpp"

namespace numaplace {

enum class settle_rule : std::uint8_t {
  v3_13,  ///< any task, grouped or not, after a move: the last evaluated node (v3.13..v3.14)
  v3_15,  ///< only after a move: the last evaluated node, if the group is active there
  v4_2,   ///< also without a move, judged on the source node (seed 001's fix)
  v4_6,   ///< the last evaluated node, if the group spans nodes and is active there
  v4_19,  ///< the node of the CPU chosen, or the source node when none was (v4.19 to today)
};

template <settle_rule Rule>
struct preferred_settling {
  static constexpr settle_rule rule = Rule;

  /// The task's preferred node after the attempt (from v3.15 unchanged for tasks without group).
  /// Postcondition: m.preferred, m.last_evaluated, m.moved_to or m.source.
  template <class Placement>
  node_index settle_preferred(const Placement&, const decision_input& in, const migrate_outcome& m) const noexcept {
    if constexpr (Rule == settle_rule::v3_13) {
      // v3.13 task_numa_migrate(): sched_setnuma(p, env.dst_nid) once a CPU was found, before
      // the move; v3.15 limited it to grouped tasks moving into an active node.
      return m.moved_to != no_node ? m.last_evaluated : m.preferred;
    }
    if (!in.has_group()) return m.preferred;
    const fault_view& g = in.group;
    const auto active = [&](node_index n) { return n != no_node && n < g.node_count() && is_active_node(g, n); };
    if constexpr (Rule == settle_rule::v3_15) {
      return m.moved_to != no_node && active(m.last_evaluated) ? m.last_evaluated : m.preferred;
    } else if constexpr (Rule == settle_rule::v4_2) {
      const node_index judged = m.moved_to == no_node ? m.source : m.last_evaluated;
      return active(judged) ? m.last_evaluated : m.preferred;
    } else if constexpr (Rule == settle_rule::v4_6) {
      return count_active_nodes(g) > 1 && active(m.last_evaluated) ? m.last_evaluated : m.preferred;
    } else {
      return m.moved_to != no_node ? m.moved_to : m.source;
    }
  }
};

}  // namespace numaplace
