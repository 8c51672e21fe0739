#pragma once
// A node's neighbours grouped in concentric circles: every node at the same distance together,
// nearest circle first, as the scheduler widens its search level by level.

#include <vector>

#include "dynamic_topology.hpp"
#include "types.hpp"

namespace numaplace {

/// The nodes at one distance from a node.
struct neighbour_circle {
  distance_t distance = 0;
  std::vector<node_id> nodes;  ///< OS node ids, in neighbour order
};

/// The circles around node `from` (a dense index); the first holds `from` alone.
inline std::vector<neighbour_circle> neighbour_circles(const dynamic_topology& topology, node_index from) {
  std::vector<neighbour_circle> circles;
  for (const node_index n : topology.neighbours(from)) {
    const distance_t d = topology.distance(from, n);
    if (circles.empty() || circles.back().distance != d) circles.push_back({d, {}});
    circles.back().nodes.push_back(topology.id_of(n));
  }
  return circles;
}

}  // namespace numaplace
