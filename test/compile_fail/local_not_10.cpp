// expect-error: distance_matrix_local_distance_is_not_10
// Every local distance is 20: consistent, but Linux only accepts 10.
#include <numaplace/topology/static_topology.hpp>

constexpr auto t = numaplace::make_static_topology({{20, 40}, {40, 20}});

int main() { return static_cast<int>(t.node_count()); }
