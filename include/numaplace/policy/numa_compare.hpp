#pragma once
// task_numa_compare(): is the task better off on CPU env.dst_cpu, alone (a move) or traded
// with the task running there (a swap)? One shape per kernel era (task_migration_rule); the search
// state is the kernel's struct task_numa_env.

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>

#include "load_imbalance.hpp"
#include "machine_view.hpp"

namespace numaplace {

/// The kernel shapes of task_numa_find_cpu()/task_numa_compare().
enum class task_migration_rule : std::uint8_t {
  /// v4.1..v4.18 (the linux-4.1/4.2 stacks; v3.13..v4.0 differ in details not modelled): no
  /// SMALLIMP, a move beats a swap by storing moveimp - 1, the idle-CPU capacity test, the
  /// v3.17 load_too_imbalanced with imbalance_pct, numa_has_capacity() gating each node.
  v4_1,
  /// v4.19: SMALLIMP (30) and the "+ SMALLIMP / 2" margin, maymove evaluated once per node,
  /// the simplified load_too_imbalanced, numa_has_capacity() gone.
  v4_19,
  /// v5.7: update_numa_stats() classifies nodes; a destination with spare capacity takes an
  /// idle CPU at once when adjust_numa_imbalance() forgives the imbalance; swaps are biased by
  /// the candidate's preferred node; the search stops early.
  v5_7,
  /// v6.0 (not v5.19: merged for 6.0, lore 20220520103519.1863-3): no swap between tasks of
  /// one group (or two ungrouped tasks) while the destination has spare capacity.
  v6_0,
  /// "sched/numa: fix task swap by skipping kernel threads" (9709eb0f845b, taken into the mm
  /// tree in May 2025; 6.16 or 6.17, not pinned down here; in 7.3, not in 6.12): a kernel
  /// thread or a task without mm running on the destination CPU counts as no task, so the CPU
  /// is a move target, never a swap partner.
  v6_17,
};

/// SMALLIMP (v4.19+): about 1998 / 64, the smallest improvement worth a swap.
inline constexpr long small_improvement = 30;

/// struct task_numa_env: the search's state.
struct migrate_env {
  task_index p = no_task;
  group_index p_group = no_group;
  cpu_index src_cpu = no_cpu;
  node_index src_nid = no_node;
  cpu_index dst_cpu = no_cpu;
  node_index dst_nid = no_node;
  numa_stats src_stats;
  numa_stats dst_stats;
  unsigned imbalance_pct = 112;
  int imb_numa_nr = 1;
  distance_t dist = 0;
  task_index best_task = no_task;
  long best_imp = 0;
  cpu_index best_cpu = no_cpu;

