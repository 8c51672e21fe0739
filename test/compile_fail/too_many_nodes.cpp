// expect-error: at most max_nodes (1024) nodes
// Linux has at most 1024 NUMA nodes.
#include <numaplace/topology/static_topology.hpp>

static_assert(numaplace::static_topology<1025>::node_count() == 1025);
