#pragma once
// scan_pacing: how often NUMA balancing scans a task's memory (kernel/sched/fair.c), and how
// often a task retries moving to its preferred node.
//
// The period is the time to scan the whole resident set once, in milliseconds. Its bounds come
// from the sysctls (numa_balancing_scan_period_min/max_ms, scan_size_mb) scaled by how many
// scan_size windows the RSS holds (task_scan_min/max); v4.14 scales the start and the maximum
// with the task's numa_group. At the end of each fault window, update_task_scan_period()
// moves the period within those bounds from the window's local/remote and private/shared
// ratios (stats/fault_window.hpp carries both).
//
// Everything here is a pure function of what the caller passes: the caller keeps the task's
// numa_scan_period and numa_scan_period_max.
//
// v3.8..v3.12 (balancenuma) paced each scan_size step, not a whole pass: every hinting fault
// that did not migrate added 10 ms to the period, the mm reset it to the minimum once a minute,
// nothing was scanned before a thread of the mm ran off its first node, and a thread whose
// node was taking its full migration rate marked nothing.
//
// From 6.4 the scan also chooses which VMAs to mark by each one's history and by the thread
// that scans (policy/vma_scan.hpp); scan_pacing_rule::v6_11 says a stack's scanner does so.
//
// Not modelled: the 3 % runtime cap on scanning (v4.5); the scan-period resets on
// node changes (task_numa_migrate up to v4.18, update_scan_period from v4.19); 6.1's keeping
// a window's locality counts when the period backs off (6.12 clears them: the library
// always has).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../stats/fault_window.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "loop_inputs.hpp"

namespace numaplace {

enum class scan_pacing_rule : std::uint8_t {
  v3_8,   ///< balancenuma: 100..5000 ms per scan_size step, +10 ms per fault that did not
          ///< migrate ("mm: sched: Adapt the scanning rate if a NUMA hinting fault does not
          ///< migrate"), reset to the minimum every 60 s; no fault windows (v3.8..v3.12)
  v3_13,  ///< adaptive period (04bb2f94): threshold 3 of 10 local slots; speed-ups scaled by the
          ///< private share; start at task_scan_min; retry the preferred node every 1 s (v3.13..v3.16)
  v3_17,  ///< threshold 7 (a22b4b01), private share over private + shared + 1; retry every
          ///< min(1 s, period / 16) (v3.17..v3.19)
  v4_0,   ///< also failed migrations double the period (074c238177a7) (v4.0..v4.1)
  v4_2,   ///< slow down when private, else when local, faults dominate; speed up by 7 minus the
          ///< larger ratio (37ec97deb3a8) (v4.2..v4.13)
  v4_14,  ///< task_scan_start/task_scan_max scale with the group's tasks and shared share (b5dd77c8bdad)
  v6_11,  ///< v4.14's pace over a scan that skips VMAs by their history and the scanning thread
          ///< (policy/vma_scan.hpp: fc137c0ddab2 in 6.4 to f22cde4371f3 in 6.11; 6.12, 7.x)
};

/// The defaults of v3.8..v3.12 (before 598f0ec0 made min/max the time of a whole scan).
inline constexpr scan_tunables scan_tunables_v3_8{100, 5000, 1000, 256};

/// MAX_SCAN_WINDOW: never scan faster than 2560 MB per second.
inline constexpr unsigned max_scan_window_mb = 2560;
/// NUMA_PERIOD_SLOTS: update_task_scan_period works in tenths of the period.
inline constexpr unsigned numa_period_slots = 10;

/// task_nr_scan_windows(): how many scan_size windows the RSS spans, at least 1. The kernel
/// rounds with round_up(), a power-of-two mask, which is exact for the default 256 MB.
constexpr unsigned task_nr_scan_windows(std::uint64_t rss_pages, const scan_tunables& t = {},
                                        unsigned page_shift = 12) noexcept {
  const std::uint64_t scan_pages = std::uint64_t{t.size_mb} << (20 - page_shift);
  if (scan_pages == 0) return 1;
  std::uint64_t rss = rss_pages == 0 ? scan_pages : rss_pages;
  rss = ((rss - 1) | (scan_pages - 1)) + 1;  // round_up(rss, nr_scan_pages)
  return static_cast<unsigned>(rss / scan_pages);
}

/// task_scan_min() (v3.13+): period_min over the windows, but never faster than
/// MAX_SCAN_WINDOW MB per second: floor = 1000 ms / (2560 / scan_size).
constexpr unsigned task_scan_min(std::uint64_t rss_pages, const scan_tunables& t = {}, unsigned page_shift = 12) noexcept {
  unsigned windows = 1;
  if (t.size_mb != 0 && t.size_mb < max_scan_window_mb) windows = max_scan_window_mb / t.size_mb;
  const unsigned floor = 1000 / windows;
  const unsigned scan = t.period_min_ms / task_nr_scan_windows(rss_pages, t, page_shift);
  return std::max(floor, scan);
}

namespace detail {
/// v4.14's scaling: period * tasks * (shared + 1) / (private + shared + 1), in ulong.
constexpr std::uint64_t scale_by_group(std::uint64_t period, const scan_group& g) noexcept {
  std::uint64_t shared = 0;
  std::uint64_t priv = 0;
  for (std::size_t i = 0; i + 1 < g.faults.memory.size(); i += 2) {
    shared += g.faults.memory[i];
    priv += g.faults.memory[i + 1];
  }
  period *= g.tasks;
  period *= shared + 1;
  period /= priv + shared + 1;
  return period;
}
}  // namespace detail

template <scan_pacing_rule Rule>
struct scan_pacing {
  static constexpr scan_pacing_rule rule = Rule;
  /// The era's sysctl defaults.
  static constexpr scan_tunables tunables = Rule == scan_pacing_rule::v3_8 ? scan_tunables_v3_8 : scan_tunables{};
  /// sysctl_numa_balancing_scan_period_reset (v3.8..v3.12): every 60 s, task_numa_work() put
  /// the scanning thread's period back to the minimum, "in case of phase changes". 0: never.
  static constexpr unsigned period_reset_ms = Rule == scan_pacing_rule::v3_8 ? 60000 : 0;
  /// 5bca2303 (v3.8, reverted in v3.13): an mm is not scanned until one of its threads runs on
  /// a node other than the first one a scan attempt saw (mm->first_nid).
  static constexpr bool waits_for_new_node = Rule == scan_pacing_rule::v3_8;
  /// af1839d722c9 (v3.8, gone with 9e645ab6d089 in v3.13): a thread whose node is migration
  /// rate-limited (migrate_ratelimited()) marks nothing.
  static constexpr bool skips_saturated_node = Rule == scan_pacing_rule::v3_8;
  /// Whether the scan walks VMAs by their own history (vma_scan_verdict()), as from 6.4.
  static constexpr bool filters_vmas = Rule >= scan_pacing_rule::v6_11;
  /// Whether each hinting fault moves the period (after_fault), as v3.8's did.
  static constexpr bool paces_per_fault = Rule == scan_pacing_rule::v3_8;
  /// NUMA_PERIOD_THRESHOLD: 3 in v3.13 (04bb2f94), 7 since a22b4b01.
  static constexpr int threshold = Rule == scan_pacing_rule::v3_13 ? 3 : 7;

