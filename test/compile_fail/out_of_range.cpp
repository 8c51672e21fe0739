// expect-error: distance_matrix_has_a_distance_outside_10_to_255
// 300 does not fit the byte Linux stores a distance in.
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{10, 300}, {300, 10}});
