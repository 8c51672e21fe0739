#pragma once
// `numaplace topo` for people: summary, node table, distance matrix, neighbour circles.

#include "topology_source.hpp"

namespace numaplace_cli {

/// Prints `loaded` on stdout.
void print_topology_text(const loaded_topology& loaded);

}  // namespace numaplace_cli
