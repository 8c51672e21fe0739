#pragma once
// group_preferred_pull: a numa_group's preferred node on complex topologies
// (preferred_group_nid(), kernel/sched/fair.c since v3.19), and scanning every node when the
// group spans several (v3.19: "check all nodes when placing a pseudo-interleaved group").
//
// Glueless mesh: the node with the highest group weight, nearby faults included. When the
// stack's only nearby scoring can total every node in one pass (neighbour_weighting's v5.18
// rule), the weights come from that pass, and a node's weight is only divided out when its
// total beats the best so far (the weight cannot rise otherwise).
// Backplane: narrow level by level, from the largest distance down, to the group of nodes with
// the most faults. The kernel regroups the surviving nodes at every level and decision; the
// groups only depend on the topology, so they are built once here, as a tree.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "arithmetic.hpp"
#include "trace.hpp"

#include "../stats/active_nodes.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

enum class group_rule : std::uint8_t {
  v3_19,  ///< every node takes part
  v5_18,  ///< only nodes with CPUs take part
};

namespace detail {

/// The backplane narrowing tree: level k holds the groups formed, seed by seed in index order,
/// of nodes nearer than the k-th largest distance, inside the group chosen at level k-1.
class backplane_groups {
 public:
  struct group {
    node_index seed = 0;           // lowest index: the kernel's `nid` when this group wins
    std::uint32_t first_member = 0;
    std::uint32_t member_count = 0;
    std::uint32_t first_child = 0;
    std::uint32_t child_count = 0;
    std::uint32_t level = 0;       // formed below limit(level - 1); the root, level 0, by none
  };

  backplane_groups() = default;

  template <class View>
  backplane_groups(const View& topo, bool cpu_nodes_only) {
    const auto& c = topo.classification_info();
    for (std::size_t i = c.levels.size(); i-- > 0;) {
      if (c.levels[i] > c.local_distance) limits_.push_back(c.levels[i]);
    }
    std::vector<node_index> all;
    for (node_index a = 0; a < topo.node_count(); ++a) {
      if (!cpu_nodes_only || topo.has_cpu(a)) all.push_back(a);
    }
    groups_.push_back({all.empty() ? 0 : all.front(), 0, static_cast<std::uint32_t>(all.size()), 0, 0, 0});
    members_ = all;
    build(topo, 0, 0);
  }

  const group& root() const noexcept { return groups_[0]; }
  const group& child(const group& g, std::uint32_t i) const noexcept { return groups_[g.first_child + i]; }
  const node_index* members(const group& g) const noexcept { return members_.data() + g.first_member; }
  /// The distance below which group `g` was formed (the largest for the root's children).
  distance_t limit(const group& g) const noexcept { return limits_[g.level - 1]; }

 private:
  template <class View>
  void build(const View& topo, std::size_t g, std::size_t level) {
    if (level == limits_.size() || groups_[g].member_count <= 1) return;
    const distance_t limit = limits_[level];
    std::vector<node_index> left(members_.begin() + groups_[g].first_member,
                                 members_.begin() + groups_[g].first_member + groups_[g].member_count);
    const auto first_child = static_cast<std::uint32_t>(groups_.size());
    while (!left.empty()) {
      const node_index seed = left.front();
      group child{seed, static_cast<std::uint32_t>(members_.size()), 0, 0, 0, static_cast<std::uint32_t>(level + 1)};
      std::vector<node_index> rest;
      for (node_index b : left) {
        if (topo.distance(seed, b) < limit) {
          members_.push_back(b);
          ++child.member_count;
        } else {
          rest.push_back(b);
        }
      }
      groups_.push_back(child);
      left.swap(rest);
    }
    groups_[g].first_child = first_child;
    groups_[g].child_count = static_cast<std::uint32_t>(groups_.size()) - first_child;
    for (std::uint32_t i = 0; i < groups_[g].child_count; ++i) build(topo, first_child + i, level + 1);
  }

