#pragma once
// The simulator's one cost model. Every scenario uses these values; none is tuned for a
// scenario. Each says where it comes from.

#include <cstdint>

namespace numaplace::sim {

struct cost_model {
  /// Simulated time step. Coarse enough for long runs, fine next to the 1 s scan period.
  double tick_ms = 10.0;

  /// What memory accesses cost is the machine's (machine_costs.hpp: measured latency ratios,
  /// bandwidths and loaded latency, settled against demand in memory_load.hpp); how much a
  /// task waits on memory is its workload's (memory_bound, streaming). Neither lives here.

  /// Each busy SMT sibling beyond the first adds this much of one thread's throughput to its
  /// core: two Hyper-Threads give about 1.25x one thread (Intel's figures for the P4 and
  /// later); four POWER7 threads then 1.75x (assumed, the same gain per thread).
  double smt_gain_per_sibling = 0.25;

  /// What each of `busy` threads on one core runs at, relative to one thread alone.
  double smt_speed(unsigned busy) const {
    return busy <= 1 ? 1.0 : (1.0 + smt_gain_per_sibling * double(busy - 1)) / double(busy);
  }

  /// Moving a task to another node costs a cache refill: work lost, in ms of the task's time
  /// (tens of MB of LLC refilled at memory bandwidth).
  double task_move_cost_ms = 2.0;

  /// Migrating one 2 MiB chunk (a THP-sized unit) costs its copy, charged to the task that
  /// faulted: 2 MiB at ~4 GB/s.
  double page_migrate_cost_ms = 0.5;

  /// Each NUMA hinting fault costs system time (fault entry, PTE update, TLB flush), in ms.
  double hinting_fault_cost_ms = 0.002;

  /// The scan itself follows the stack's scan pace and the kernel's default tunables
  /// (numa_balancing_scan_delay_ms 1000, period_min 1000, period_max 60000, scan_size_mb 256).

  /// An interleave policy's mbind moves at most this many chunks per placement, once a
  /// second (a bounded copy, so a 5 GB heap is re-placed over seconds, not in one step).
  unsigned interleave_chunks = 256;
  double interleave_interval_ms = 1000.0;

  /// Pages per chunk (2 MiB of 4 KiB pages): what one sampled chunk records as faults.
  std::uint64_t pages_per_chunk = 512;

  /// Load balancing keeps the kernel's own clock: each scheduling domain balances every
  /// sd_weight ms to twice that, busy_factor times less often while busy (load_balance.hpp).

  /// How often demand, queueing and speed are settled again (memory_load.hpp).
  double refresh_interval_ms = 100.0;
};

}  // namespace numaplace::sim
