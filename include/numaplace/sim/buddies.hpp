#pragma once
// Counting a task's buddies for placements that read them (placement::reads_buddies();
// numa/core v17's sched_update_ideal_cpu_shared(), Nov 2012): per node, the CPUs running the
// task or a task of its numa_group, the CPUs, and the idle CPUs. The kernel read rq->curr of
// each CPU; a CPU here counts as a buddy's when any task queued on it is one.

#include <cstdint>
#include <vector>

#include "machine.hpp"

namespace numaplace::sim {

class buddy_counter {
 public:
  /// The counts for task `id` on `m`; the view is valid until the next call.
  buddy_view of(const machine& m, task_index id) {
    const std::size_t n = m.node_count();
    running_.assign(n, 0);
    cpus_.assign(n, 0);
    idle_.assign(n, 0);
    const group_index group = m.tasks[id].group;
    for (node_index node = 0; node < n; ++node) {
      for (cpu_index c : m.node_cpus[node]) {
        ++cpus_[node];
        const auto& queued = m.cpus[c].tasks;
        if (queued.empty()) {
          ++idle_[node];
          continue;
        }
        for (task_index other : queued) {
          if (other == id || (group != no_group && m.tasks[other].group == group)) {
            ++running_[node];
            break;
          }
        }
      }
    }
    return {running_, cpus_, idle_, m.tasks[id].node};
  }

 private:
  std::vector<std::uint32_t> running_, cpus_, idle_;
};

}  // namespace numaplace::sim
