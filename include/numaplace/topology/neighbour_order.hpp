#pragma once
// Each node's view of the machine: every node sorted by distance from it, nearest first.
// Computed once when a topology is built, so decisions never sort.

#include <algorithm>
#include <cstddef>
#include <span>

#include "concept.hpp"
#include "types.hpp"

namespace numaplace::detail {

/// Writes all node indices into `out` ordered by (distance from `from`, index).
/// The node itself comes first: its local distance is strictly the smallest of its row.
template <numa_topology T>
constexpr void fill_neighbour_order(const T& t, node_index from, std::span<node_index> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<node_index>(i);
  std::sort(out.begin(), out.end(), [&](node_index a, node_index b) {
    const auto da = t.distance(from, a);
    const auto db = t.distance(from, b);
    return da != db ? da < db : a < b;
  });
}

}  // namespace numaplace::detail
