#pragma once
// numa_core: Ingo Molnar's numa/core tree (tip, on v3.7), release v17 of 22 November 2012
// ("[PATCH 00/33] Latest numa/core release, v17", lkml), the kernel of seed 003. Its placement
// was not fault-maximum based, as mainline's from v3.8 on: a task was classified as shared or
// private from its own faults, and then
//
//   shared:  sched_update_ideal_cpu_shared() (patch 31/33, "sched: Use the ideal CPU to drive
//            active balancing"): for each node, count the node's CPUs that run the task or one
//            of its buddies (tasks sharing its memory); skip nodes without buddies and nodes
//            at full capacity (buddies == the node's CPUs); the node with the most buddies is
//            the task's ideal node ("compress" a group onto as few nodes as possible). No such
//            node, or the one it is on: stay.
//   private: sched_update_ideal_cpu_private() (same patch): the node with the most idle CPUs,
//            if it has at least two more than the task's own node ("spread" private tasks);
//            else stay.
//
// and patch 33/33 ("sched: Track shared task's node groups and interleave their memory
// allocations", 22 Nov 2012) adds: the nodes that have buddies (the full ones included) form a
// shared task's memory policy mask, over which its memory interleaves (numa_core_interleave).
//
// The classification is patch 32/33's ("sched: Add hysteresis to p->numa_shared") first one:
// shared when the task's shared faults are at least its private faults. Not modelled: the
// hysteresis that follows (stateful), the "same target twice in a row" filter of
// task_numa_placement() (stateful), and rq->curr_buddy (CPUs claimed by a migration in
// flight). A buddy, here, is a task of the same numa_group (the simulator's stand-in for the
// kernel's "curr->mm == p->mm" test over shared tasks); the counts come in decision_input's
// buddy_view. Without one (a runtime that does not count) the placement falls back to the
// task's fault maximum, as task_numa_placement() kept numa_max_node before patch 31.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "machine_view.hpp"
#include "task_migration.hpp"
#include "trace.hpp"

namespace numaplace {

namespace numa_core_rules {

/// task_numa_placement()'s shared/private split (numa/core v17, patch 32's first verdict):
/// shared when the task's shared faults are at least its private ones.
constexpr bool is_shared(const fault_view& task) noexcept {
  std::uint64_t shared = 0, priv = 0;
  for (std::size_t i = 0; i + 1 < task.memory.size(); i += 2) {
    shared += task.memory[i];
    priv += task.memory[i + 1];
  }
  return shared >= priv;
}

/// Whether `b` describes `nodes` nodes and the task's own node.
constexpr bool fits(const buddy_view& b, std::size_t nodes) noexcept {
  return b.running.size() == nodes && b.cpus.size() == nodes && b.idle.size() == nodes && b.current < nodes;
}

/// sched_update_ideal_cpu_shared() (numa/core v17, Nov 2012), per node: the node with the
/// most buddies that is not full; the task's own node when there is none or it is that one.
constexpr node_index ideal_node_shared(const buddy_view& b) noexcept {
  node_index best = no_node;
  std::uint32_t max_buddies = 0;
  for (node_index n = 0; n < b.running.size(); ++n) {
    const std::uint32_t buddies = b.running[n];
    if (buddies == 0) continue;
    if (buddies >= b.cpus[n]) continue;  // already at full capacity
    // The kernel also needs a target CPU there (idle, or running a task it may displace);
    // a node not full of buddies is taken to have one.
    if (buddies > max_buddies) {
      max_buddies = buddies;
      best = n;
    }
  }
  return best == no_node ? b.current : best;
}

/// sched_update_ideal_cpu_private() (numa/core v17, Nov 2012): the node with the most idle
/// CPUs, when it has at least two more than the task's own node; else the task's own node.
constexpr node_index ideal_node_private(const buddy_view& b) noexcept {
  node_index best = no_node;
  std::uint32_t max_idles = 0;
  for (node_index n = 0; n < b.idle.size(); ++n) {
    if (b.idle[n] > max_idles) {
      max_idles = b.idle[n];
      best = n;
    }
  }
  if (best == no_node || max_idles <= b.idle[b.current] + 1) return b.current;
  return best;
}

}  // namespace numa_core_rules

/// numa/core v17's task placement: the ideal node of sched_update_ideal_cpu_shared() or
/// sched_update_ideal_cpu_private() as the task's preferred node.
struct numa_core_placement {
  /// The caller should fill decision_input::buddies (placement::reads_buddies()).
  static constexpr bool reads_buddies = true;

