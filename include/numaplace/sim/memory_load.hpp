#pragma once
// Demand and speed in one loop. Each running task asks its memory for bytes at a rate set by
// how memory-bound and how streaming its workload is and by how fast it runs; the bytes load
// the nodes that hold its regions and the links on the routes there; a loaded memory or link
// answers later (the machine's loaded-latency curve); a later answer slows the task, which
// then asks for less. Settled every refresh by a damped fixed-point iteration, started from
// the last refresh's speeds (the state moves little in 100 ms).
//
// A task's time per unit of work is (1 - mb) + mb * cost, where mb is its workload's
// memory-bound share and cost the mean of its accesses' costs: the latency ratio of the pair
// of nodes times the queueing factor of the memory it reaches and of the busiest link on the
// way (a route is as slow as its bottleneck; queueing at a link otherwise idle adds nothing).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cost_model.hpp"
#include "machine.hpp"
#include "machine_costs.hpp"
#include "memory.hpp"
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

class memory_load {
 public:
  /// How many damped steps a refresh takes at most, and when it stops early: speeds within
  /// this relative change of the last step.
  static constexpr int max_steps = 8;
  static constexpr double settled_within = 1e-3;

  /// Settles demand, queueing and speed for the tasks as they are placed now, and leaves the
  /// access costs in `mem.access_cost` and each task's latency in it.
  void settle(machine& m, memory_model& mem, const workload& w, const cost_model& c, const machine_costs& hw) {
    const std::size_t n = m.node_count();
    if (progress_.size() < m.tasks.size()) progress_.resize(m.tasks.size(), 1.0);
    demand_.assign(n, 0.0);
    link_load_.assign(hw.links.size(), 0.0);
    mem.access_cost.assign(n * n, 1.0);
    for (int step = 0; step < max_steps; ++step) {
      load_from(m, mem, w, c, hw);
      queue_costs(mem, hw);
      double change = 0;
      for (task_index id = 0; id < m.tasks.size(); ++id) {
        task_state& t = m.tasks[id];
        if (!t.alive || t.asleep) continue;  // a sleeping task asks for nothing
        mem.update_latency(t);
        const double mb = w.processes[t.process].memory_bound;
        const double next = 1.0 / (1.0 - mb + mb * t.latency);
        // Damped: a steep curve near saturation would otherwise swing between two states.
        const double settled = 0.5 * (progress_[id] + next);
        change = std::max(change, std::abs(settled - progress_[id]) / progress_[id]);
        progress_[id] = settled;
      }
      if (change < settled_within) break;
    }
  }

  /// Memory traffic on node `n` as last settled, GB/s.
  double node_demand_gbs(node_index n) const { return demand_[n]; }
  /// Traffic on link `l` as last settled, GB/s.
  double link_load_gbs(std::size_t l) const { return link_load_[l]; }

 private:
  // Each task's bytes at its current speed, onto the nodes holding its regions and the links
  // on the routes there.
  void load_from(const machine& m, const memory_model& mem, const workload& w, const cost_model& c,
                 const machine_costs& hw) {
    const std::size_t n = m.node_count();
    std::fill(demand_.begin(), demand_.end(), 0.0);
    const bool links = !hw.links.empty();
    if (links) traffic_.assign(n * n, 0.0);
    for (task_index id = 0; id < m.tasks.size(); ++id) {
      const task_state& t = m.tasks[id];
      if (!t.alive || t.asleep) continue;  // a sleeping task asks for nothing
      const double cpu_share = 1.0 / double(m.cpus[t.cpu].tasks.size());
      const double smt = c.smt_speed(m.busy_threads(t.cpu));
      const double gbs = unloaded_demand_gbs(w.processes[t.process], hw) * cpu_share * smt * progress_[id];
      for (const auto& [r, weight] : t.accesses) {
        const region_state& rs = mem.regions[r];
        const double total = double(rs.chunks.size());
        for (const node_index node : rs.occupied) {
          const double bytes = gbs * weight * double(rs.on_node[node]) / total;
          demand_[node] += bytes;
          if (links) traffic_[t.node * n + node] += bytes;
        }
      }
    }
    if (!links) return;
    std::fill(link_load_.begin(), link_load_.end(), 0.0);
    for (std::size_t pair = 0; pair < n * n; ++pair) {
      if (traffic_[pair] == 0) continue;
      for (const auto l : hw.routes[pair]) link_load_[l] += traffic_[pair];
    }
  }

  // What an access costs from every node to every node under this load.
  void queue_costs(memory_model& mem, const machine_costs& hw) const {
    const std::size_t n = hw.node_count();
    for (node_index to = 0; to < n; ++to) {
      const double at_memory = hw.loaded.at(demand_[to] / hw.node_bandwidth_gbs[to]);
      for (node_index from = 0; from < n; ++from) {
        double on_route = 1.0;
        if (!hw.links.empty()) {
          for (const auto l : hw.route(from, to)) {
            on_route = std::max(on_route, hw.loaded.at(link_load_[l] / hw.links[l].gb_per_s));
          }
        }
        mem.access_cost[from * n + to] = hw.ratio(from, to) * at_memory * on_route;
      }
    }
  }

  std::vector<double> progress_;  // per task: its speed over the unloaded local one, last settled
  std::vector<double> demand_;    // per node, GB/s
  std::vector<double> traffic_;   // per (cpu node, memory node), GB/s; only with links
  std::vector<double> link_load_;
};

}  // namespace numaplace::sim
