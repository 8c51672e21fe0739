// expect-error: distance_matrix_has_an_off_diagonal_distance_not_larger_than_the_local_distance
// Nodes 1 and 2 are as close to each other as to themselves.
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{10, 20, 20}, {20, 10, 10}, {20, 10, 10}});
