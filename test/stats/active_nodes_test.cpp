// Active nodes of a numa_group, v4.6+ (spec 2.4): CPU faults above a third of the busiest node's.
#include <doctest/doctest.h>

#include <numaplace/stats/active_nodes.hpp>
#include <numaplace/stats/fault_stats.hpp>

#include <array>
#include <cstdint>

using namespace numaplace;

namespace {

constexpr std::array<std::uint64_t, 8> no_memory{};

// CPU faults per node {90, 31, 30, 0} split over shared/private.
constexpr std::array<std::uint64_t, 8> spread_cpu{40, 50, 31, 0, 15, 15, 0, 0};
constexpr fault_view spread_view{no_memory, spread_cpu, 0};

static_assert(max_cpu_faults(spread_view) == 90);
static_assert(count_active_nodes(spread_view) == 2);  // 90 and 31 (31 * 3 = 93 > 90); 30 * 3 = 90 is not

}  // namespace

TEST_CASE("a node is active when its CPU faults times 3 exceed the busiest node's") {
  CHECK(is_active_node(spread_view, 0));
  CHECK(is_active_node(spread_view, 1));
  CHECK_FALSE(is_active_node(spread_view, 2));  // exactly a third is not enough
  CHECK_FALSE(is_active_node(spread_view, 3));
  CHECK(count_active_nodes(spread_view) == 2);
  CHECK(is_active_node(spread_view, 2, 89));  // with the maximum the kernel cached
}

TEST_CASE("one busy node: one active node") {
  const fault_stats s = fault_stats::from_counts(std::array<std::uint64_t, 4>{5, 5, 0, 0}, std::array<std::uint64_t, 4>{0, 100, 1, 2});
  CHECK(count_active_nodes(s.view()) == 1);
  CHECK(is_active_node(s.view(), 0));
  CHECK_FALSE(is_active_node(s.view(), 1));
}

TEST_CASE("no CPU faults: no active node") {
  const fault_view no_cpu{no_memory, {}, 0};
  CHECK(max_cpu_faults(no_cpu) == 0);
  CHECK(count_active_nodes(no_cpu) == 0);
  const fault_stats s(3);
  CHECK(count_active_nodes(s.view()) == 0);
}

TEST_CASE("every node evenly busy: all active") {
  const std::array<std::uint64_t, 8> even{1, 1, 2, 0, 0, 2, 1, 1};
  CHECK(count_active_nodes(fault_view{no_memory, even, 0}) == 4);
}
