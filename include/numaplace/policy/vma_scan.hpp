#pragma once
// vma_scan: which of a process's mappings (VMAs) task_numa_work() marks, since Linux 6.4.
//
// Up to 6.3 the scanner walked the whole address space from the mm's offset, every suitable
// VMA alike. From 6.4 each VMA keeps its own state (vma_numab_state) and the walk skips one:
//   - that is new, for a scan delay after the scanner first saw it (ef6a22b70f6d), except in
//     the mm's first pass;
//   - that this pass has scanned already (f169c62ff7cd, 6.7);
//   - that the scanning thread has not touched lately (fc137c0ddab2, 6.4): every hinting fault
//     sets its thread's bit, hash_32(pid, 6), in the VMA's newer window of two, which shift
//     every 4 scan delays (20f586486b87, d46031f40e0f); vma_is_accessed() lets a VMA through
//     anyway in its first two passes (per VMA since 84db47ca7146, 6.8), when an earlier call
//     stopped inside it (b7a5b537c55c, 6.7), or when it went unscanned for more passes than the
//     process has threads (f22cde4371f3, 6.11).
// A walk that reaches the end having skipped only for that last reason walks again from the
// same offset, forced, and scans one VMA (f169c62ff7cd, 6.7). The state and rules below are
// 6.11's, which 6.12 and 7.3 keep; 6.4-6.10's earlier forms are not modelled.
//
// Everything here is a pure function of the state the caller keeps per VMA and passes in.

#include <array>
#include <cstdint>

namespace numaplace {

/// vma_numab_state: one VMA's scan history.
struct vma_scan_state {
  bool seen = false;                ///< numab_state allocated (the scanner has met the VMA)
  std::uint32_t start_scan_seq = 0; ///< the mm's pass when first seen
  std::uint32_t prev_scan_seq = 0;  ///< the last pass that scanned it to its end
  double next_scan_ms = 0;          ///< not scanned before this (the new VMA's delay)
  double pids_reset_ms = 0;         ///< when the access windows shift next
  /// pids_active: the threads that faulted in it, as bits of hash_32(pid, 6); [1] is the
  /// window being filled, [0] the one before.
  std::array<std::uint64_t, 2> pids_active{};
};

/// Why the walk passes a VMA by (the kernel's NUMAB_SKIP_* reasons that depend on its history).
enum class vma_skip : std::uint8_t {
  none,           ///< scan it
  scan_delay,     ///< NUMAB_SKIP_SCAN_DELAY: new, its delay not over
  seq_completed,  ///< NUMAB_SKIP_SEQ_COMPLETED: scanned in this pass already
  pid_inactive,   ///< NUMAB_SKIP_PID_INACTIVE: the scanning thread has not touched it lately
};

/// What a walk knows when it reaches a VMA.
struct vma_scan_context {
  std::uint32_t scan_seq = 0;      ///< mm->numa_scan_seq
  double now_ms = 0;               ///< jiffies
  unsigned delay_ms = 1000;        ///< sysctl_numa_balancing_scan_delay
  std::uint32_t pid = 0;           ///< the scanning thread
  std::uint32_t nr_threads = 1;    ///< get_nr_threads(): the process's threads
  bool offset_inside = false;      ///< mm->numa_scan_offset > vma->vm_start: a scan stopped inside it
  bool forced = false;             ///< the forced walk, after one that skipped inactive VMAs
};

/// hash_32(pid, ilog2(BITS_PER_LONG)) on a 64-bit kernel: the bit a thread sets and tests.
constexpr unsigned access_pid_bit(std::uint32_t pid) noexcept {
  constexpr std::uint32_t golden_ratio_32 = 0x61C88647;  // GOLDEN_RATIO_32, include/linux/hash.h
  return static_cast<unsigned>(static_cast<std::uint32_t>(pid * golden_ratio_32) >> (32 - 6));
}

/// VMA_PID_RESET_PERIOD: the access windows shift every four scan delays.
constexpr double pid_reset_period_ms(unsigned delay_ms) noexcept { return 4.0 * delay_ms; }

/// task_numa_work() meeting a VMA for the first time: its pass, its delay, its first window
/// shift, and a previous pass that cannot match this one.
constexpr void first_seen(vma_scan_state& v, const vma_scan_context& c) noexcept {
  v = {};
  v.seen = true;
  v.start_scan_seq = c.scan_seq;
  v.next_scan_ms = c.now_ms + c.delay_ms;
  v.pids_reset_ms = v.next_scan_ms + pid_reset_period_ms(c.delay_ms);
  v.prev_scan_seq = c.scan_seq - 1;  // unsigned, as the kernel's
}

/// vma_set_access_pid_bit(): a hinting fault of thread `pid` in the VMA.
constexpr void record_access(vma_scan_state& v, std::uint32_t pid) noexcept {
  if (v.seen) v.pids_active[1] |= std::uint64_t{1} << access_pid_bit(pid);
}

/// vma_is_accessed() (6.11): whether the scanning thread may scan a VMA it reached.
constexpr bool vma_is_accessed(const vma_scan_state& v, const vma_scan_context& c) noexcept {
  if (c.scan_seq - v.start_scan_seq < 2) return true;  // its first two passes, whoever scans
  const std::uint64_t pids = v.pids_active[0] | v.pids_active[1];
  if ((pids >> access_pid_bit(c.pid)) & 1) return true;
  if (c.offset_inside) return true;  // finish what another thread started
  return c.scan_seq > v.prev_scan_seq + c.nr_threads;  // not scanned for too long
}

/// task_numa_work()'s tests of a VMA's history, in its order: the delay, the window shift (a
/// change of state even when the VMA is then skipped), the pass, the thread. Call first_seen()
/// before, for a VMA not yet seen.
constexpr vma_skip vma_scan_verdict(vma_scan_state& v, const vma_scan_context& c) noexcept {
  if (c.scan_seq != 0 && c.now_ms < v.next_scan_ms) return vma_skip::scan_delay;
  if (c.scan_seq != 0 && c.now_ms > v.pids_reset_ms) {
    v.pids_reset_ms += pid_reset_period_ms(c.delay_ms);
    v.pids_active[0] = v.pids_active[1];
    v.pids_active[1] = 0;
  }
  if (v.prev_scan_seq == c.scan_seq) return vma_skip::seq_completed;
  if (!c.forced && !vma_is_accessed(v, c)) return vma_skip::pid_inactive;
  return vma_skip::none;
}

/// A VMA scanned to its end in this pass.
constexpr void scan_completed(vma_scan_state& v, std::uint32_t scan_seq) noexcept { v.prev_scan_seq = scan_seq; }

}  // namespace numaplace