  template <class Placement>
  node_index select_preferred(const Placement& pl, const decision_input& in) const noexcept {
    if (in.task.node_count() != pl.node_count()) return no_node;
    if (numa_core_rules::fits(in.buddies, pl.node_count())) {
      return numa_core_rules::is_shared(in.task) ? numa_core_rules::ideal_node_shared(in.buddies)
                                                 : numa_core_rules::ideal_node_private(in.buddies);
    }
    // No buddy counts: task_numa_placement()'s numa_max_node, the node with the most faults.
    std::uint64_t max_faults = 0;
    node_index max_nid = no_node;
    for (node_index n = 0; n < pl.node_count(); ++n) {
      const std::uint64_t f = Placement::faults_on(in.task, n);
      if (f > max_faults) {
        max_faults = f;
        max_nid = n;
      }
    }
    record_step(pl.trace(), [&] { return steps::fault_maximum{fault_owner::task, max_nid, max_faults, in.task.total}; });
    return max_nid;
  }
};

/// Patch 33/33 of numa/core v17 (22 Nov 2012): a shared task's memory interleaves over the
/// nodes that run it or a buddy (sched_update_ideal_cpu_shared() sets a node in
/// p->numa_policy when it has buddies, full or not, and clears it otherwise). A group on one
/// node gets a one-node mask (node-local allocation); one across the machine, every node.
/// Private tasks, and callers without buddy counts: the preferred node alone.
struct numa_core_interleave {
  template <class Placement>
  void interleave_nodes(const Placement& pl, const decision_input& in, std::span<bool> out) const noexcept {
    std::fill(out.begin(), out.end(), false);
    if (numa_core_rules::fits(in.buddies, pl.node_count()) && numa_core_rules::is_shared(in.task)) {
      const std::size_t n = std::min(out.size(), in.buddies.running.size());
      for (std::size_t i = 0; i < n; ++i) out[i] = in.buddies.running[i] > 0;
      return;
    }
    const node_index nid = pl.preferred_node(in);
    if (nid < out.size()) out[nid] = true;  // no_node is never in range
  }
};

/// numa/core's move to the ideal node: sched_rebalance_to(ideal_cpu) (patch 31/33, v17), an
/// active migration with no weighing of the move's gain (task_numa_migrate() came with v3.8).
/// The target CPU is the last one in the node's order that is idle, else the last one running
/// a task it may displace (a private task, or another group's away from its preferred node),
/// as the kernel's target_cpu loop leaves it. The kernel queues the task there and leaves the
/// displaced one to the load balancer; here the two swap, as its next pass would.
struct numa_core_migration {
  template <machine_view M, class Placement>
  constexpr migrate_decision decide(const M& m, const Placement&, task_index t) const {
    migrate_decision d;
    const auto src = static_cast<node_index>(m.task_node(t));
    const auto preferred = static_cast<node_index>(m.task_preferred(t));
    d.preferred_after = preferred;
    if (preferred == no_node || preferred == src || preferred >= m.node_count()) return d;
    d.last_evaluated = preferred;
    if (!m.allowed(t, preferred)) return d;
    const auto group = static_cast<group_index>(m.group_of(t));
    cpu_index idle = no_cpu, busy = no_cpu;
    task_index displaced = no_task;
    for (auto c : m.cpus_of(preferred)) {
      const auto cpu = static_cast<cpu_index>(c);
      if (cpu_idle(m, cpu)) {
        idle = cpu;
        continue;
      }
      for (auto other : m.tasks_on(cpu)) {
        const auto o = static_cast<task_index>(other);
        const auto og = static_cast<group_index>(m.group_of(o));
        if (group != no_group && og == group) break;  // a buddy's CPU: leave it
        if (og != no_group && static_cast<node_index>(m.task_preferred(o)) == preferred) continue;
        if (!m.allowed(o, src)) continue;
        busy = cpu;
        displaced = o;
        break;
      }
    }
    if (idle != no_cpu) {
      d.kind = migrate_kind::move;
      d.cpu = idle;
    } else if (busy != no_cpu) {
      d.kind = migrate_kind::swap;
      d.cpu = busy;
      d.swap_with = displaced;
    }
    return d;
  }
};

}  // namespace numaplace
