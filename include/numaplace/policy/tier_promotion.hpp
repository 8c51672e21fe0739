#pragma once
// tier_promotion: whether a hinting fault on a page in a slower memory tier promotes it to the
// faulting CPU's node, in NUMA balancing's tiering mode (numa_balancing=2), as
// should_numa_migrate_memory() decides from 6.0 (c6833e10008f's rate limit, c959924b0dc5's
// threshold adjustment) through 7.3, unchanged.
//
// In that mode the scanner stamps a slow-tier page with the time it made it PROT_NONE, and the
// fault reads how long the page took to be touched again: the hint-fault latency. A page is
// promoted when the fast node has plenty of free memory, whatever its latency; otherwise when
// its latency is under the node's hot threshold and the node has not yet taken its rate of
// candidates this second. Every threshold period (numa_balancing_scan_period_max) the node's
// threshold moves one step of 1/8 of the default down when more candidates than the rate came in
// the period before, and up when fewer did (0.9..1.1 of it), between one step and twice the
// default. Demotion (kswapd moving cold pages down when the fast node runs out) is not here.
//
// Everything is a pure function of the node's state, which the caller keeps, and of the fault.

#include <algorithm>
#include <cstdint>

namespace numaplace {

/// The sysctls: kernel.numa_balancing_promote_rate_limit_MBps, debugfs hot_threshold_ms and
/// kernel.numa_balancing_scan_period_max_ms (the threshold's adjustment period), at their defaults.
struct promotion_tunables {
  unsigned hot_threshold_ms = 1000;
  unsigned rate_limit_mbps = 65536;
  unsigned threshold_period_ms = 60000;
};

/// A fast node's promotion state (pglist_data's nbp_*), and its PGPROMOTE_CANDIDATE counter.
struct promotion_node_state {
  unsigned threshold_ms = 0;          ///< nbp_threshold; 0: the default
  unsigned threshold_start_ms = 0;    ///< nbp_th_start
  std::uint64_t threshold_candidates = 0;  ///< nbp_th_nr_cand: candidates when the period began
  unsigned rate_start_ms = 0;         ///< nbp_rl_start
  std::uint64_t rate_candidates = 0;  ///< nbp_rl_nr_cand: candidates when the second began
  std::uint64_t candidates = 0;       ///< PGPROMOTE_CANDIDATE: pages that passed the threshold
};

/// One hinting fault on a slow-tier page, as the fast node sees it.
struct promotion_fault {
  unsigned now_ms = 0;       ///< jiffies_to_msecs(jiffies)
  unsigned scanned_ms = 0;   ///< the page's access time: when the scanner marked it
  std::uint64_t pages = 1;   ///< folio_nr_pages()
  bool plenty_free = false;  ///< pgdat_free_space_enough(): the node's free pages clear its
                             ///< promotion watermark by max(1 GiB, 1/16 of the node)
};

enum class promotion_verdict : std::uint8_t {
  promote_free,   ///< the node has plenty of free memory: promoted, threshold reset
  promote,        ///< hot enough, within the rate
  too_cold,       ///< the hint-fault latency reached the threshold
  rate_limited,   ///< hot enough, but the node took its rate of candidates this second
};

constexpr bool promotes(promotion_verdict v) noexcept {
  return v == promotion_verdict::promote_free || v == promotion_verdict::promote;
}

/// PAGE_ACCESS_TIME_MASK on x86-64 (LAST_CPUPID_SHIFT 21 bits, no buckets): access times wrap
/// every 2^21 ms, about 35 minutes.
inline constexpr unsigned page_access_time_mask = (1u << 21) - 1;

/// numa_hint_fault_latency(): ms since the scanner marked the page, modulo the stamp's width.
constexpr unsigned hint_fault_latency(unsigned now_ms, unsigned scanned_ms) noexcept {
  return (now_ms - (scanned_ms & page_access_time_mask)) & page_access_time_mask;
}

/// numa_promotion_adjust_threshold(): once a period, move the node's threshold a step against
/// the candidates that came in (rate_pages: the rate limit in pages per second).
constexpr void adjust_threshold(promotion_node_state& n, unsigned now_ms, std::uint64_t rate_pages,
                                const promotion_tunables& t) noexcept {
  if (now_ms - n.threshold_start_ms <= t.threshold_period_ms) return;
  n.threshold_start_ms = now_ms;
  const std::uint64_t reference = rate_pages * t.threshold_period_ms / 1000;
  const std::uint64_t came = n.candidates - n.threshold_candidates;
  const unsigned step = t.hot_threshold_ms * 2 / 16;  // NUMA_MIGRATION_ADJUST_STEPS
  unsigned th = n.threshold_ms != 0 ? n.threshold_ms : t.hot_threshold_ms;
  if (came > reference * 11 / 10) {
    th = std::max(th - step, step);
  } else if (came < reference * 9 / 10) {
    th = std::min(th + step, t.hot_threshold_ms * 2);
  }
  n.threshold_candidates = n.candidates;
  n.threshold_ms = th;
}

/// numa_promotion_rate_limit(): count the fault's pages as candidates; whether the node has now
/// taken its rate this second (a new second starts once more than 1000 ms have passed).
constexpr bool rate_limit_reached(promotion_node_state& n, unsigned now_ms, std::uint64_t pages,
                                  std::uint64_t rate_pages) noexcept {
  n.candidates += pages;
  if (now_ms - n.rate_start_ms > 1000) {
    n.rate_start_ms = now_ms;
    n.rate_candidates = n.candidates;
  }
  return n.candidates - n.rate_candidates >= rate_pages;
}

/// should_numa_migrate_memory()'s tiering branch (6.0..7.3): promote the faulting page to node
/// `n` or not, updating n's state as the kernel does. `page_shift` sets MB_TO_PAGES.
constexpr promotion_verdict should_promote(promotion_node_state& n, const promotion_fault& f,
                                           const promotion_tunables& t = {}, unsigned page_shift = 12) noexcept {
  if (f.plenty_free) {
    n.threshold_ms = 0;  // "workload changed": back to the default
    return promotion_verdict::promote_free;
  }
  const std::uint64_t rate_pages = std::uint64_t{t.rate_limit_mbps} << (20 - page_shift);
  adjust_threshold(n, f.now_ms, rate_pages, t);
  const unsigned th = n.threshold_ms != 0 ? n.threshold_ms : t.hot_threshold_ms;
  if (hint_fault_latency(f.now_ms, f.scanned_ms) >= th) return promotion_verdict::too_cold;
  return rate_limit_reached(n, f.now_ms, f.pages, rate_pages) ? promotion_verdict::rate_limited
                                                              : promotion_verdict::promote;
}

}  // namespace numaplace
