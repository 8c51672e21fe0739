#pragma once
// What a run reports: where each process's tasks are over time (snapshots), and at the end its
// throughput, elapsed time, locality, migrations, memory per node and convergence time.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "result.hpp"
#include "world.hpp"

namespace numaplace::sim {

class reporter {
 public:
  /// Where each process's live workload threads are now (a sleeping one where it last ran;
  /// collector threads left out: they run only in pauses), and its memory.
  void snapshot(const world& s) {
    const std::size_t n = s.m.node_count();
    std::vector<std::vector<std::uint32_t>> per_process(s.m.processes.size(), std::vector<std::uint32_t>(n, 0));
    for (const auto& t : s.m.tasks) {
      if (t.alive && !t.gc_worker) ++per_process[t.process][t.node];
    }
    snapshots_.push_back({s.now_ms / 1000.0, std::move(per_process), memory_per_node(s)});
  }

  run_result collect(const world& s, std::uint64_t ticks) const {
    run_result r;
    r.simulated_seconds = s.now_ms / 1000.0;
    r.ticks = ticks;
    r.full_nodes = s.mem.full;
    r.tiering = s.tiering;
    const std::size_t n = s.m.node_count();
    for (std::uint32_t p = 0; p < s.m.processes.size(); ++p) {
      const process_state& ps = s.m.processes[p];
      group_result g;
      g.name = s.w.processes[p].name;
      // Per second of the process's own run: a JVM started late is measured from its start.
      const double start_s = std::min(r.simulated_seconds, std::max(0.0, s.w.processes[p].start_ms / 1000.0));
      g.throughput = ps.ops / std::max(1e-9, r.simulated_seconds - start_s);
      g.elapsed_seconds = ps.finish_ms >= 0 ? ps.finish_ms / 1000.0 : r.simulated_seconds;
      g.local_fraction = ps.ops > 0 ? ps.local_ops / ps.ops : 0;
      g.task_migrations = ps.task_moves;
      g.page_migrations = ps.page_moves;
      g.scan_passes = ps.scan_seq;
      g.balancer_seconds = ps.balancer_ms / 1000.0;
      const std::vector<std::uint64_t> memory = memory_of(s, p);
      std::uint64_t total = 0;
      for (const auto chunks : memory) total += chunks;
      for (node_index m = 0; m < n; ++m) {
        g.memory_per_node.push_back(memory[m]);
        // A node counts as the group's when it holds at least a tenth of its memory.
        if (total > 0 && memory[m] * 10 >= total) g.memory_nodes.push_back(s.topo.id_of(m));
      }
      for (const auto& snap : snapshots_) g.tasks_over_time.push_back({snap.seconds, snap.tasks[p], snap.memory[p]});
      g.converged_seconds = convergence_time(p);
      r.groups.push_back(std::move(g));
    }
    r.events = s.task_ticks + s.faults;
    return r;
  }

 private:
  // Process p's chunks per node.
  static std::vector<std::uint64_t> memory_of(const world& s, std::uint32_t p) {
    std::vector<std::uint64_t> memory(s.m.node_count(), 0);
    for (const region_state& rs : s.mem.of_process(p)) {
      for (std::size_t m = 0; m < memory.size(); ++m) memory[m] += rs.on_node[m];
    }
    return memory;
  }

  static std::vector<std::vector<std::uint64_t>> memory_per_node(const world& s) {
    std::vector<std::vector<std::uint64_t>> out;
    for (std::uint32_t p = 0; p < s.m.processes.size(); ++p) out.push_back(memory_of(s, p));
    return out;
  }

  // The last time the set of nodes holding at least a tenth of the process's tasks changed.
  double convergence_time(std::uint32_t p) const {
    double last_change = 0;
    std::vector<bool> previous;
    for (const auto& snap : snapshots_) {
      std::uint32_t total = 0;
      for (auto v : snap.tasks[p]) total += v;
      std::vector<bool> set(snap.tasks[p].size());
      for (std::size_t m = 0; m < set.size(); ++m) set[m] = total > 0 && snap.tasks[p][m] * 10 >= total;
      if (!previous.empty() && set != previous) last_change = snap.seconds;
      previous = std::move(set);
    }
    return last_change;
  }

  struct snapshot_state {
    double seconds;
    std::vector<std::vector<std::uint32_t>> tasks;   // [process][node]
    std::vector<std::vector<std::uint64_t>> memory;  // [process][node], chunks
  };
  std::vector<snapshot_state> snapshots_;
};

}  // namespace numaplace::sim
