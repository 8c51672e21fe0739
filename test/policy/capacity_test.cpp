// numa_has_capacity (spec 5.1): v4.1 refuses any busier destination, v4.2 (seed 001's fix)
// allows imbalance_pct of slack; both refuse a full destination while the source has room.
#include <doctest/doctest.h>

#include <numaplace/policy/capacity_check.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

using namespace numaplace;

namespace {

using v4_1 = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>, capacity_check<capacity_rule::v4_1>>;
using v4_2 = stacks::linux_4_2;

template <class Stack>
bool has_capacity(const node_load& src, const node_load& dst) {
  static const dynamic_topology t = presets::find("seed001-4node")->build();
  return with_placement<Stack>(t, [&](const auto& pl) { return pl.has_capacity(src, dst); });
}

constexpr node_load node(std::uint64_t load, std::uint64_t capacity, unsigned running, unsigned cpus) {
  return {load, capacity, running, cpus};
}

using check = capacity_check<capacity_rule::v4_2>;

}  // namespace

TEST_CASE("free capacity: fewer tasks than the node's task capacity") {
  // 4 full CPUs: smt = ceil(4096 / 4096) = 1, capacity min(4 / 1, round(4096 / 1024)) = 4.
  CHECK(check::has_free_capacity(node(0, 4096, 3, 4)));
  CHECK_FALSE(check::has_free_capacity(node(0, 4096, 4, 4)));
  // 4 SMT2 siblings of capacity 589: 2356 in all; smt = ceil(4096 / 2356) = 2,
  // capacity min(4 / 2, round(2356 / 1024)) = 2: two tasks fill the node.
  CHECK(check::has_free_capacity(node(0, 2356, 1, 4)));
  CHECK_FALSE(check::has_free_capacity(node(0, 2356, 2, 4)));
  // 8 threads worth 1536: smt = ceil(8192 / 1536) = 6, capacity min(8 / 6, round(1.5)) = 1.
  CHECK(check::has_free_capacity(node(0, 1536, 0, 8)));
  CHECK_FALSE(check::has_free_capacity(node(0, 1536, 1, 8)));
  // Capacity rounds to the closest task: 1535 is 1 task (1536 would be 2), 2559 is 2.
  CHECK_FALSE(check::has_free_capacity(node(0, 1535, 1, 1)));
  CHECK(check::has_free_capacity(node(0, 2048 + 511, 1, 2)));
  CHECK_FALSE(check::has_free_capacity(node(0, 0, 0, 4)));  // no capacity at all
  CHECK_FALSE(check::has_free_capacity(node(0, 1024, 0, 0)));
}

TEST_CASE("v4.1 refuses a destination even marginally busier; v4.2 allows 12 %") {
  const node_load src = node(1000, 4096, 4, 4);
  const node_load busier_by_5 = node(1050, 4096, 4, 4);
  const node_load busier_by_15 = node(1150, 4096, 4, 4);
  const node_load lighter = node(900, 4096, 4, 4);
  CHECK_FALSE(has_capacity<v4_1>(src, busier_by_5));
  CHECK(has_capacity<v4_2>(src, busier_by_5));        // 1000 * 112 > 1050 * 100
  CHECK_FALSE(has_capacity<v4_2>(src, busier_by_15));  // 112000 < 115000
  CHECK(has_capacity<v4_1>(src, lighter));
  CHECK(has_capacity<v4_2>(src, lighter));
  CHECK_FALSE(has_capacity<v4_1>(src, src));  // equal load: strictly less needed
  CHECK(has_capacity<v4_2>(src, src));
}

TEST_CASE("loads are compared per capacity") {
  // Source 2000 on 4096, destination 1000 on 2048: the same load per capacity.
  const node_load src = node(2000, 4096, 4, 4);
  const node_load dst = node(1000, 2048, 2, 2);
  CHECK_FALSE(has_capacity<v4_1>(src, dst));
  CHECK(has_capacity<v4_2>(src, dst));
  CHECK_FALSE(has_capacity<v4_2>(src, node(1200, 2048, 2, 2)));  // 2000*2048*112 < 1200*4096*100
}

TEST_CASE("a source with room never sends to a full destination") {
  const node_load src = node(5000, 4096, 2, 4);  // free: 2 of 4
  const node_load full = node(100, 4096, 4, 4);  // much lighter, but no free capacity
  CHECK_FALSE(has_capacity<v4_1>(src, full));
  CHECK_FALSE(has_capacity<v4_2>(src, full));
  // A full source may still move to a full but lighter destination.
  CHECK(has_capacity<v4_1>(node(5000, 4096, 4, 4), full));
}

TEST_CASE("imbalance_pct is a setting; 100 behaves as v4.1") {
  check strict;
  strict.imbalance_pct = 100;
  CHECK_FALSE(strict.has_capacity(node(1000, 4096, 4, 4), node(1050, 4096, 4, 4)));
  CHECK_FALSE(strict.has_capacity(node(1000, 4096, 4, 4), node(1000, 4096, 4, 4)));
  CHECK(check{}.imbalance_pct == 112);
}

TEST_CASE("stacks without a capacity policy (v4.19+ removed it) always agree") {
  CHECK(has_capacity<stacks::linux_modern>(node(1000, 4096, 2, 4), node(100, 4096, 4, 4)));
  CHECK(has_capacity<stacks::vanilla>(node(0, 4096, 4, 4), node(5000, 4096, 4, 4)));
}
