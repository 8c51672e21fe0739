// expect-error: distance_matrix_local_distances_differ_between_rows
// Node 1's local distance (11) differs from node 0's (10).
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{10, 20}, {20, 11}});