  /// task_scan_max(): period_max over the windows, at least task_scan_min. From v4.14 a group's
  /// maximum grows with its task count and its shared share.
  constexpr unsigned task_scan_max(std::uint64_t rss_pages, const scan_tunables& t = {}, const scan_group& g = {},
                                   unsigned page_shift = 12) const noexcept {
    // v3.8's period is per scan_size step: the sysctl alone, whatever the RSS.
    if constexpr (Rule == scan_pacing_rule::v3_8) return t.period_max_ms;
    const unsigned smin = task_scan_min(rss_pages, t, page_shift);
    std::uint64_t smax = t.period_max_ms / task_nr_scan_windows(rss_pages, t, page_shift);
    if constexpr (Rule >= scan_pacing_rule::v4_14) {
      if (!g.empty()) smax = std::max(smax, detail::scale_by_group(smax, g));
    }
    return static_cast<unsigned>(std::max<std::uint64_t>(smin, smax));
  }

  /// The period task_numa_work() starts from once the first delay has passed: task_scan_min
  /// up to v4.13, task_scan_start() (the minimum scaled like the maximum) from v4.14.
  constexpr unsigned task_scan_start(std::uint64_t rss_pages, const scan_tunables& t = {}, const scan_group& g = {},
                                     unsigned page_shift = 12) const noexcept {
    if constexpr (Rule == scan_pacing_rule::v3_8) return t.period_min_ms;  // task_tick_numa's first tick
    const unsigned smin = task_scan_min(rss_pages, t, page_shift);
    if constexpr (Rule >= scan_pacing_rule::v4_14) {
      if (!g.empty()) return static_cast<unsigned>(std::max<std::uint64_t>(smin, detail::scale_by_group(smin, g)));
    }
    return smin;
  }

