#pragma once
// What the balancing loop's roles take and give back (the scan pace, page migration,
// task_numa_migrate, fork placement, settling the preferred node): plain values, named as the
// kernel names them (with stats/fault_window.hpp, what one scan window drained). The hook
// table detects the roles by these types, so they live apart from the policies that
// implement each kernel's rule.

#include <cstdint>
#include <span>

#include "../stats/fault_view.hpp"
#include "../stats/fault_window.hpp"
#include "../topology/types.hpp"

namespace numaplace {

// --- the scan pace (policy/scan_pacing.hpp) ---

/// The sysctls (kernel.numa_balancing_scan_*), defaults of v3.13 onwards.
struct scan_tunables {
  unsigned period_min_ms = 1000;  ///< sysctl_numa_balancing_scan_period_min
  unsigned period_max_ms = 60000; ///< sysctl_numa_balancing_scan_period_max
  unsigned delay_ms = 1000;       ///< sysctl_numa_balancing_scan_delay: a new task's first period
  unsigned size_mb = 256;         ///< sysctl_numa_balancing_scan_size: MB scanned per pass
};

/// What the v4.14 group scaling reads of the task's numa_group.
struct scan_group {
  fault_view faults{};  ///< the group's decayed faults; empty without a group
  unsigned tasks = 0;   ///< ng->refcount: tasks in the group
  constexpr bool empty() const noexcept { return faults.empty(); }
};

// --- page migration (policy/page_migration.hpp) ---

/// A page's last cpupid: who faulted on it last. The kernel packs a CPU number and the low bits
/// of a pid into page->flags (so two tasks can alias); here the task is a full index.
struct last_cpupid {
  node_index node = no_node;  ///< node of the CPU of the last fault (cpupid_to_nid)
  task_index task = no_task;  ///< the task of the last fault; no_task while unset
  /// cpupid_pid_unset(): nobody has faulted on the page since it was allocated.
  constexpr bool unset() const noexcept { return task == no_task; }
  friend constexpr bool operator==(const last_cpupid&, const last_cpupid&) = default;
};

/// One hinting fault, as the kernel knows it when it asks whether to migrate.
struct migrate_fault {
  task_index task = no_task;      ///< current, the faulting task
  node_index page_node = no_node; ///< src_nid / curnid: where the page is
  node_index cpu_node = no_node;  ///< dst_nid / thisnid: node of the faulting CPU
  node_index preferred = no_node; ///< p->numa_preferred_nid (v4.19's early rule)
  unsigned scan_seq = 0;          ///< p->numa_scan_seq: scan passes completed (v4.19's early rule)
  fault_view group{};             ///< the task's numa_group faults; empty without a group
  /// ng->active_nodes, one flag per node (v3.15..v4.5 only; see update_active_node_mask()).
  /// Empty counts every node as inactive.
  std::span<const bool> active_nodes{};
};

// --- task_numa_migrate() (policy/task_migration.hpp) and settling (policy/preferred_settling.hpp) ---

enum class migrate_kind : std::uint8_t {
  stick,  ///< no better CPU: stay (the kernel's -EAGAIN)
  move,   ///< migrate_task_to(cpu)
  swap,   ///< migrate_swap() with swap_with, which goes to the task's CPU
};

/// What task_numa_migrate() decided.
struct migrate_decision {
  migrate_kind kind = migrate_kind::stick;
  cpu_index cpu = no_cpu;                ///< env.best_cpu
  task_index swap_with = no_task;        ///< env.best_task
  node_index preferred_after = no_node;  ///< the task's preferred node after settling
  node_index last_evaluated = no_node;   ///< env.dst_nid at the end
  long improvement = 0;                  ///< env.best_imp
};

/// What task_numa_migrate() knew when it finished.
struct migrate_outcome {
  node_index preferred = no_node;       ///< the task's preferred node before
  node_index source = no_node;          ///< where it ran
  node_index last_evaluated = no_node;  ///< env.dst_nid: the last node it looked at
  node_index moved_to = no_node;        ///< the node of the CPU it moved or swapped to, or none
};

// --- fork placement (policy/fork_placement.hpp) ---

/// What the fork path knows besides the machine.
struct fork_args {
  node_index parent = no_node;     ///< node of this_cpu, the forking CPU
  node_index preferred = no_node;  ///< p->numa_preferred_nid (v5.5+): no_node for a fork, kept across exec
  unsigned imbalance_pct = 125;    ///< the NUMA domain's sd->imbalance_pct (sd_init's default)
  unsigned imb_numa_nr = 0;        ///< sd->imb_numa_nr (v5.18+)
};

}  // namespace numaplace
