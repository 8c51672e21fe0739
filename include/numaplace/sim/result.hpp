#pragma once
// What a simulation run reports, and statistics over several runs.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../topology/types.hpp"

namespace numaplace::sim {

/// Where a process was at one moment: its tasks and its memory per node.
struct occupancy {
  double seconds = 0;
  std::vector<std::uint32_t> tasks_per_node;   ///< in dense node order
  std::vector<std::uint64_t> memory_per_node;  ///< chunks, in dense node order
};

/// One process (numa group) in one run.
struct group_result {
  std::string name;
  double throughput = 0;       ///< work per simulated second (ops/s: ms of ideal work per s)
  double elapsed_seconds = 0;  ///< when its last task finished (elapsed-time workloads)
  double local_fraction = 0;   ///< share of its memory accesses that were node-local
  std::uint64_t task_migrations = 0;
  std::uint64_t page_migrations = 0;
  /// CPU time its tasks spent in NUMA balancing, in s: hinting faults and page copies (fault
  /// handling and migrate_misplaced_page, the system time a kernel would show for them; the
  /// scanner's PTE walk is not counted).
  double balancer_seconds = 0;
  double converged_seconds = 0;  ///< when its node set last changed
  std::uint32_t scan_passes = 0; ///< the NUMA scan's passes over its address space (mm->numa_scan_seq)
  std::vector<node_id> memory_nodes;  ///< nodes holding at least a tenth of its memory
  std::vector<std::uint64_t> memory_per_node;
  std::vector<occupancy> tasks_over_time;
};

/// How one run's settles of memory demand and speed went (memory_load.hpp): whether each reached
/// the solver's fixed point, counted where it is checked.
struct settle_stats {
  std::uint64_t settles = 0;
  /// Settles that ended at the step limit without reaching the solver's tolerance.
  std::uint64_t unsettled = 0;
  /// Sweeps over the memories and links, in all and the most one settle took.
  std::uint64_t sweeps = 0;
  int most_sweeps = 0;
  /// The largest residual any settle ended with.
  double worst_residual = 0;
};

/// What is wrong with a run's settles: "" when each reached the fixed point.
inline std::string unsettled_loads(const settle_stats& s) {
  if (s.unsettled == 0) return "";
  return "memory load: " + std::to_string(s.unsettled) + " of " + std::to_string(s.settles) +
         " settles stopped short of the fixed point (worst residual " + std::to_string(s.worst_residual) + ")";
}

/// What full nodes did to a run (memory.hpp): chunks allocated elsewhere because the node
/// they would have gone to was full, and NUMA page migrations a full target refused.
struct full_node_stats {
  std::uint64_t fell_back = 0;
  std::uint64_t migrations_refused = 0;
};

/// What memory tiering did in a run (memory_tiering.hpp): promotions by verdict, demotions.
struct tiering_stats {
  std::uint64_t promoted = 0;      ///< PGPROMOTE_SUCCESS, in chunks
  std::uint64_t too_cold = 0;      ///< faults whose latency reached the threshold
  std::uint64_t rate_limited = 0;  ///< hot, but past the node's rate this second
  std::uint64_t node_full = 0;     ///< promotions a full fast node refused (kswapd woken)
  std::uint64_t demoted = 0;       ///< chunks kswapd moved down a tier

  bool any() const noexcept { return promoted + too_cold + rate_limited + node_full + demoted != 0; }
};

struct run_result {
  std::vector<group_result> groups;
  double simulated_seconds = 0;
  std::uint64_t ticks = 0;
  std::uint64_t events = 0;  ///< task-ticks plus hinting faults
  settle_stats settles;
  full_node_stats full_nodes;
  tiering_stats tiering;

  double total_throughput() const {
    double sum = 0;
    for (const auto& g : groups) sum += g.throughput;
    return sum;
  }
  double max_elapsed() const {
    double m = 0;
    for (const auto& g : groups) m = std::max(m, g.elapsed_seconds);
    return m;
  }
};

/// Mean, standard deviation (sample), min, max and harmonic mean of a series of figures that
/// are never negative (throughputs, times); min <= harmonic mean <= mean <= max.
struct summary {
  std::size_t count = 0;
  double mean = 0, stddev = 0, min = 0, max = 0, harmonic_mean = 0;

  static summary of(const std::vector<double>& xs) {
    summary s;
    s.count = xs.size();
    if (xs.empty()) return s;
    s.min = *std::min_element(xs.begin(), xs.end());
    s.max = *std::max_element(xs.begin(), xs.end());
    double sum = 0, inverse = 0;
    bool any_zero = false;
    for (double x : xs) {
      sum += x;
      if (x > 0) inverse += 1.0 / x;
      else any_zero = true;
    }
    s.mean = sum / double(xs.size());
    // A zero in the series makes the harmonic mean zero (its limit): skipping it while
    // counting it put the mean above the largest value.
    s.harmonic_mean = any_zero ? 0 : double(xs.size()) / inverse;
    double sq = 0;
    for (double x : xs) sq += (x - s.mean) * (x - s.mean);
    s.stddev = xs.size() > 1 ? std::sqrt(sq / double(xs.size() - 1)) : 0;
    return s;
  }
};

}  // namespace numaplace::sim
