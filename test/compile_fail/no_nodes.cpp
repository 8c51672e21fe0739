// expect-error: needs at least one node
#include <numaplace/topology/static_topology.hpp>

static_assert(numaplace::static_topology<0>::node_count() == 0);
