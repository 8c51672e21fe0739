// expect-error: node_ids_must_be_non_negative_and_unique
// OS node ids are never negative.
#include <numaplace/topology/static_topology.hpp>

constexpr numaplace::static_topology<2> bad{{{{10, 20}, {20, 10}}}, {0, -1}};
