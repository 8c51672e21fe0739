#pragma once
// neighbour_weighting: faults on nearby nodes count towards a node's score
// (score_nearby_nodes, seed 000 patch 2; spec section 3.1). Glueless mesh: a neighbour at
// distance d counts f*(max-d)/(max-local). Backplane: neighbours nearer than the hop limit
// count in full. On direct topologies the policy does not apply and adds no code.

#include <cstdint>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

enum class nearby_rule : std::uint8_t {
  v3_19,  ///< skip d == max; backplane counts d <= hop limit
  v4_19,  ///< backplane counts d < hop limit only
  v5_18,  ///< skip d >= max (distances beyond max, from CPU-less nodes, no longer wrap)
};

template <nearby_rule Rule = nearby_rule::v5_18>
struct neighbour_weighting {
  template <numa_kind K>
  static constexpr bool applies_to = K != numa_kind::direct;

  template <class Placement>
  std::uint64_t score_nearby(const Placement& pl, const fault_view& faults, node_index nid,
                             distance_t hop_limit) const noexcept {
    using View = typename Placement::topology_type;
    const View& topo = pl.topology();
    const distance_t max = topo.max_distance();
    const auto neighbours = topo.neighbours(nid);  // nearest first; [0] is nid itself
    std::uint64_t score = 0;
    for (std::size_t i = 1; i < neighbours.size(); ++i) {
      const node_index node = neighbours[i];
      const distance_t d = topo.distance(nid, node);
      if constexpr (Rule >= nearby_rule::v5_18) {
        if (d >= max) break;
      } else {
        if (d == max) continue;
      }
      if constexpr (View::kind == numa_kind::backplane) {
        if constexpr (Rule >= nearby_rule::v4_19) {
          if (d >= hop_limit) break;
        } else {
          if (d > hop_limit) break;
        }
      }
      using A = typename Placement::arithmetic;
      std::uint64_t f = Placement::faults_on(faults, node);
      if constexpr (View::kind == numa_kind::glueless_mesh) {
        // Unsigned, as in the kernel: before v5.18 a distance beyond max wraps here.
        f = A::mul_div(f, static_cast<std::uint64_t>(static_cast<long>(max) - static_cast<long>(d)),
                       static_cast<std::uint64_t>(max - topo.local_distance()));
      }
      score = A::add(score, f);
    }
    return score;
  }
};

}  // namespace numaplace
