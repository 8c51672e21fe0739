// fault_stats: the decay of task_numa_placement worked by hand (spec 2.2).
#include <doctest/doctest.h>

#include <numaplace/stats/fault_stats.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

using namespace numaplace;

namespace {

constexpr auto shared = numaplace::access::shared;
constexpr auto priv = numaplace::access::private_access;

std::uint64_t sum(std::span<const std::uint64_t> s) { return std::accumulate(s.begin(), s.end(), std::uint64_t{0}); }

}  // namespace

static_assert(!std::is_copy_constructible_v<fault_stats>);
static_assert(std::is_nothrow_move_constructible_v<fault_stats>);

TEST_CASE("a new fault_stats is all zero") {
  const fault_stats s(4);
  CHECK(s.node_count() == 4);
  CHECK(s.memory().size() == 8);
  CHECK(s.cpu().size() == 8);
  CHECK(s.total() == 0);
  CHECK(sum(s.memory()) == 0);
  CHECK(sum(s.cpu()) == 0);
  const fault_view v = s.view();
  CHECK(v.node_count() == 4);
  CHECK(v.total == 0);
  for (node_index n = 0; n < 4; ++n) CHECK(v.faults(n) == 0);
}

TEST_CASE("record fills the buffers and locality, not the decayed counts") {
  fault_stats s(2);
  s.record(0, 0, priv, 5);                         // local
  s.record(1, 0, shared, 3);                       // remote: memory on 1, ran on 0
  s.record(1, 1, shared, 2, /*migration_failed=*/true);
  CHECK(s.buffered_memory(0, priv) == 5);
  CHECK(s.buffered_memory(1, shared) == 5);
  CHECK(s.buffered_cpu(0, priv) == 5);
  CHECK(s.buffered_cpu(0, shared) == 3);
  CHECK(s.buffered_cpu(1, shared) == 2);
  CHECK(s.locality(locality_slot::local) == 7);
  CHECK(s.locality(locality_slot::remote) == 3);
  CHECK(s.locality(locality_slot::migration_failed) == 2);
  CHECK(sum(s.memory()) == 0);
  CHECK(s.total() == 0);
}

TEST_CASE("memory counters halve with the half rounded down, then gain the buffer") {
  const std::array<std::uint64_t, 4> start{7, 0, 10, 1};
  fault_stats s = fault_stats::from_counts(start);
  CHECK(s.total() == 18);

  SUBCASE("7 -> 4, 10 -> 5, 1 -> 1: floor halving of the part taken away") {
    s.end_window(0, 0);
    CHECK(std::vector<std::uint64_t>(s.memory().begin(), s.memory().end()) == std::vector<std::uint64_t>{4, 0, 5, 1});
    CHECK(s.total() == 10);
  }
  SUBCASE("buffers fold in: MEM - MEM/2 + MEMBUF") {
    s.record(0, 1, shared, 6);  // 7 -> 4 + 6
    s.record(1, 1, priv, 9);    // 1 -> 1 + 9
    const fault_window w = s.end_window(0, 0);
    CHECK(std::vector<std::uint64_t>(s.memory().begin(), s.memory().end()) == std::vector<std::uint64_t>{10, 0, 5, 10});
    CHECK(s.total() == 25);
    CHECK(w.fault_types == std::array<std::uint64_t, 2>{6, 9});
    CHECK(w.locality == std::array<std::uint64_t, 3>{6, 9, 0});
    CHECK(s.last_window().fault_types == w.fault_types);
    // Drained: the next window starts from empty buffers and locality.
    CHECK(s.buffered_memory(0, shared) == 0);
    CHECK(s.locality(locality_slot::local) == 0);
    CHECK(s.locality(locality_slot::remote) == 0);
  }
  SUBCASE("without new faults a counter decays to 1, never to 0: x - x/2 keeps a lone fault") {
    for (int i = 0; i < 8; ++i) s.end_window(0, 0);  // 7 4 2 1 1..., 10 5 3 2 1 1...
    CHECK(std::vector<std::uint64_t>(s.memory().begin(), s.memory().end()) == std::vector<std::uint64_t>{1, 0, 1, 1});
    CHECK(s.total() == 3);
  }
}

TEST_CASE("CPU faults are weighted by the share of the period the task ran") {
  fault_stats s(2);
  // 10 local faults on node 0 and 30 remote ones (memory on 1, ran on 0): 40 this window.
  s.record(0, 0, priv, 10);
  s.record(1, 0, shared, 30);
  // Ran 1 ms of a 3 ms period: (1e6 << 16) / 3000001 = 21845; times CPUBUF, over 40 + 1.
  const std::uint64_t runtime = 1'000'000, period = 3'000'000;
  const std::uint64_t share = (runtime << 16) / (period + 1);
  CHECK(share == 21845);
  s.end_window(runtime, period);
  CHECK(s.cpu()[0] == 15984);  // node 0 shared: 21845 * 30 / 41
  CHECK(s.cpu()[1] == 5328);   // node 0 private: 21845 * 10 / 41
  CHECK(s.cpu()[2] == 0);
  CHECK(s.cpu()[3] == 0);
  // Memory is by the node the page is on.
  CHECK(s.memory()[1] == 10);
  CHECK(s.memory()[2] == 30);

  // Next window: 4 local faults on node 0, full period. CPU = CPU - CPU/2 + weight.
  s.record(0, 0, priv, 4);
  s.end_window(500, 499);  // (500 << 16) / 500 = 65536, times 4, over 5
  CHECK(s.cpu()[0] == 7992);  // 15984 - 15984 / 2
  CHECK(s.cpu()[1] == 55092);  // 5328 - 2664 + 65536 * 4 / 5
}

