#include "sim_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "exit_codes.hpp"

namespace numaplace_cli {

namespace {

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
  double per_cpu, per_task_node, per_task, per_task_squared, per_task_node_cpu, per_task_cpu_start, per_task_node_cpu_start;
};

constexpr memory_coefficients memory_model{6.3e6, 1.0e3, 8.0, 200.0, 512.0, 670.0};
constexpr time_coefficients time_model{5.0e-6, 3.3e-8, 6.0e-7, 4.1e-9, 1.3e-9, 2.3e-9, 1.2e-8};

double d(std::uint64_t n) { return static_cast<double>(n); }

}  // namespace

double run_peak_bytes(const run_size& r) {
  const auto& m = memory_model;
  return m.base + m.per_task * d(r.tasks) + m.per_task_node * d(r.tasks) * d(r.nodes) + m.per_chunk * d(r.chunks) +
         m.per_cpu * d(r.cpus) + m.per_node_pair * d(r.nodes) * d(r.nodes);
}

double run_cpu_seconds(const run_size& r) {
  const auto& t = time_model;
  const double cpus = std::max(1.0, d(r.cpus)), nodes = std::max(1.0, d(r.nodes));
  return r.seconds * (t.per_cpu * d(r.cpus) + t.per_task_node * d(r.tasks) * d(r.nodes) + t.per_task * d(r.tasks) +
                      t.per_task_squared * d(r.tasks) * d(r.tasks) / cpus + t.per_task_node_cpu * d(r.tasks) * cpus / nodes) +
         t.per_task_cpu_start * d(r.tasks) * d(r.cpus) + t.per_task_node_cpu_start * d(r.tasks) * cpus / nodes;
}

sweep_estimate estimate_sweep(const std::vector<run_size>& runs, unsigned threads) {
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

std::string readable_bytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024 * 1024) return fmt::format("{:.1f} TiB", bytes / (1024.0 * 1024 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
  return fmt::format("{:.0f} MiB", std::ceil(bytes / (1024.0 * 1024)));
}

std::string readable_seconds(double seconds) {
  if (seconds >= 2 * 3600.0) return fmt::format("{:.1f} h", seconds / 3600);
  if (seconds >= 120) return fmt::format("{:.0f} min", seconds / 60);
  if (seconds >= 10) return fmt::format("{:.0f} s", seconds);
  return fmt::format("{:.1f} s", seconds);
}

void check_budget(const sweep_estimate& e, const sim_budget& budget) {
  const run_size& r = e.largest;
  const std::string sizes = fmt::format("its largest run has {} tasks and {} memory chunks on {} nodes of {} CPUs in all, for {:.4g} "
                                        "simulated s",
                                        r.tasks, r.chunks, r.nodes, r.cpus, r.seconds);
  if (e.peak_bytes > budget.max_bytes) {
    throw usage_error(fmt::format(
        "this sweep would need about {} of memory ({} run{} at once; {}), more than --max-memory {} allows; "
        "pass --max-memory {:.0f} (GiB) to run it anyway{}",
        readable_bytes(e.peak_bytes), e.at_once, e.at_once == 1 ? "" : "s", sizes, readable_bytes(budget.max_bytes),
        std::ceil(e.peak_bytes * 1.5 / (1024.0 * 1024 * 1024)), e.at_once > 1 ? ", or fewer --threads" : ""));
  }
  if (e.cpu_seconds > budget.max_cpu_seconds) {
    throw usage_error(fmt::format(
        "this sweep would take about {} of CPU time ({} run{}, about {} on {} core{}; {}), more than --max-cpu-hours {:g} "
        "allows; pass --max-cpu-hours {:.0f} to run it anyway",
        readable_seconds(e.cpu_seconds), e.runs, e.runs == 1 ? "" : "s", readable_seconds(e.wall_seconds), e.at_once,
        e.at_once == 1 ? "" : "s", sizes, budget.max_cpu_seconds / 3600, std::ceil(e.cpu_seconds * 1.5 / 3600)));
  }
}

}  // namespace numaplace_cli