  /// task_numa_assign(): remember dst_cpu (and the task to trade with, if any).
  constexpr void assign(task_index with, long imp) noexcept {
    best_task = with;
    best_imp = imp;
    best_cpu = dst_cpu;
  }
};

/// task_numa_assign() as it guards parallel migrations: from v4.19 (sched/numa: Stop multiple
/// tasks from moving to the CPU at the same time) a CPU whose runqueue another NUMA migration
/// has claimed (rq->numa_migrate_on) is not taken; from v5.7 (sched/numa: Find an alternative
/// idle CPU if the CPU is part of an active NUMA balance) the node's next idle, unclaimed CPU,
/// wrapping round from dst_cpu, is taken instead. The search's own claim is env.best_cpu.
template <task_migration_rule R, machine_view M>
constexpr void numa_assign(const M& m, migrate_env& env, task_index with, long imp) {
  if constexpr (R >= task_migration_rule::v4_19) {
    if (env.best_cpu != env.dst_cpu && machine_reads::migration_pending(m, env.dst_cpu)) {
      if constexpr (R < task_migration_rule::v5_7) {
        return;
      } else {
        const auto cpus = m.cpus_of(env.dst_nid);
        const auto n = detail::range_length(cpus);
        const auto found_at = detail::range_index_of(cpus, env.dst_cpu);
        const auto start = found_at == n ? 0 : found_at;
        bool found = false;
        for (std::ptrdiff_t i = 1; i <= n && !found; ++i) {
          const auto c = static_cast<cpu_index>(*(std::ranges::begin(cpus) + (start + i) % n));
          if (c == env.best_cpu || !machine_reads::idle(m, c) || machine_reads::migration_pending(m, c)) continue;
          env.dst_cpu = c;
          found = true;
        }
        if (!found) return;
      }
    }
  }
  env.assign(with, imp);
}

namespace detail {

// select_idle_sibling(p, src_cpu, dst_cpu) with the node standing in for the LLC: dst_cpu if
// idle, else the node's first idle CPU in view order, else dst_cpu.
template <machine_view M>
constexpr cpu_index idle_sibling(const M& m, cpu_index target) {
  if (machine_reads::idle(m, target)) return target;
  for (auto c : m.cpus_of(m.node_of_cpu(target))) {
    if (machine_reads::idle(m, static_cast<cpu_index>(c))) return static_cast<cpu_index>(c);
  }
  return target;
}

}  // namespace detail

/// task_numa_compare() for env.dst_cpu. Returns the v5.7+ "stop searching this node".
template <task_migration_rule R, machine_view M, class Placement>
constexpr bool task_numa_compare(const M& m, const Placement& pl, migrate_env& env, long taskimp, long groupimp,
                                 bool maymove) {
  const bool p_grouped = env.p_group != no_group;
  long imp = p_grouped ? groupimp : taskimp;
  const long moveimp = imp;
  const distance_t dist = env.dist;
  if constexpr (R >= task_migration_rule::v4_19) {
    // Another migration to this CPU is under way, or this search already claimed it.
    if (machine_reads::migration_pending(m, env.dst_cpu) || env.best_cpu == env.dst_cpu) return false;
  }
  task_index cur = machine_reads::current_task(m, env.dst_cpu);
  if constexpr (R >= task_migration_rule::v6_17) {
    if (cur != no_task && machine_reads::kernel_thread(m, cur)) cur = no_task;
  }
  if (cur == env.p) return R >= task_migration_rule::v5_7;  // preempted and migrated meanwhile

  // imp for a swap with `cur`: the same group (or neither grouped) compares task weights,
  // with hysteresis inside a group; otherwise group weights when both are grouped.
  const auto swap_improvement = [&](task_index c) {
    const decision_input cin = input_of(m, c);
    const group_index cur_group = m.group_of(c);
    const auto tw = [&](node_index n) { return static_cast<long>(pl.task_weight(cin, n, dist)); };
    const auto gw = [&](node_index n) { return static_cast<long>(pl.group_weight(cin, n, dist)); };
    long i = imp;
    if (cur_group == env.p_group) {
      i = taskimp + tw(env.src_nid) - tw(env.dst_nid);
      if (cur_group != no_group) i -= i / 16;
    } else if (cur_group != no_group && (p_grouped || R == task_migration_rule::v4_1)) {
      i += gw(env.src_nid) - gw(env.dst_nid);  // before v4.19 also when p has no group
    } else {
      i += tw(env.src_nid) - tw(env.dst_nid);
    }
    return i;
  };

  if constexpr (R == task_migration_rule::v4_1) {
    if (cur != no_task) {
      if (!m.allowed(cur, env.src_nid)) return false;
      imp = swap_improvement(cur);
    }
    if (imp <= env.best_imp && moveimp <= env.best_imp) return false;
    if (cur == no_task) {
      // Is there capacity at our destination?
      if (env.src_stats.nr_running <= env.src_stats.task_capacity && !env.dst_stats.has_free_capacity) return false;
    } else if (imp > env.best_imp && machine_reads::nr_running(m, env.src_cpu) == 1 && machine_reads::nr_running(m, env.dst_cpu) == 1) {
      env.assign(cur, imp);  // one task per CPU: balance does not matter much
      return false;
    }
    long load = static_cast<long>(m.task_load(env.p));
    long dst_load = static_cast<long>(env.dst_stats.load) + load;
    long src_load = static_cast<long>(env.src_stats.load) - load;
    if (moveimp > imp && moveimp > env.best_imp &&
        !load_too_imbalanced<imbalance_test::v3_17>(src_load, dst_load, env.src_stats, env.dst_stats,
                                                    env.imbalance_pct)) {
      env.assign(no_task, moveimp - 1);  // a move onto this (busy) CPU; an idle CPU still wins
      return false;
    }
    if (imp <= env.best_imp) return false;
    if (cur != no_task) {
      load = static_cast<long>(m.task_load(cur));
      dst_load -= load;
      src_load += load;
    }
    if (load_too_imbalanced<imbalance_test::v3_17>(src_load, dst_load, env.src_stats, env.dst_stats,
                                                   env.imbalance_pct)) {
      return false;
    }
    if (cur == no_task) env.dst_cpu = detail::idle_sibling(m, env.dst_cpu);
    env.assign(cur, imp);
    return false;
  } else {
    const auto pref = [&](task_index t) { return static_cast<node_index>(m.task_preferred(t)); };
    // assign: label of v4.19+.
    const auto finish = [&](task_index with, long i) {
      if (with == no_task) {
        if constexpr (R == task_migration_rule::v4_19) {
          env.dst_cpu = detail::idle_sibling(m, env.dst_cpu);
        } else {
          cpu_index c = env.dst_stats.idle_cpu;
          if (c == no_cpu) c = env.dst_cpu;
          if (!machine_reads::idle(m, c) && env.best_cpu != no_cpu && machine_reads::idle(m, env.best_cpu)) c = env.best_cpu;
          env.dst_cpu = c;
        }
      }
      numa_assign<R>(m, env, with, i);
      if constexpr (R >= task_migration_rule::v5_7) {
        if (maymove && with == no_task && env.best_cpu != no_cpu && machine_reads::idle(m, env.best_cpu)) return true;
        if (!maymove && env.best_task != no_task && pref(env.best_task) == env.src_nid) return true;
      }
      return false;
    };
    if (cur == no_task) return maymove && moveimp >= env.best_imp ? finish(no_task, moveimp) : false;
    if (!m.allowed(cur, env.src_nid)) return false;
    if constexpr (R >= task_migration_rule::v5_7) {
      // Skip a candidate not moving to its preferred node when the best one is.
      if (env.best_task != no_task && pref(env.best_task) == env.src_nid && pref(cur) != env.src_nid) return false;
    }
    if constexpr (R >= task_migration_rule::v6_0) {
      // Swapping within a group (or between ungrouped tasks) does nothing for the imbalance.
      if (m.group_of(cur) == env.p_group && env.dst_stats.node_type == numa_type::has_spare) return false;
    }
    imp = swap_improvement(cur);
    if constexpr (R >= task_migration_rule::v5_7) {
      if (pref(cur) == env.dst_nid) imp -= imp / 16;  // discourage moving a task off its node
      if (pref(cur) == env.src_nid) imp += imp / 8;   // encourage moving one onto its node
    }
    if (maymove && moveimp > imp && moveimp > env.best_imp) return finish(no_task, moveimp);
    if constexpr (R >= task_migration_rule::v5_7) {
      // Prefer a candidate moving to its preferred node over a best one that is not.
      if (env.best_task != no_task && pref(cur) == env.src_nid && pref(env.best_task) != env.src_nid) {
        return finish(cur, imp);
      }
    }
    if (imp < small_improvement || imp <= env.best_imp + small_improvement / 2) return false;
    const long load = static_cast<long>(m.task_load(env.p)) - static_cast<long>(m.task_load(cur));
    if (load != 0 &&
        load_too_imbalanced<imbalance_test::v4_19>(static_cast<long>(env.src_stats.load) - load,
                                                   static_cast<long>(env.dst_stats.load) + load, env.src_stats,
                                                   env.dst_stats, env.imbalance_pct)) {
      return false;
    }
    return finish(cur, imp);
  }
}

}  // namespace numaplace
