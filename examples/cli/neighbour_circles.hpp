#pragma once
// A node's neighbours grouped in concentric circles: every node at the same distance together,
// nearest circle first, as the scheduler widens its search level by level.

#include <vector>

#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

struct circle {
  numaplace::distance_t distance = 0;
  std::vector<numaplace::node_id> nodes;  ///< OS node ids, in neighbour order
};

/// The circles around node `from` (a dense index); the first holds `from` alone.
std::vector<circle> neighbour_circles(const numaplace::dynamic_topology& topology, numaplace::node_index from);

}  // namespace numaplace_cli
