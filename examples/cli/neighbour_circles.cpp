#include "neighbour_circles.hpp"

namespace numaplace_cli {

std::vector<circle> neighbour_circles(const numaplace::dynamic_topology& topology, numaplace::node_index from) {
  std::vector<circle> circles;
  for (const numaplace::node_index n : topology.neighbours(from)) {
    const numaplace::distance_t d = topology.distance(from, n);
    if (circles.empty() || circles.back().distance != d) circles.push_back({d, {}});
    circles.back().nodes.push_back(topology.id_of(n));
  }
  return circles;
}

}  // namespace numaplace_cli
