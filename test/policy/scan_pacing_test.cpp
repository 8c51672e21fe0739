// The NUMA scan period per kernel rule: its bounds, its start, its adaptation, the retry interval.
#include <doctest/doctest.h>

#include <numaplace/policy/scan_pacing.hpp>

#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

// 256 MB scan windows of 4 KiB pages: 65536 pages each.
constexpr std::uint64_t window = 65536;

fault_window win(std::uint64_t shared, std::uint64_t priv, std::uint64_t local, std::uint64_t remote,
                 std::uint64_t failed = 0) {
  fault_window w;
  w.fault_types = {shared, priv};
  w.locality = {remote, local, failed};
  return w;
}

// period 1000 ms: one slot is DIV_ROUND_UP(1000, 10) = 100 ms; bounds 100..3750, max 3750.
template <scan_pacing_rule R>
unsigned after(const fault_window& w, unsigned period = 1000) {
  return scan_pacing<R>{}.update_task_scan_period(period, 3750, 100, 3750, w);
}

}  // namespace

TEST_CASE("scan_pacing: task_nr_scan_windows rounds the RSS up to whole 256 MB windows") {
  CHECK(task_nr_scan_windows(0) == 1);           // no RSS counts as one window
  CHECK(task_nr_scan_windows(window) == 1);
  CHECK(task_nr_scan_windows(window + 1) == 2);
  // 1,000,000 pages: round_up to 1,048,576 = 16 windows.
  CHECK(task_nr_scan_windows(1'000'000) == 16);
}

TEST_CASE("scan_pacing: task_scan_min and task_scan_max scale with the RSS, floored by MAX_SCAN_WINDOW") {
  // floor: 2560 / 256 = 10 windows a second, so 1000 / 10 = 100 ms.
  CHECK(task_scan_min(window) == 1000);        // 1000 / 1
  CHECK(task_scan_min(4 * window) == 250);     // 1000 / 4
  CHECK(task_scan_min(1'000'000) == 100);      // 1000 / 16 = 62, floored to 100
  constexpr scan_pacing<scan_pacing_rule::v3_13> s;
  CHECK(s.task_scan_max(1'000'000) == 3750);   // 60000 / 16
  CHECK(s.task_scan_max(4 * window) == 15000); // 60000 / 4
  // A huge maximum scan size: one window a second at most, floor 1000 ms.
  scan_tunables big;
  big.size_mb = 4096;
  CHECK(task_scan_min(1, big) == 1000);
  // v3.8's defaults are what 598f0ec0 replaced.
  CHECK(scan_tunables_v3_8.period_min_ms == 100);
  CHECK(scan_tunables{}.period_max_ms == 60000);
}

TEST_CASE("scan_pacing: v4.14 scales start and maximum with the group's tasks and shared share") {
  // Group of 4 tasks; memory (shared, private) per node: (30, 10), (10, 0): shared 40, private 10.
  const std::vector<std::uint64_t> memory{30, 10, 10, 0};
  const scan_group g{{memory, {}, 50}, 4};
  constexpr scan_pacing<scan_pacing_rule::v4_14> s;
  // max: 3750 * 4 * (40 + 1) / (10 + 40 + 1) = 615000 / 51 = 12058.
  CHECK(s.task_scan_max(1'000'000, {}, g) == 12058);
  // start: 100 * 4 * 41 / 51 = 16400 / 51 = 321.
  CHECK(s.task_scan_start(1'000'000, {}, g) == 321);
  // Before v4.14 the group changes nothing: max 3750, start = task_scan_min = 100.
  constexpr scan_pacing<scan_pacing_rule::v4_2> old;
  CHECK(old.task_scan_max(1'000'000, {}, g) == 3750);
  CHECK(old.task_scan_start(1'000'000, {}, g) == 100);
  // A private group scales below the unscaled bounds, which then win:
  // 3750 * 2 * 1 / 100 = 75 < 3750; 100 * 2 * 1 / 100 = 2 < 100.
  const std::vector<std::uint64_t> priv{0, 99};
  const scan_group p{{priv, {}, 99}, 2};
  CHECK(s.task_scan_max(1'000'000, {}, p) == 3750);
  CHECK(s.task_scan_start(1'000'000, {}, p) == 100);
  // Without a group: unscaled.
  CHECK(s.task_scan_max(1'000'000) == 3750);
}

