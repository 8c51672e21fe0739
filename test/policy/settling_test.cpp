// What a task's preferred node becomes after task_numa_migrate, per kernel (spec 5).
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {
// A group active on nodes 1 and 2 (CPU faults 30 and 20 against a maximum of 30: both more
// than a third), not on 0 or 3.
const std::vector<std::uint64_t> memory{0, 5, 0, 5, 0, 5, 0, 5};
const std::vector<std::uint64_t> cpu{0, 1, 0, 30, 0, 20, 0, 9};
const decision_input grouped{{memory, {}, 20}, {memory, cpu, 20}};
const decision_input alone{{memory, {}, 20}, {}};

template <settle_rule R>
node_index settle(const decision_input& in, migrate_outcome m) {
  const auto t = generate::fully_connected(4);
  using S = stack<kernel_era::modern, fault_scoring<>, preferred_settling<R>>;
  return with_placement<S>(t, [&](const auto& pl) { return pl.settle_preferred(in, m); });
}
}  // namespace

TEST_CASE("v3.13: after a move, the last evaluated node, active or not, grouped or not") {
  CHECK(settle<settle_rule::v3_13>(grouped, {3, 0, 0, 0}) == 0);        // node 0 is not active: v3.15 keeps 3
  CHECK(settle<settle_rule::v3_13>(grouped, {3, 0, 2, no_node}) == 3);  // no move: unchanged
  CHECK(settle<settle_rule::v3_13>(alone, {3, 0, 2, 2}) == 2);          // no group: v3.15 keeps 3
}

TEST_CASE("v3.15: only after a move, and only onto an active node") {
  CHECK(settle<settle_rule::v3_15>(grouped, {3, 0, 2, 2}) == 2);
  CHECK(settle<settle_rule::v3_15>(grouped, {3, 0, 2, no_node}) == 3);  // no move: unchanged
  CHECK(settle<settle_rule::v3_15>(grouped, {3, 0, 0, 0}) == 3);        // node 0 is not active
}

TEST_CASE("v4.2 (seed 001's fix): without a move, judged on the source node") {
  CHECK(settle<settle_rule::v4_2>(grouped, {3, 1, 2, no_node}) == 2);  // source 1 is active
  CHECK(settle<settle_rule::v4_2>(grouped, {3, 0, 2, no_node}) == 3);  // source 0 is not
  CHECK(settle<settle_rule::v4_2>(grouped, {3, 0, 2, 2}) == 2);
}

TEST_CASE("v4.6: the last evaluated node when the group spans active nodes") {
  CHECK(settle<settle_rule::v4_6>(grouped, {3, 0, 1, no_node}) == 1);
  CHECK(settle<settle_rule::v4_6>(grouped, {3, 0, 3, 3}) == 3);
}

TEST_CASE("v4.19: where the task went, else where it is; the default of stacks naming none") {
  CHECK(settle<settle_rule::v4_19>(grouped, {3, 0, 2, 1}) == 1);
  CHECK(settle<settle_rule::v4_19>(grouped, {3, 0, 2, no_node}) == 0);
  const auto t = generate::fully_connected(4);
  CHECK(with_placement<stacks::linux_modern>(t, [&](const auto& pl) { return pl.settle_preferred(grouped, {3, 0, 2, no_node}); }) == 0);
}

TEST_CASE("tasks without a group keep their preferred node") {
  CHECK(settle<settle_rule::v4_19>(alone, {3, 0, 2, 1}) == 3);
  CHECK(settle<settle_rule::v3_15>(alone, {3, 0, 2, 2}) == 3);
}
