#pragma once
// What a sweep will cost, said before it starts. A request names its size (tasks, memory
// chunks, CPUs, nodes, simulated seconds, runs) long before the runs show it, so a sweep far
// beyond the machine can be refused with its estimate instead of starting silently and growing
// for hours. The estimate is a linear model of measured runs (below: which), good to a factor
// of about two: a budget, not a prediction.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace numaplace::sim {

/// The size of one run, as its request states it.
struct run_size {
  std::uint64_t tasks = 0;   ///< threads of every process, or jobs' concurrent threads
  std::uint64_t chunks = 0;  ///< memory chunks of every process's regions
  std::uint64_t cpus = 0;
  std::uint64_t nodes = 0;
  double seconds = 0;  ///< simulated
};

namespace detail {

// The model's coefficients, from the peak resident set and user CPU time of single runs of
// `numaplace sim --threads 1 --runs 1` (g++ 12 -O2) from 1 to 256 nodes, 16 to 65,536 CPUs, 8
// to 16,384 tasks and 240 to 262,144 chunks: scripts/sim-budget-check runs them and prints
// each estimate against what was measured. Per run:
//   bytes   = base + per_task * tasks + per_task_node * tasks * nodes + per_chunk * chunks
//             + per_cpu * cpus + per_node_pair * nodes^2
//   seconds = simulated seconds * (per_cpu_s * cpus + per_task_node_s * tasks * nodes
//             + per_task_s * tasks + per_task_squared_s * tasks^2 / cpus
//             + per_task_node_cpu_s * tasks * cpus / nodes)
//             + per_task_cpu_start_s * tasks * cpus + per_task_node_cpu_start_s * tasks * cpus / nodes
// What the fit showed: a chunk's record and its place in the access index cost about 200
// bytes (SPECjbb's; numa02's far less, so its runs are estimated high); every pair of nodes
// about 670 bytes (its route of links, latency ratio and solver cost: 44 MB at 256 nodes,
// which a first fit had put on the CPUs, estimating a 65,536-CPU machine 8 times too high); a
// CPU's runqueue and domains about 500 bytes. Per simulated second, the load balancer's work
// grows with CPUs and the NUMA scanner's (a fault's score on every node) with tasks times
// nodes. The last three terms are the tasks' own ticks, queues that grow with tasks per CPU
// (8,192 tasks on 16 CPUs: 13 s for 600 simulated s, where the first two terms said 0.4 s),
// and a migration's look at every CPU of a node (16,384 tasks on one node of 65,536 CPUs:
// 10.5 s for 6 s, where they said 2 s). The start costs as much once the runs are short:
// placing each new task reads every CPU's load to pick a node, then every CPU of that node
// to pick one (16,384 numa02 threads, 0.5 simulated s on 16 nodes of 4,096 CPUs: 3.4 s, and
// 65,536 on one node of 65,536: 65 s, where the terms per simulated second said 0.2 and 3 s).
struct memory_coefficients {
  double base, per_task, per_task_node, per_chunk, per_cpu, per_node_pair;
};
struct time_coefficients {
  double per_cpu, per_task_node, per_task, per_task_squared, per_task_node_cpu, per_task_cpu_start,
      per_task_node_cpu_start;
};

inline constexpr memory_coefficients memory_model{6.3e6, 1.0e3, 8.0, 200.0, 512.0, 670.0};
inline constexpr time_coefficients time_model{5.0e-6, 3.3e-8, 6.0e-7, 4.1e-9, 1.3e-9, 2.3e-9, 1.2e-8};

constexpr double as_double(std::uint64_t n) noexcept { return static_cast<double>(n); }

}  // namespace detail

/// Bytes one run holds at its peak.
inline double run_peak_bytes(const run_size& r) noexcept {
  using detail::as_double;
  const auto& m = detail::memory_model;
  return m.base + m.per_task * as_double(r.tasks) + m.per_task_node * as_double(r.tasks) * as_double(r.nodes) +
         m.per_chunk * as_double(r.chunks) + m.per_cpu * as_double(r.cpus) +
         m.per_node_pair * as_double(r.nodes) * as_double(r.nodes);
}

/// CPU seconds one run takes on one core of a 2020s x86 server.
inline double run_cpu_seconds(const run_size& r) noexcept {
  using detail::as_double;
  const auto& t = detail::time_model;
  const double tasks = as_double(r.tasks);
  const double cpus = std::max(1.0, as_double(r.cpus)), nodes = std::max(1.0, as_double(r.nodes));
  return r.seconds * (t.per_cpu * as_double(r.cpus) + t.per_task_node * tasks * as_double(r.nodes) +
                      t.per_task * tasks + t.per_task_squared * tasks * tasks / cpus +
                      t.per_task_node_cpu * tasks * cpus / nodes) +
         t.per_task_cpu_start * tasks * as_double(r.cpus) + t.per_task_node_cpu_start * tasks * cpus / nodes;
}

struct sweep_estimate {
  double peak_bytes = 0;    ///< the largest runs that run at once, together
  double cpu_seconds = 0;   ///< every run
  double wall_seconds = 0;  ///< cpu_seconds spread over `at_once` cores
  std::size_t runs = 0;
  unsigned at_once = 1;
  run_size largest;  ///< the run that needs the most memory
};

/// The sweep of `runs`, `threads` of them at once.
inline sweep_estimate estimate_sweep(const std::vector<run_size>& runs, unsigned threads) {
  sweep_estimate e;
  e.runs = runs.size();
  e.at_once = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(std::max(1u, threads), runs.size())));
  std::vector<double> bytes;
  bytes.reserve(runs.size());
  for (const run_size& r : runs) {
    bytes.push_back(run_peak_bytes(r));
    e.cpu_seconds += run_cpu_seconds(r);
    if (bytes.back() >= run_peak_bytes(e.largest)) e.largest = r;
  }
  // The largest runs may all be running at once.
  const std::size_t together = std::min<std::size_t>(e.at_once, bytes.size());
  std::partial_sort(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(together), bytes.end(), std::greater<>());
  for (std::size_t i = 0; i < together; ++i) e.peak_bytes += bytes[i];
  e.wall_seconds = e.cpu_seconds / e.at_once;
  return e;
}

/// What a sweep may use before it is refused (numaplace sim's --max-memory, --max-cpu-hours).
struct sweep_budget {
  double max_bytes = 8.0 * (1ull << 30);
  double max_cpu_seconds = 4 * 3600.0;
};

}  // namespace numaplace::sim