TEST_CASE("scan_pacing: v3.13 adapts on the local share, speed-ups scaled by the private share") {
  constexpr auto R = scan_pacing_rule::v3_13;
  // local 8 of 10: ratio 8 >= 3, slower by 8 - 3 = 5 slots: 1000 + 500.
  CHECK(after<R>(win(5, 5, 8, 2)) == 1500);
  // ratio exactly 3: 0 slots becomes 1: 1000 + 100.
  CHECK(after<R>(win(5, 5, 3, 7)) == 1100);
  // ratio 1: faster by 2 slots = -200, times the private share ceil(5 * 10 / 10) = 5 tenths: -100.
  CHECK(after<R>(win(5, 5, 1, 9)) == 900);
  // Mostly shared (private 1 of 10): -200 * 1 / 10 = -20.
  CHECK(after<R>(win(9, 1, 1, 9)) == 980);
  // No local and no shared faults: double, up to the maximum.
  CHECK(after<R>(win(0, 5, 0, 5)) == 2000);
  CHECK(after<R>(win(0, 5, 0, 5), 3000) == 3750);
  // Failed migrations do not slow v3.13 down.
  CHECK(after<R>(win(5, 5, 8, 2, 3)) == 1500);
}

TEST_CASE("scan_pacing: v3.17 raises the threshold to 7 and divides the private share by private + shared + 1") {
  constexpr auto R = scan_pacing_rule::v3_17;
  // local 8 of 10: 8 >= 7, slower by 1 slot.
  CHECK(after<R>(win(5, 5, 8, 2)) == 1100);
  // local 5: faster by 7 - 5 = 2 slots = -200; private share ceil(50 / 11) = 5: -200 * 5 / 10 = -100.
  CHECK(after<R>(win(5, 5, 5, 5)) == 900);
  // All private, local 1: -600; share ceil(100 / 11) = 10 (v3.13 would also give 10): -600.
  CHECK(after<R>(win(0, 10, 1, 9)) == 400);
  // Private 1 of 10, local 5: -200; ceil(10 / 11) = 1: -20 (v3.13: ceil(10 / 10) = 1, also -20).
  CHECK(after<R>(win(9, 1, 5, 5)) == 980);
  // Where the + 1 shows: private 2, shared 18, local 0 of 10: -700; ceil(20 / 21) = 1: -70;
  // v3.13 (threshold 3): -300 * ceil(20 / 20) = -300 * 1 / 10 = -30.
  CHECK(after<R>(win(18, 2, 0, 10)) == 930);
  CHECK(after<scan_pacing_rule::v3_13>(win(18, 2, 0, 10)) == 970);
  // The + 1 weighs most on small windows: private 1, shared 0, local 1 of 10: -600 times
  // ceil(10 / 2) = 5 tenths = -300; v3.13's divisor would give ceil(10 / 1) = 10, -600.
  CHECK(after<R>(win(0, 1, 1, 9)) == 700);
  // Failed migrations do not slow v3.17 down; v4.0 doubles.
  CHECK(after<R>(win(5, 5, 8, 2, 1)) == 1100);
  CHECK(after<scan_pacing_rule::v4_0>(win(5, 5, 8, 2, 1)) == 2000);
  // v4.0 otherwise is v3.17.
  CHECK(after<scan_pacing_rule::v4_0>(win(18, 2, 0, 10)) == 930);
}

TEST_CASE("scan_pacing: v4.2 slows when private or local faults dominate, else speeds up") {
  constexpr auto R = scan_pacing_rule::v4_2;
  // private 8 of 10: slower by 8 - 7 = 1 slot even though locality is poor.
  CHECK(after<R>(win(2, 8, 1, 9)) == 1100);
  // private 2 but local 9: slower by 9 - 7 = 2 slots.
  CHECK(after<R>(win(8, 2, 9, 1)) == 1200);
  // private 5, local 3: faster by 7 - max(3, 5) = 2 slots.
  CHECK(after<R>(win(5, 5, 3, 7)) == 800);
  // private exactly 7: 0 slots becomes 1.
  CHECK(after<R>(win(3, 7, 0, 10)) == 1100);
  // Any failed migration doubles the period.
  CHECK(after<R>(win(5, 5, 8, 2, 1)) == 2000);
  // The same window as v3.13's 1500 case: ps 5 < 7, lr 8 >= 7: slower by 1 slot.
  CHECK(after<R>(win(5, 5, 8, 2)) == 1100);
}

TEST_CASE("scan_pacing: the update clamps to the bounds, with the kernel's unsigned wrap") {
  constexpr auto R = scan_pacing_rule::v4_2;
  // period 110: slot 11, all shared and remote: -7 * 11 = -77, 33 clamps up to 100.
  CHECK(after<R>(win(10, 0, 0, 10), 110) == 100);
  // period 3700, all private: +3 * 370 = 1110, 4810 clamps to 3750.
  CHECK(after<R>(win(0, 10, 1, 9), 3700) == 3750);
  // period 5 (below the minimum, e.g. a small scan delay): slot 1, diff -7; 5 - 7 wraps in
  // unsigned arithmetic and clamps to the maximum, as the kernel's clamp() would.
  CHECK(after<R>(win(10, 0, 0, 10), 5) == 3750);
}

