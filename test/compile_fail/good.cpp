// expect: compiles
// The harness's control: a well-formed static topology, with sparse ids, must compile, or every
// "expected failure" above could be failing for an unrelated reason (a wrong include path, say).
#include <numaplace/topology/static_topology.hpp>

constexpr numaplace::static_topology<4> good{
    {{{10, 16, 16, 22}, {16, 10, 22, 16}, {16, 22, 10, 16}, {22, 16, 16, 10}}}, {0, 1, 4, 5}};
static_assert(good.kind() == numaplace::numa_kind::glueless_mesh);
static_assert(good.max_distance() == 22);
static_assert(good.id_of(2) == 4);

constexpr auto also_good = numaplace::make_static_topology({{10, 20}, {20, 10}});
static_assert(also_good.kind() == numaplace::numa_kind::direct);

int main() { return good.node_count() == 4 && also_good.node_count() == 2 ? 0 : 1; }
