#pragma once
// fault_scoring: the base choice of a preferred node from fault counts (task_numa_placement(),
// kernel/sched/fair.c). The rule changed over the years; each is a variant.

#include <cstddef>
#include <cstdint>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "trace.hpp"

namespace numaplace {

enum class preferred_rule : std::uint8_t {
  v3_13,  ///< task maximum; if the group's maximum differs, best task+group weight ("vanilla")
  v3_19,  ///< task maximum, replaced by preferred_group_nid(group maximum); gated on task faults
  v4_19,  ///< one maximum: the group's faults when grouped, else the task's
  v5_18,  ///< as v4.19, and a CPU-less winner is replaced by its nearest CPU node
};

template <preferred_rule Rule = preferred_rule::v5_18>
struct fault_scoring {
  static constexpr preferred_rule rule = Rule;

  template <class Placement>
  node_index select_preferred(const Placement& pl, const decision_input& in) const noexcept {
    if constexpr (Rule >= preferred_rule::v4_19) {
      // One maximum: the group's when grouped (through the composer, which narrows it in the
      // same pass where the stack can), else the task's.
      const auto maximum_of = [&](const fault_view& f, fault_owner owner) {
        const node_index max_nid = fault_maximum<Placement>(f);
        record_step(pl.trace(), [&] { return steps::fault_maximum{owner, max_nid, faults_at<Placement>(f, max_nid), f.total}; });
        // max_nid stays no_node exactly when every count is 0; testing it rather than
        // max_faults lets the compiler drop the test where nothing follows (direct, no CPU-less
        // nodes).
        return max_nid == no_node ? no_node : settle_on_cpu(pl, max_nid);
      };
      if (in.has_group()) return pl.group_node_from_faults(in, [&] { return maximum_of(in.group, fault_owner::group); });
      return maximum_of(in.task, fault_owner::task);
    } else {
      if (!pl.fits(in)) return no_node;
      const auto n = static_cast<node_index>(pl.node_count());
      std::uint64_t max_faults = 0, max_group_faults = 0;
      node_index max_nid = no_node, max_group_nid = no_node;
      for (node_index i = 0; i < n; ++i) {
        const std::uint64_t v = Placement::faults_on(in.task, i);
        if (v > max_faults) {
          max_faults = v;
          max_nid = i;
        }
        if (in.has_group()) {
          const std::uint64_t g = Placement::faults_on(in.group, i);
          if (g > max_group_faults) {
            max_group_faults = g;
            max_group_nid = i;
          }
        }
      }
      record_step(pl.trace(), [&] { return steps::fault_maximum{fault_owner::task, max_nid, max_faults, in.task.total}; });
      if (in.has_group()) {
        record_step(pl.trace(), [&] {
          return steps::fault_maximum{fault_owner::group, max_group_nid, max_group_faults, in.group.total};
        });
      }
      // The kernel gates on the task's own faults, even for grouped tasks.
      if (max_faults == 0) {
        if (in.has_group()) record_step(pl.trace(), [] { return steps::gated_on_task_faults{}; });
        return no_node;
      }
      if (!in.has_group()) return max_nid;
      if constexpr (Rule == preferred_rule::v3_19) {
        record_step(pl.trace(), [] { return steps::group_choice_applies{}; });
        return pl.group_node(in, max_group_nid);
      } else {
        if (max_nid == max_group_nid) return max_nid;
        // Task and group disagree: the node with the best combined weight. Weights read
        // nearby nodes at the largest distance, as preferred_group_nid does.
        const distance_t dist = pl.topology().max_distance();
        std::uint64_t max_weight = 0;
        for (node_index i = 0; i < n; ++i) {
          const std::uint64_t w =
              Placement::arithmetic::add(pl.task_weight(in, i, dist), pl.group_weight(in, i, dist));
          if (w > max_weight) {
            max_weight = w;
            max_nid = i;
          }
        }
        record_step(pl.trace(), [&] {
          return steps::combined_weight{max_nid, pl.task_weight(in, max_nid, dist), pl.group_weight(in, max_nid, dist),
                                        dist};
        });
        return max_nid;
      }
    }
  }

  /// The first node with the most faults; no_node when every count is 0.
  template <class Placement>
  static node_index fault_maximum(const fault_view& f) noexcept {
    const std::size_t n = f.node_count();  // never reads past the view
    std::uint64_t max_faults = 0;
    node_index max_nid = no_node;
    // A size_t index and the counters read in place: exactly the code of a hand-written
    // argmax (bench/: within 2 % of its instruction count on direct topologies).
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t v = Placement::faults_on(f, i);
      if (v > max_faults) {
        max_faults = v;
        max_nid = static_cast<node_index>(i);
      }
    }
    return max_nid;
  }

  /// A node's faults, 0 for no_node (what a step records for "all zero").
  template <class Placement>
  static std::uint64_t faults_at(const fault_view& f, node_index nid) noexcept {
    return nid == no_node ? 0 : Placement::faults_on(f, nid);
  }

  /// The fault maximum as the rule keeps it: since v5.18 never a CPU-less node.
  template <class Placement>
  static node_index settle_on_cpu(const Placement& pl, node_index max_nid) noexcept {
    if constexpr (Rule >= preferred_rule::v5_18) {
      const node_index nid = nearest_cpu_node(pl.topology(), max_nid);
      if (nid != max_nid) record_step(pl.trace(), [&] { return steps::nearest_cpu_node{max_nid, nid}; });
      return nid;
    } else {
      (void)pl;
      return max_nid;
    }
  }

  /// Since v5.18 a task cannot prefer a CPU-less node: the nearest CPU node (lowest index on
  /// ties) stands in for it.
  template <class View>
  static node_index nearest_cpu_node(const View& topo, node_index nid) noexcept {
    if (topo.has_cpu(nid)) return nid;
    for (node_index candidate : topo.neighbours(nid)) {
      if (topo.has_cpu(candidate)) return candidate;
    }
    return nid;
  }
};

}  // namespace numaplace
