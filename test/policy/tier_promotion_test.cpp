// Hot-page promotion in NUMA balancing's tiering mode (should_numa_migrate_memory, 6.0..7.3),
// worked by hand.
#include <doctest/doctest.h>

#include <numaplace/policy/tier_promotion.hpp>

#include <cstdint>

using namespace numaplace;

namespace {
promotion_fault fault_at(unsigned now_ms, unsigned scanned_ms, std::uint64_t pages = 1) {
  promotion_fault f;
  f.now_ms = now_ms;
  f.scanned_ms = scanned_ms;
  f.pages = pages;
  return f;
}
}  // namespace

TEST_CASE("tier_promotion: a page touched within the hot threshold is promoted, a colder one is not") {
  promotion_node_state n;
  CHECK(should_promote(n, fault_at(10'500, 10'000)) == promotion_verdict::promote);   // 500 ms < 1000
  CHECK(should_promote(n, fault_at(11'000, 10'000)) == promotion_verdict::too_cold);  // 1000 ms: not under
  CHECK(n.candidates == 1);  // only the hot one counts as a candidate
}

TEST_CASE("tier_promotion: plenty of free memory promotes any page and resets the threshold") {
  promotion_node_state n;
  n.threshold_ms = 250;
  promotion_fault f = fault_at(50'000, 10'000);  // 40 s cold
  f.plenty_free = true;
  CHECK(should_promote(n, f) == promotion_verdict::promote_free);
  CHECK(n.threshold_ms == 0);
  CHECK(n.candidates == 0);
}

TEST_CASE("tier_promotion: the rate limit stops promotion for the rest of the second") {
  // 1 MB/s: 256 pages of 4 KiB a second.
  promotion_tunables t;
  t.rate_limit_mbps = 1;
  promotion_node_state n;
  n.rate_start_ms = 5000;
  n.threshold_start_ms = 5000;
  CHECK(should_promote(n, fault_at(5100, 5000, 255), t) == promotion_verdict::promote);       // 255 < 256
  CHECK(should_promote(n, fault_at(5200, 5100, 1), t) == promotion_verdict::rate_limited);    // 256 reached
  CHECK(should_promote(n, fault_at(6000, 5900, 1), t) == promotion_verdict::rate_limited);    // 1000 ms: same second
  CHECK(should_promote(n, fault_at(6001, 5900, 1), t) == promotion_verdict::promote);         // a new second
  CHECK(n.rate_start_ms == 6001);
}

TEST_CASE("tier_promotion: the threshold steps down when too many candidates came, up when too few") {
  // Rate 1 MB/s = 256 pages a second; a 10 s period expects 2560 candidates (+-10 %). Step:
  // 1000 * 2 / 16 = 125 ms.
  promotion_tunables t;
  t.rate_limit_mbps = 1;
  t.threshold_period_ms = 10'000;
  promotion_node_state n;
  n.candidates = 3000;  // 3000 came in the period: above 2816
  adjust_threshold(n, 10'001, 256, t);
  CHECK(n.threshold_ms == 875);
  CHECK(n.threshold_candidates == 3000);
  adjust_threshold(n, 15'000, 256, t);  // within the period: nothing
  CHECK(n.threshold_ms == 875);
  n.candidates = 3000 + 2000;  // 2000 came: below 2304
  adjust_threshold(n, 20'002, 256, t);
  CHECK(n.threshold_ms == 1000);
  // Bounds: never below one step, never above twice the default.
  n.threshold_ms = 125;
  n.candidates += 10'000;
  adjust_threshold(n, 30'003, 256, t);
  CHECK(n.threshold_ms == 125);
  n.threshold_ms = 2000;
  adjust_threshold(n, 40'004, 256, t);  // none came
  CHECK(n.threshold_ms == 2000);
  // A fault after the period applies the new threshold before judging its own latency.
  n.threshold_ms = 0;
  n.candidates = n.threshold_candidates + 5000;  // too many: 1000 -> 875
  CHECK(should_promote(n, fault_at(50'005, 49'100), t) == promotion_verdict::too_cold);  // 905 >= 875
}

TEST_CASE("tier_promotion: the latency wraps with the page's 21-bit access time") {
  // Marked at 2^21 - 100 ms, touched 300 ms later, past the stamp's wrap.
  CHECK(hint_fault_latency((1u << 21) + 200, (1u << 21) - 100) == 300);
  CHECK(hint_fault_latency(700, 200) == 500);
}
