#pragma once
// What a sweep will cost, said before it starts. A request names its size (tasks, memory
// chunks, CPUs, nodes, simulated seconds, runs) long before the runs show it, so a sweep far
// beyond this machine is refused with its estimate and the option that allows it, instead of
// starting silently and growing for hours. The estimate is a linear model of measured runs
// (sim_budget.cpp says which), good to a factor of about two: a budget, not a prediction.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace numaplace_cli {

/// The size of one run, as its request states it.
struct run_size {
  std::uint64_t tasks = 0;   ///< threads of every process, or jobs' concurrent threads
  std::uint64_t chunks = 0;  ///< memory chunks of every process's regions
  std::uint64_t cpus = 0;
  std::uint64_t nodes = 0;
  double seconds = 0;  ///< simulated
};

/// Bytes one run holds at its peak.
double run_peak_bytes(const run_size& r);
/// CPU seconds one run takes on one core of a 2020s x86 server.
double run_cpu_seconds(const run_size& r);

struct sweep_estimate {
  double peak_bytes = 0;   ///< the largest runs that run at once, together
  double cpu_seconds = 0;  ///< every run
  double wall_seconds = 0;  ///< cpu_seconds spread over `at_once` cores
  std::size_t runs = 0;
  unsigned at_once = 1;
  run_size largest;  ///< the run that needs the most memory
};

/// The sweep of `runs`, `threads` of them at once.
sweep_estimate estimate_sweep(const std::vector<run_size>& runs, unsigned threads);

/// What a sweep may use without being asked: sim --max-memory and --max-cpu-hours.
struct sim_budget {
  double max_bytes = 8.0 * (1ull << 30);
  double max_cpu_seconds = 4 * 3600.0;
};

/// Throws usage_error with the estimate, what makes it large and the option that allows it,
/// when `e` is over `budget`.
void check_budget(const sweep_estimate& e, const sim_budget& budget);

/// "1.5 GiB", "12 MiB": a size as the budget messages show it.
std::string readable_bytes(double bytes);
/// "40 s", "12 min", "3.2 h".
std::string readable_seconds(double seconds);

}  // namespace numaplace_cli
