// expect-error: distance_matrix_has_a_distance_that_is_not_positive
// A negative distance, given through the static_topology constructor.
#include <numaplace/topology/static_topology.hpp>

constexpr numaplace::static_topology<3> bad{{{{10, 20, 20}, {20, 10, 20}, {20, -20, 10}}}};
