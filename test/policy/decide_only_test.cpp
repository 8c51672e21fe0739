// decide.hpp alone is enough for a decision: a machine, a task's faults, a named stack's and a
// composed stack's preferred node. (Its header count against numaplace.hpp: scripts/compile-cost.)

#include <numaplace/decide.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

TEST_CASE("decide.hpp: a task's preferred node from its faults, with decide.hpp only") {
  const numaplace::dynamic_topology machine({{10, 20, 20, 20}, {20, 10, 20, 20}, {20, 20, 10, 20}, {20, 20, 20, 10}});
  // Two counters per node (shared, private): most of them on node 2.
  const std::vector<std::uint64_t> faults = {0, 1, 0, 2, 0, 30, 0, 4};
  const numaplace::decision_input task{{faults, {}, 100}, {}};
  numaplace::node_index chosen = 99;
  CHECK(numaplace::with_named_placement("linux-modern", machine, [&](const auto& pl) { chosen = pl.preferred_node(task); }));
  CHECK(chosen == 2);
  using modern = numaplace::stacks::linux_modern;
  CHECK(numaplace::with_placement<modern>(machine, [&](const auto& pl) { return pl.preferred_node(task); }) == 2);
}
