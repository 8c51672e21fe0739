#pragma once
// Demand and speed in one loop, settled every refresh for the tasks as they are placed now.
// Each running task asks its memory for bytes at a rate set by how memory-bound and how
// streaming its workload is, by its CPU and SMT share and by how fast it runs; the bytes load
// the nodes that hold its regions and the links on the routes there (load_solver.hpp finds
// the fixed point).
//
// A task's time per unit of work is (1 - mb) + mb * cost, where mb is its workload's
// memory-bound share and cost the mean of its accesses' costs: the latency ratio of the pair
// of nodes times the queueing factor of the memory it reaches and of the busiest link on the
// way, in the direction its data comes back (a route is as slow as its bottleneck; queueing
// at a link otherwise idle adds nothing).

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cost_model.hpp"
#include "load_solver.hpp"
#include "machine.hpp"
#include "machine_costs.hpp"
#include "memory.hpp"
#include "result.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// Bytes a task asks for per ms at full, unloaded, local speed, in GB/s: the streaming share of
/// its memory time at one core's stream bandwidth, the rest as dependent misses, one 64-byte
/// line per local latency.
inline double unloaded_demand_gbs(const process_spec& p, const machine_costs& hw) {
  constexpr double line_bytes = 64;
  const double dependent_gbs = line_bytes / hw.local_latency_ns;  // bytes per ns == GB/s
  return p.memory_bound * (p.streaming * hw.core_stream_gbs + (1.0 - p.streaming) * dependent_gbs);
}

/// A thread's work in ms at full local speed, the unit the engine counts down: its process's
/// work_bytes_per_thread at what it streams then (unloaded_demand_gbs), else `work_ms`, the
/// workload's work_per_thread_ms.
inline double thread_work_ms(const process_spec& p, const machine_costs& hw, double work_ms) {
  if (p.work_bytes_per_thread <= 0) return work_ms;
  const double gbs = unloaded_demand_gbs(p, hw);
  return gbs > 0 ? p.work_bytes_per_thread / (gbs * 1e6) : work_ms;  // 1 GB/s = 10^6 bytes a ms
}

class memory_load {
 public:
  /// Settles demand, queueing and speed for the tasks as they are placed now, and leaves the
  /// access costs in `mem.access_cost` and each task's latency in it. Throws std::logic_error
  /// if a settled state makes local memory dearer than remote memory no less loaded.
  void settle(machine& m, memory_model& mem, const workload& w, const cost_model& c, const machine_costs& hw) {
    problem_.clear();
    per_node_.assign(m.node_count(), 0.0);
    for (task_index id = 0; id < m.tasks.size(); ++id) {
      const task_state& t = m.tasks[id];
      if (!t.touches_memory()) continue;  // a sleeping or spinning task asks for nothing
      const double cpu_share = 1.0 / double(m.cpus[t.cpu].tasks.size());
      const double smt = c.smt_speed(m.busy_threads(t.cpu));
      const process_spec& p = w.processes[t.process];
      problem_.add_task(t.node, p.memory_bound, unloaded_demand_gbs(p, hw) * cpu_share * smt);
      // One share per node, however many of the task's regions that node holds.
      for (const auto& [r, weight] : t.accesses) {
        const region_state& rs = mem.regions[r];
        const double total = double(rs.chunks.size());
        for (const node_index node : rs.occupied) {
          if (per_node_[node] == 0) touched_.push_back(node);
          per_node_[node] += weight * double(rs.on_node[node]) / total;
        }
      }
      for (const node_index node : touched_) {
        problem_.add_share(node, per_node_[node]);
        per_node_[node] = 0;
      }
      touched_.clear();
    }
    const settle_outcome out = solver_.solve(problem_, hw);
    ++stats_.settles;
    if (!out.converged) ++stats_.unsettled;
    stats_.worst_residual = std::max(stats_.worst_residual, out.residual);
    stats_.sweeps += std::uint64_t(out.steps);
    stats_.most_sweeps = std::max(stats_.most_sweeps, out.steps);
    if (out.converged) {
      if (auto bad = solver_.check_local_first(hw)) throw std::logic_error("memory load settled wrongly: " + *bad);
    }
    const auto costs = solver_.access_costs();
    mem.access_cost.assign(costs.begin(), costs.end());
    for (task_state& t : m.tasks) {
      if (t.alive && !t.asleep) mem.update_latency(t);
    }
  }

  const settle_stats& stats() const noexcept { return stats_; }
  /// Memory traffic on node `n` as last settled, GB/s.
  double node_demand_gbs(node_index n) const { return solver_.node_demand_gbs(n); }
  /// Traffic on link `l` from its end a to b (`a_to_b`) or back, as last settled, GB/s.
  double link_load_gbs(std::size_t l, bool a_to_b) const { return solver_.link_load_gbs(l, a_to_b); }

 private:
  demand_problem problem_;
  std::vector<double> per_node_;  // one task's shares by node, while it is gathered
  std::vector<node_index> touched_;
  load_solver solver_;
  settle_stats stats_;
};

}  // namespace numaplace::sim