  /// update_task_scan_period(): the period after a window. `period_ms` is numa_scan_period,
  /// `period_max_ms` numa_scan_period_max (what task_scan_max gave when the scan started),
  /// `smin`/`smax` today's task_scan_min/task_scan_max. Shared and private are the window's
  /// fault_types, local/remote/failed its locality. Arithmetic is the kernel's: int ratios,
  /// unsigned period (a decrease larger than the period wraps and clamps to smax). A window
  /// whose divisors are 0 (which the kernel never sees) reads the ratio as 0.
  constexpr unsigned update_task_scan_period(unsigned period_ms, unsigned period_max_ms, unsigned smin, unsigned smax,
                                             const fault_window& w) const noexcept {
    if constexpr (Rule == scan_pacing_rule::v3_8) return period_ms;  // v3.8 paces per fault (after_fault)
    const std::uint64_t shared = w.fault_types[0];
    const std::uint64_t priv = w.fault_types[1];
    const std::uint64_t remote = w.locality[static_cast<std::size_t>(locality_slot::remote)];
    const std::uint64_t local = w.locality[static_cast<std::size_t>(locality_slot::local)];

    // No hinting faults at all (the task is idle or its memory is of no interest): scan slower.
    // From v4.0 (074c238177a7) failed migrations also mean migrating too fast: slower too.
    if (backs_off(w)) return std::min(period_max_ms, period_ms << 1);

    const unsigned period_slot = (period_ms + numa_period_slots - 1) / numa_period_slots;  // DIV_ROUND_UP
    const int lr_ratio = ratio(local * numa_period_slots, local + remote);
    int diff = 0;
    if constexpr (Rule < scan_pacing_rule::v4_2) {
      // v3.13..v4.1: mostly local (ratio >= threshold of 10) scans slower by (ratio - threshold)
      // slots, at least one; otherwise faster by (threshold - ratio) slots, scaled down by the
      // private share in tenths, rounded up: little point scanning faster for shared pages.
      // v3.17 adds 1 to the share's divisor.
      if (lr_ratio >= threshold) {
        diff = std::max(lr_ratio - threshold, 1) * static_cast<int>(period_slot);
      } else {
        diff = -(threshold - lr_ratio) * static_cast<int>(period_slot);
        const std::uint64_t divisor = Rule == scan_pacing_rule::v3_13 ? priv + shared : priv + shared + 1;
        const int private_ratio = ratio_up(priv * numa_period_slots, divisor);
        diff = diff * private_ratio / static_cast<int>(numa_period_slots);
      }
    } else {
      // v4.2+: private faults dominating (>= 7 of 10) or local ones dominating scan slower by
      // the ratio's excess over 7 (at least one slot); otherwise faster by 7 minus the larger.
      const int ps_ratio = ratio(priv * numa_period_slots, priv + shared);
      if (ps_ratio >= threshold) {
        diff = std::max(ps_ratio - threshold, 1) * static_cast<int>(period_slot);
      } else if (lr_ratio >= threshold) {
        diff = std::max(lr_ratio - threshold, 1) * static_cast<int>(period_slot);
      } else {
        diff = -(threshold - std::max(lr_ratio, ps_ratio)) * static_cast<int>(period_slot);
      }
    }
    const unsigned next = period_ms + static_cast<unsigned>(diff);  // unsigned + int, as in the kernel
    return std::min(std::max(next, smin), smax);                    // clamp()
  }

  /// task_numa_fault() of v3.8..v3.12: a fault whose page did not migrate adds 10 jiffies
  /// (10 ms at HZ=1000) up to the maximum. Later rules leave the period to the fault windows.
  constexpr unsigned after_fault(unsigned period_ms, bool migrated, const scan_tunables& t = tunables) const noexcept {
    if constexpr (Rule == scan_pacing_rule::v3_8) {
      if (!migrated) return std::min(t.period_max_ms, period_ms + 10);
    }
    return period_ms;
  }

  /// Whether update_task_scan_period() backs off at once for window `w` (no faults of
  /// interest, or, from v4.0, failed migrations): the period doubles and the mm's next scan is
  /// put off by the new period (mm->numa_next_scan), not only the task's.
  constexpr bool backs_off(const fault_window& w) const noexcept {
    const std::uint64_t shared = w.fault_types[0];
    const std::uint64_t local = w.locality[static_cast<std::size_t>(locality_slot::local)];
    const std::uint64_t failed = w.locality[static_cast<std::size_t>(locality_slot::migration_failed)];
    if constexpr (Rule == scan_pacing_rule::v3_8) return false;
    if constexpr (Rule >= scan_pacing_rule::v4_0) return local + shared == 0 || failed != 0;
    return local + shared == 0;
  }

  /// numa_migrate_preferred()'s retry interval in jiffies: HZ (1 s) in v3.13..v3.16 (the
  /// HZ * 5 after a failed attempt of the v3.13 series was gone before v3.13 shipped), from
  /// v3.17 min(HZ, msecs_to_jiffies(numa_scan_period) / 16).
  constexpr unsigned long migrate_retry_jiffies(unsigned period_ms, unsigned hz = 1000) const noexcept {
    const unsigned long one_second = hz;
    if constexpr (Rule <= scan_pacing_rule::v3_13) {  // v3.8 has no preferred node to retry
      return one_second;
    } else {
      const unsigned long period_jiffies = (static_cast<unsigned long>(period_ms) * hz + 999) / 1000;  // msecs_to_jiffies rounds up
      return std::min(one_second, period_jiffies / 16);
    }
  }

 private:
  static constexpr int ratio(std::uint64_t num, std::uint64_t den) noexcept {
    return den == 0 ? 0 : static_cast<int>(num / den);
  }
  static constexpr int ratio_up(std::uint64_t num, std::uint64_t den) noexcept {
    return den == 0 ? 0 : static_cast<int>((num + den - 1) / den);
  }
};

}  // namespace numaplace