  std::vector<distance_t> limits_;  // distance levels above local, largest first
  std::vector<group> groups_;
  std::vector<node_index> members_;
};

template <class Placement, std::size_t I>
using policy_at = std::decay_t<decltype(std::declval<const Placement&>().template policy<I>())>;

/// The index of the one policy of the placement for which Hook<P> holds, when Can<P> holds
/// for it too; else the placement's policy count (none, or more than one).
template <class Placement, template <class> class Hook, template <class> class Can, std::size_t... I>
constexpr std::size_t only_policy(std::index_sequence<I...>) {
  constexpr bool hook[] = {false, Hook<policy_at<Placement, I>>::value...};
  constexpr bool can[] = {false, Can<policy_at<Placement, I>>::value...};
  std::size_t with_hook = 0, found = sizeof...(I);
  for (std::size_t i = 0; i < sizeof...(I); ++i) {
    if (!hook[i + 1]) continue;
    ++with_hook;
    if (can[i + 1]) found = i;
  }
  return with_hook == 1 ? found : sizeof...(I);
}

template <class Placement, template <class> class Hook, template <class> class Can>
inline constexpr std::size_t only_policy_index =
    only_policy<Placement, Hook, Can>(std::make_index_sequence<Placement::active_policy_count()>{});

/// The placement's only score_nearby() policy, when it totals every node in one pass
/// (neighbour_weighting's for_each_nearby_total); else the policy count.
template <class Placement>
struct nearby_scoring {
  template <class P>
  struct hook : std::bool_constant<requires(const P& p, const Placement& pl, const fault_view& f, node_index n,
                                            distance_t d) { p.score_nearby(pl, f, n, d); }> {};
  template <class P>
  struct can : std::bool_constant<requires { requires P::totals_in_one_pass; }> {};
  static constexpr std::size_t index = only_policy_index<Placement, hook, can>;
};

/// The arithmetics whose a*1000/total never falls as `a` rises while a*1000 does not wrap.
template <class A>
inline constexpr bool monotone_below_wrap =
    std::is_same_v<A, kernel_arithmetic> || std::is_same_v<A, saturating_arithmetic>;

/// Whether a glueless placement's group weights can all come from one pass.
template <class Placement>
inline constexpr bool group_weights_in_one_pass =
    Placement::kind == numa_kind::glueless_mesh && nearby_scoring<Placement>::index < Placement::active_policy_count() &&
    monotone_below_wrap<typename Placement::arithmetic>;

}  // namespace detail

template <group_rule Rule = group_rule::v5_18>
class group_preferred_pull {
 public:
  template <numa_kind K>
  static constexpr bool applies_to = K != numa_kind::direct;

  group_preferred_pull() = default;

  template <class View>
  explicit group_preferred_pull(const View& topo) {
    if constexpr (View::kind == numa_kind::backplane) tree_ = detail::backplane_groups(topo, cpu_nodes_only);
  }

  template <class Placement>
  node_index choose_group_node(const Placement& pl, const decision_input& in, node_index nid) const noexcept {
    using View = typename Placement::topology_type;
    const View& topo = pl.topology();
    if constexpr (View::kind == numa_kind::glueless_mesh) {
      if constexpr (detail::group_weights_in_one_pass<Placement>) {
        if (in.group.node_count() == topo.node_count()) {
          return best_weight_in_one_pass(pl, in.group, [nid](bool) { return nid; });
        }
      }
      const distance_t dist = topo.max_distance();
      std::uint64_t max_score = 0;
      node_index max_node = nid;
      for (node_index node = 0; node < topo.node_count(); ++node) {
        if (cpu_nodes_only && !topo.has_cpu(node)) continue;
        const std::uint64_t score = pl.group_weight(in, node, dist);
        if (score > max_score) {
          max_score = score;
          max_node = node;
        }
      }
      if (max_score > 0) record_step(pl.trace(), [&] { return steps::group_weight{max_node, max_score, dist}; });
      return max_node;
    } else {
      // Raw group faults, not weights, decide between groups.
      const auto* g = &tree_.root();
      while (g->child_count > 0) {
        std::uint64_t max_faults = 0;
        const detail::backplane_groups::group* best = nullptr;
        for (std::uint32_t c = 0; c < g->child_count; ++c) {
          const auto& candidate = tree_.child(*g, c);
          std::uint64_t faults = 0;
          const node_index* m = tree_.members(candidate);
          for (std::uint32_t i = 0; i < candidate.member_count; ++i) {
            faults = Placement::arithmetic::add(faults, Placement::faults_on(in.group, m[i]));
          }
          if (faults > max_faults) {
            max_faults = faults;
            best = &candidate;
          }
        }
        if (best == nullptr) break;
        record_step(pl.trace(), [this, g, best, max_faults, &in] {
          // Of what the level above held: the whole group's faults at the first level.
          std::uint64_t of = in.group.total;
          if (g != &tree_.root()) {
            of = 0;
            for (std::uint32_t i = 0; i < g->member_count; ++i) {
              of = Placement::arithmetic::add(of, Placement::faults_on(in.group, tree_.members(*g)[i]));
            }
          }
          const node_index* m = tree_.members(*best);
          return steps::narrowed{std::vector<node_index>(m, m + best->member_count), tree_.limit(*best), max_faults, of};
        });
        nid = best->seed;
        g = best;
      }
      return nid;
    }
  }

