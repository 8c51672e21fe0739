// Recording and ending windows allocate nothing once a fault_stats is built: every operator
// new in this test binary is counted (see ../support/count_allocations.hpp).
#include <doctest/doctest.h>

#include "../support/count_allocations.hpp"

#include <numaplace/stats/active_nodes.hpp>
#include <numaplace/stats/fault_stats.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

using namespace numaplace;

#if NUMAPLACE_COUNTS_ALLOCATIONS

using numaplace::test::allocations;

TEST_CASE("record, end_window, view and active-node counting allocate nothing") {
  fault_stats task(8), group(8);
  const std::size_t before = allocations.load();
  std::uint64_t sink = 0;
  for (std::uint64_t window = 0; window < 100; ++window) {
    for (node_index n = 0; n < 8; ++n) task.record(n, (n + 1) % 8, numaplace::access::shared, window + n, n == 3);
    sink += task.end_window(window * 1000, 100'000, &group).fault_types[0];
    sink += count_active_nodes(group.view()) + task.view().faults(2);
  }
  CHECK(allocations.load() == before);
  CHECK(sink > 0);
}

#endif  // NUMAPLACE_COUNTS_ALLOCATIONS

TEST_CASE("a mismatched group, or the stats themselves as group, is left alone") {
  fault_stats task = fault_stats::from_counts(std::array<std::uint64_t, 4>{4, 4, 4, 4});
  fault_stats other(3);
  task.end_window(0, 0, &other);
  CHECK(other.total() == 0);
  task.end_window(0, 0, &task);
  CHECK(task.total() == 4);  // 16 -> 8 -> 4: decayed twice, never doubled
}