TEST_CASE("scan_pacing: numa_migrate_preferred's retry interval") {
  CHECK(scan_pacing<scan_pacing_rule::v3_13>{}.migrate_retry_jiffies(1000) == 1000);  // HZ
  CHECK(scan_pacing<scan_pacing_rule::v3_13>{}.migrate_retry_jiffies(100, 250) == 250);
  constexpr scan_pacing<scan_pacing_rule::v3_17> s;
  CHECK(s.migrate_retry_jiffies(1000) == 62);          // 1000 jiffies / 16
  CHECK(s.migrate_retry_jiffies(60000) == 1000);       // 3750 capped at HZ
  CHECK(s.migrate_retry_jiffies(1000, 250) == 15);     // 250 jiffies / 16
  CHECK(scan_pacing<scan_pacing_rule::v4_14>{}.migrate_retry_jiffies(1000) == 62);
}

TEST_CASE("scan_pacing: NUMA_PERIOD_THRESHOLD per rule") {
  CHECK(scan_pacing<scan_pacing_rule::v3_13>::threshold == 3);
  CHECK(scan_pacing<scan_pacing_rule::v3_17>::threshold == 7);
  CHECK(scan_pacing<scan_pacing_rule::v4_0>::threshold == 7);
  CHECK(scan_pacing<scan_pacing_rule::v4_2>::threshold == 7);
  CHECK(scan_pacing<scan_pacing_rule::v4_14>::threshold == 7);
}

TEST_CASE("scan_pacing: backs_off says when the mm's next scan is put off too") {
  fault_window empty;
  CHECK(scan_pacing<scan_pacing_rule::v4_14>{}.backs_off(empty));
  fault_window shared_remote;
  shared_remote.fault_types = {5, 0};
  shared_remote.locality = {5, 0, 0};
  CHECK_FALSE(scan_pacing<scan_pacing_rule::v4_14>{}.backs_off(shared_remote));
  fault_window failed = shared_remote;
  failed.locality[2] = 1;  // a failed migration: from v4.0 on, scan slower at once
  CHECK(scan_pacing<scan_pacing_rule::v4_0>{}.backs_off(failed));
  CHECK_FALSE(scan_pacing<scan_pacing_rule::v3_17>{}.backs_off(failed));
  // Private-only faults count neither as shared nor local when remote: back off.
  fault_window private_remote;
  private_remote.fault_types = {0, 5};
  private_remote.locality = {5, 0, 0};
  CHECK(scan_pacing<scan_pacing_rule::v4_14>{}.backs_off(private_remote));
}

TEST_CASE("scan_pacing: v3.8 paces each 256 MB step by faults, 100 ms to 5 s, and resets once a minute") {
  constexpr scan_pacing<scan_pacing_rule::v3_8> pace{};
  constexpr scan_tunables t = pace.tunables;
  CHECK(t.period_min_ms == 100);
  CHECK(t.period_max_ms == 5000);
  CHECK(pace.period_reset_ms == 60000);
  // The period is per scan_size step, so the RSS does not scale it (v3.13's task_scan_min does).
  for (const std::uint64_t rss : {std::uint64_t{0}, window, 100 * window}) {
    CHECK(pace.task_scan_start(rss, t) == 100);
    CHECK(pace.task_scan_max(rss, t) == 5000);
  }
  // Each fault that migrates nothing adds 10 ms, up to the maximum; a migrating one adds nothing.
  CHECK(pace.after_fault(100, false, t) == 110);
  CHECK(pace.after_fault(100, true, t) == 100);
  CHECK(pace.after_fault(4995, false, t) == 5000);
  CHECK(pace.after_fault(5000, false, t) == 5000);
  unsigned period = 100;
  for (int i = 0; i < 490; ++i) period = pace.after_fault(period, false, t);
  CHECK(period == 5000);  // 490 placed huge pages (980 MB) slow the scan to its slowest
  // No fault windows adapt it, and nothing backs off.
  CHECK(pace.update_task_scan_period(700, 5000, 100, 5000, win(0, 0, 0, 0)) == 700);
  CHECK(pace.update_task_scan_period(700, 5000, 100, 5000, win(0, 10, 0, 10, 5)) == 700);
  CHECK_FALSE(pace.backs_off(win(0, 0, 0, 0)));
  CHECK(pace.waits_for_new_node);
  CHECK(pace.skips_saturated_node);
  // Later rules leave the period to their windows, and have neither v3.8 mechanism.
  constexpr scan_pacing<scan_pacing_rule::v3_13> later{};
  CHECK(later.after_fault(100, false) == 100);
  CHECK(later.period_reset_ms == 0);
  CHECK_FALSE(later.waits_for_new_node);
  CHECK_FALSE(later.skips_saturated_node);
  CHECK(later.tunables.period_min_ms == 1000);
}
