#include "sim_budget.hpp"

#include <fmt/format.h>

#include <cmath>

#include "exit_codes.hpp"

namespace numaplace_cli {

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

void check_budget(const numaplace::sim::sweep_estimate& e, const numaplace::sim::sweep_budget& budget) {
  const numaplace::sim::run_size& r = e.largest;
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