TEST_CASE("CPU weighting uses the window's locality, failed migrations excluded") {
  fault_stats s(1);
  s.record(0, 0, priv, 3, /*migration_failed=*/true);
  const fault_window w = s.end_window(1, 0);  // share = (1 << 16) / 1
  CHECK(w.locality == std::array<std::uint64_t, 3>{0, 3, 3});
  CHECK(s.cpu()[1] == 65536 * 3 / 4);
}

TEST_CASE("unsigned wrap-around as the kernel's ulong") {
  SUBCASE("runtime << 16 drops the high bits") {
    fault_stats s(1);
    s.record(0, 0, priv, 1);
    const std::uint64_t runtime = (std::uint64_t{1} << 50) + 3;
    s.end_window(runtime, 0);
    CHECK(s.cpu()[1] == (3u << 16) * 1 / 2);
  }
  SUBCASE("a period of 2^64 - 1 divides by 2^64: no weight, no crash") {
    fault_stats s(1);
    s.record(0, 0, priv, 1);
    s.end_window(1000, std::numeric_limits<std::uint64_t>::max());
    CHECK(s.cpu()[1] == 0);
    CHECK(s.memory()[1] == 1);
  }
  SUBCASE("the weight product wraps") {
    fault_stats s(1);
    s.record(0, 0, priv, std::uint64_t{1} << 40);
    s.end_window(std::uint64_t{1} << 40, 0);  // share 2^56, times 2^40 wraps to 0
    CHECK(s.cpu()[1] == 0);
  }
}

TEST_CASE("a group gains each member's differences") {
  fault_stats group(2);
  fault_stats a = fault_stats::from_counts(std::array<std::uint64_t, 4>{8, 0, 0, 3});
  fault_stats b(2);

  a.record(1, 1, shared, 5);
  b.record(0, 1, priv, 6);
  a.end_window(0, 0, &group);  // a: {4, 0, 5, 2}: diffs {-4, 0, +5, -1}
  b.end_window(0, 0, &group);  // b: {0, 6, 0, 0}: diffs {0, +6, 0, 0}

  CHECK(std::vector<std::uint64_t>(a.memory().begin(), a.memory().end()) == std::vector<std::uint64_t>{4, 0, 5, 2});
  CHECK(a.total() == 11);
  // The group started at 0 and only gets differences, so it goes "negative" (mod 2^64) where
  // a's pre-existing counts decayed: the kernel's group has the same arithmetic.
  const std::uint64_t minus4 = std::uint64_t{0} - 4, minus1 = std::uint64_t{0} - 1;
  CHECK(std::vector<std::uint64_t>(group.memory().begin(), group.memory().end()) ==
        std::vector<std::uint64_t>{minus4, 6, 5, minus1});
  CHECK(group.total() == 6);  // -4 + 6 + 5 - 1
  CHECK(group.total() == sum(group.memory()));

  SUBCASE("members that started at zero keep the group equal to their sum") {
    fault_stats g(2), x(2), y(2);
    for (int window = 0; window < 5; ++window) {
      x.record(0, 0, priv, 7 + window);
      y.record(1, 0, shared, 3 * window);
      y.record(1, 1, priv, 11);
      x.end_window(100, 200, &g);
      y.end_window(300, 200, &g);
      for (std::size_t i = 0; i < 4; ++i) {
        CHECK(g.memory()[i] == x.memory()[i] + y.memory()[i]);
        CHECK(g.cpu()[i] == x.cpu()[i] + y.cpu()[i]);
      }
      CHECK(g.total() == x.total() + y.total());
    }
  }
}

TEST_CASE("total equals the sum of the memory slots across windows") {
  fault_stats s(3);
  for (std::uint64_t window = 1; window <= 20; ++window) {
    s.record(static_cast<node_index>(window % 3), 0, window % 2 ? shared : priv, window * 37);
    s.record(2, 1, priv, window);
    s.end_window(window * 1000, 5000);
    CHECK(s.total() == sum(s.memory()));
    CHECK(s.view().total == s.total());
  }
}

TEST_CASE("zero faults: a window with nothing recorded") {
  fault_stats s(2);
  const fault_window w = s.end_window(123456, 789);
  CHECK(w.fault_types == std::array<std::uint64_t, 2>{0, 0});
  CHECK(w.locality == std::array<std::uint64_t, 3>{0, 0, 0});
  CHECK(sum(s.memory()) == 0);
  CHECK(sum(s.cpu()) == 0);
  CHECK(s.total() == 0);
  CHECK(s.view().faults(0) == 0);
}

TEST_CASE("view points straight at the counters") {
  fault_stats s = fault_stats::from_counts(std::array<std::uint64_t, 4>{1, 2, 3, 4}, std::array<std::uint64_t, 4>{5, 6, 7, 8});
  const fault_view v = s.view();
  CHECK(v.memory.data() == s.memory().data());
  CHECK(v.cpu.data() == s.cpu().data());
  CHECK(v.faults(0) == 3);
  CHECK(v.faults(1) == 7);
  CHECK(v.cpu_faults(0) == 11);
  CHECK(v.cpu_faults(1) == 15);
  CHECK(v.total == 10);
}

TEST_CASE("from_counts checks its pairs") {
  CHECK_THROWS_AS(fault_stats::from_counts(std::array<std::uint64_t, 3>{1, 2, 3}), std::invalid_argument);
  CHECK_THROWS_AS(fault_stats::from_counts(std::array<std::uint64_t, 4>{1, 2, 3, 4}, std::array<std::uint64_t, 2>{1, 2}),
                  std::invalid_argument);
  const fault_stats s = fault_stats::from_counts(std::array<std::uint64_t, 4>{1, 2, 3, 4});
  CHECK(sum(s.cpu()) == 0);
}
