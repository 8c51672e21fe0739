// expect-error: must be square
// Three rows of two columns.
#include <numaplace/topology/static_topology.hpp>

constexpr auto bad = numaplace::make_static_topology({{10, 20}, {20, 10}, {20, 20}});
