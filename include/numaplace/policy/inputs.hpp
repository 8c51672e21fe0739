#pragma once
// Arguments of the load-side hooks, named as the kernel names them.

#include <cstdint>

namespace numaplace {

/// The arguments of adjust_numa_imbalance() across its versions (v5.7..v5.19).
/// Each variant reads only the fields its kernel passes.
struct imbalance_args {
  long imbalance = 0;     ///< max(0, dst_running - src_running) in task_numa_find_cpu
  int src_running = 0;    ///< source node's tasks after the move (nr_running - 1)
  int dst_running = 0;    ///< destination node's tasks after the move (nr_running + 1)
  int dst_weight = 0;     ///< CPUs in the destination node (v5.11..v5.17)
  int imb_numa_nr = 0;    ///< the NUMA domain's imb_numa_nr (v5.18+)
};

/// What the load balancer's calculate_imbalance() knows when it asks for the NUMA allowance.
/// Each kernel passes a different one of these to adjust_numa_imbalance() (v5.6..v5.19).
struct balancer_args {
  long imbalance = 0;
  int busiest_running = 0;  ///< busiest->sum_nr_running (v5.7..v5.18)
  int busiest_weight = 0;   ///< busiest->group_weight, CPUs (v5.11..v5.17)
  int local_running = 0;    ///< local->sum_nr_running; v5.19 passes it + 1
  int imb_numa_nr = 0;      ///< sd->imb_numa_nr (v5.18+)
};

/// One node's load as update_numa_stats() summed it (v3.13..v4.18), for numa_has_capacity().
struct node_load {
  std::uint64_t load = 0;              ///< sum of the CPUs' weighted load
  std::uint64_t compute_capacity = 0;  ///< sum of capacity_of(): 1024 per full CPU
  unsigned nr_running = 0;             ///< runnable tasks on the node
  unsigned cpus = 0;                   ///< CPUs in the node
};

}  // namespace numaplace