  /// preferred_group_nid(p, maximum()), maximum() being the task's preferred node from the
  /// group's fault maximum, with every weight from one pass: maximum() is only called when no
  /// weight is above 0, and no_node is the answer when every count is 0: the narrow_from_faults
  /// hook, which fault_scoring's grouped path asks for instead of finding the maximum first.
  /// The group's view must fit the topology (placement::preferred_node checks).
  // Inlined, with best_weight_in_one_pass, into fault_scoring's select_preferred: the call and
  // the fallbacks' closures cost 6 of an 8-node decision's instructions otherwise (GCC 12).
  template <class Placement, class Maximum>
    requires detail::group_weights_in_one_pass<Placement>
  [[gnu::always_inline]] node_index narrow_from_faults(const Placement& pl, const decision_input& in,
                                                       Maximum&& maximum) const noexcept {
    return best_weight_in_one_pass(pl, in.group, [&](bool any_faults) {
      if (any_faults) return maximum();
      record_step(pl.trace(), [&] { return steps::fault_maximum{fault_owner::group, no_node, 0, in.group.total}; });
      return no_node;
    });
  }

  /// Look beyond the preferred node when the group is active on several nodes (v4.6+ rule:
  /// a node is active when its CPU faults exceed a third of the busiest node's).
  template <class Placement>
  bool scan_all_nodes(const Placement& pl, const decision_input& in) const noexcept {
    if (!in.has_group()) return false;
    // stats/active_nodes.hpp's rule, counted in the stack's arithmetic.
    const std::uint64_t max_cpu = max_cpu_faults(in.group);
    const auto n = static_cast<node_index>(std::min<std::size_t>(pl.node_count(), in.group.node_count()));
    unsigned active = 0;
    using A = typename Placement::arithmetic;
    for (node_index i = 0; i < n; ++i) active += A::mul_div(in.group.cpu_faults(i), 3, 1) > max_cpu ? 1u : 0u;
    return active > 1;
  }

 private:
  static constexpr bool cpu_nodes_only = Rule >= group_rule::v5_18;

  // The glueless loop above, every group weight from the one-pass scorer's totals: the first
  // CPU node with the strictly highest weight, else fallback(whether any count is above 0).
  template <class Placement, class Fallback>
  [[gnu::always_inline]] static node_index best_weight_in_one_pass(const Placement& pl, const fault_view& group,
                                                                   Fallback&& fallback) noexcept {
    using A = typename Placement::arithmetic;
    const auto& scorer = pl.template policy<detail::nearby_scoring<Placement>::index>();
    const auto& topo = pl.topology();
    const auto wanted = [&](node_index node) { return !cpu_nodes_only || topo.has_cpu(node); };
    if (group.total == 0) {  // every weight is 0
      return fallback(scorer.for_each_nearby_total(pl, group, [](node_index) { return false; },
                                                   [](node_index, std::uint64_t) {}));
    }
    // While total*1000 does not wrap, a total no higher than the best's has no higher weight:
    // totals below skip_below are not divided out.
    constexpr std::uint64_t no_wrap = std::numeric_limits<std::uint64_t>::max() / 1000;
    std::uint64_t max_score = 0, skip_below = 1;
    node_index max_node = no_node;
    const bool any_faults = scorer.for_each_nearby_total(pl, group, wanted, [&](node_index node, std::uint64_t total) {
      if (total < skip_below) return;
      const std::uint64_t score = A::mul_div(total, 1000, group.total);
      if (score > max_score) {
        max_score = score;
        max_node = node;
        skip_below = total <= no_wrap ? total + 1 : 0;
      }
    });
    if (max_node == no_node) return fallback(any_faults);
    record_step(pl.trace(), [&] { return steps::group_weight{max_node, max_score, topo.max_distance()}; });
    return max_node;
  }

  detail::backplane_groups tree_;
};

}  // namespace numaplace
