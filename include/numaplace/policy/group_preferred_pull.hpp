#pragma once
// group_preferred_pull: a numa_group's preferred node on complex topologies
// (preferred_group_nid, seed 000 patches 3-4; spec section 4), and scanning every node when
// the group spans several (seed 000: "check all nodes when placing a pseudo-interleaved group").
//
// Glueless mesh: the node with the highest group weight, nearby faults included.
// Backplane: narrow level by level, from the largest distance down, to the group of nodes with
// the most faults. The kernel regroups the surviving nodes at every level and decision; the
// groups only depend on the topology, so they are built once here, as a tree.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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
    groups_.push_back({all.empty() ? 0 : all.front(), 0, static_cast<std::uint32_t>(all.size()), 0, 0});
    members_ = all;
    build(topo, 0, 0);
  }

  const group& root() const noexcept { return groups_[0]; }
  const group& child(const group& g, std::uint32_t i) const noexcept { return groups_[g.first_child + i]; }
  const node_index* members(const group& g) const noexcept { return members_.data() + g.first_member; }

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
      group child{seed, static_cast<std::uint32_t>(members_.size()), 0, 0, 0};
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
        nid = best->seed;
        g = best;
      }
      return nid;
    }
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
  detail::backplane_groups tree_;
};

}  // namespace numaplace
