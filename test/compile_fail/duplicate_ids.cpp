// expect-error: node_ids_must_be_non_negative_and_unique
// Two rows claim OS node id 4.
#include <numaplace/topology/static_topology.hpp>

constexpr numaplace::static_topology<3> bad{{{{10, 20, 20}, {20, 10, 20}, {20, 20, 10}}}, {0, 4, 4}};
