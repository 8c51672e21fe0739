// expect-error: distance_matrix_has_a_distance_that_is_not_positive
// A zero distance between two nodes.
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{10, 0}, {20, 10}});
