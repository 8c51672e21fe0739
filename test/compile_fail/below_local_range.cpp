// expect-error: distance_matrix_has_a_distance_outside_10_to_255
// A local distance of 5 is below the 10 Linux requires.
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{5, 20}, {20, 5}});
