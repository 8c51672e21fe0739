// The scan of 6.4 onwards: which VMAs task_numa_work() passes by, worked by hand from the
// rules of 6.11 (as in 6.12 and 7.3).
#include <doctest/doctest.h>

#include <numaplace/policy/scan_pacing.hpp>
#include <numaplace/policy/vma_scan.hpp>

#include <cstdint>

using namespace numaplace;

namespace {

// What a walk by thread `pid` of an 8-thread process knows at `now_ms`, in pass `seq`.
vma_scan_context walk(std::uint32_t seq, double now_ms, std::uint32_t pid) {
  vma_scan_context c;
  c.scan_seq = seq;
  c.now_ms = now_ms;
  c.pid = pid;
  c.nr_threads = 8;
  return c;
}

// A VMA the scanner first met at time 0 in pass 0 (delay 1000 ms: its windows shift at 5000,
// 9000, ...), last scanned to its end in pass `prev`.
vma_scan_state old_vma(std::uint32_t prev) {
  vma_scan_state v;
  first_seen(v, walk(0, 0, 1));
  scan_completed(v, prev);
  return v;
}

}  // namespace

TEST_CASE("vma_scan: a thread's bit is hash_32(pid, 6)") {
  // pid * 0x61C88647 mod 2^32, top 6 bits: 1 -> 0x61C88647 >> 26 = 24; 2 -> 0xC3910C8E >> 26 = 48;
  // 3 -> 0x255992D5 >> 26 = 9.
  CHECK(access_pid_bit(1) == 24);
  CHECK(access_pid_bit(2) == 48);
  CHECK(access_pid_bit(3) == 9);
  CHECK(access_pid_bit(100) == 12);
}

TEST_CASE("vma_scan: a thread skips a VMA only other threads touched, unless forced, started or starved") {
  // Pass 5; thread 1 faulted in the VMA at 2000 ms; thread 2 walks at 3000 ms. The VMA is past
  // its first two passes (5 - 0), thread 2's bit is not set, no walk stopped inside it, and it
  // was scanned in pass 4 (5 <= 4 + 8 threads).
  vma_scan_state v = old_vma(4);
  record_access(v, 1);
  CHECK(vma_scan_verdict(v, walk(5, 3000, 1)) == vma_skip::none);  // thread 1 touched it
  CHECK(vma_scan_verdict(v, walk(5, 3000, 2)) == vma_skip::pid_inactive);
  // 6.1 would mark it: the forced walk (nothing else left) does too.
  vma_scan_context forced = walk(5, 3000, 2);
  forced.forced = true;
  CHECK(vma_scan_verdict(v, forced) == vma_skip::none);
  // b7a5b537c55c: an earlier walk stopped inside it, so any thread finishes it.
  vma_scan_context inside = walk(5, 3000, 2);
  inside.offset_inside = true;
  CHECK(vma_scan_verdict(v, inside) == vma_skip::none);
  // f22cde4371f3: unscanned for more passes than the process has threads (13 > 4 + 8).
  CHECK(vma_scan_verdict(v, walk(12, 3000, 2)) == vma_skip::pid_inactive);
  CHECK(vma_scan_verdict(v, walk(13, 3000, 2)) == vma_skip::none);
}

TEST_CASE("vma_scan: any thread scans a VMA in its own first two passes") {
  // 84db47ca7146: counted from the pass that first met the VMA (7), not the mm's first passes.
  vma_scan_state v;
  first_seen(v, walk(7, 0, 1));
  CHECK(vma_scan_verdict(v, walk(8, 2000, 2)) == vma_skip::none);          // 8 - 7 < 2
  CHECK(vma_scan_verdict(v, walk(9, 2000, 2)) == vma_skip::pid_inactive);  // 9 - 7 = 2
}

TEST_CASE("vma_scan: a new VMA waits the scan delay, except in the mm's first pass") {
  vma_scan_state v;
  first_seen(v, walk(5, 5000, 1));  // met at 5000 ms: scanned from 6000 ms
  CHECK(v.prev_scan_seq == 4);     // cannot read as scanned in this pass
  CHECK(vma_scan_verdict(v, walk(5, 5500, 1)) == vma_skip::scan_delay);
  CHECK(vma_scan_verdict(v, walk(5, 6000, 1)) == vma_skip::none);
  vma_scan_state first;
  first_seen(first, walk(0, 5000, 1));
  CHECK(vma_scan_verdict(first, walk(0, 5500, 1)) == vma_skip::none);
}

TEST_CASE("vma_scan: the access windows shift every four scan delays") {
  vma_scan_state v = old_vma(4);  // windows shift after 5000 ms, then 9000 ms
  record_access(v, 1);            // at 2000 ms: the newer window
  CHECK(vma_scan_verdict(v, walk(5, 4000, 1)) == vma_skip::none);
  CHECK(vma_scan_verdict(v, walk(5, 5001, 1)) == vma_skip::none);  // shifted: still in the older window
  CHECK(v.pids_active[1] == 0);
  CHECK(v.pids_reset_ms == 9000);
  CHECK(vma_scan_verdict(v, walk(5, 9001, 1)) == vma_skip::pid_inactive);  // shifted out
  // The shift happens even when the VMA is then skipped for its pass (2e2675db1906, 6.7).
  vma_scan_state done = old_vma(5);
  record_access(done, 1);
  CHECK(vma_scan_verdict(done, walk(5, 5001, 1)) == vma_skip::seq_completed);
  CHECK(done.pids_active[0] != 0);
  CHECK(done.pids_active[1] == 0);
}

TEST_CASE("vma_scan: a VMA scanned to its end waits for the next pass") {
  vma_scan_state v = old_vma(4);
  record_access(v, 1);
  scan_completed(v, 5);
  CHECK(vma_scan_verdict(v, walk(5, 3000, 1)) == vma_skip::seq_completed);
  CHECK(vma_scan_verdict(v, walk(6, 3000, 1)) == vma_skip::none);
}

TEST_CASE("vma_scan: a fault in a VMA the scanner has not met records nothing") {
  vma_scan_state v;
  record_access(v, 1);
  CHECK(v.pids_active[1] == 0);
}

TEST_CASE("vma_scan: the scan pace of 6.11 keeps v4.14's period and filters VMAs") {
  static_assert(scan_pacing<scan_pacing_rule::v6_11>::filters_vmas);
  static_assert(!scan_pacing<scan_pacing_rule::v4_14>::filters_vmas);
  constexpr scan_pacing<scan_pacing_rule::v6_11> now;
  constexpr scan_pacing<scan_pacing_rule::v4_14> before;
  CHECK(now.task_scan_max(1'000'000) == before.task_scan_max(1'000'000));
  CHECK(now.task_scan_start(1'000'000) == before.task_scan_start(1'000'000));
}
