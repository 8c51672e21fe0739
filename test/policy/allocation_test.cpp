// Decisions allocate nothing: every operator new in this test binary is counted, and the
// count must not move while decisions run (see ../support/count_allocations.hpp).
#include <doctest/doctest.h>

#include "../support/count_allocations.hpp"

#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#if NUMAPLACE_COUNTS_ALLOCATIONS

using numaplace::test::allocations;

using namespace numaplace;

TEST_CASE("no decision of any stack on any kind allocates") {
  for (const char* machine : {"seed001-4node", "amd-opteron-8node", "seed000-8node", "ibm-power9-gpu"}) {
    const auto t = presets::find(machine)->build();
    std::vector<std::uint64_t> task(2 * t.node_count()), group(2 * t.node_count()), cpu(2 * t.node_count());
    for (std::size_t i = 0; i < task.size(); ++i) {
      task[i] = (i * 7919) % 13;
      group[i] = (i * 104729) % 31;
      cpu[i] = (i * 15485863) % 17;
    }
    const decision_input in{{task, {}, 100}, {group, cpu, 400}};
    for_each_stack([&](std::string_view name, auto type) {
      using S = typename decltype(type)::type;
      CAPTURE(machine);
      CAPTURE(name);
      with_placement<S>(t, [&](const auto& pl) {
        const std::size_t before = allocations.load();
        std::uint64_t sink = pl.preferred_node(in);
        sink += pl.group_node(in, 0);
        sink += pl.weight(in.group, 1, t.max_distance());
        sink += static_cast<std::uint64_t>(pl.adjust_imbalance({3, 1, 4, 8, 2}));
        sink += pl.has_capacity({10, 1024, 1, 1}, {5, 1024, 0, 1}) ? 1 : 0;
        sink += pl.scan_all_nodes(in) ? 1 : 0;
        bool mask[8] = {};
        pl.interleave_nodes(in, std::span<bool>(mask, t.node_count()));
        sink += mask[0] ? 1 : 0;
        const std::size_t after = allocations.load();
        CHECK(after == before);
        CHECK(sink < ~std::uint64_t{0});
      });
    });
  }
}

#endif  // NUMAPLACE_COUNTS_ALLOCATIONS
