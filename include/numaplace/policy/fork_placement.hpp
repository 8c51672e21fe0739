#pragma once
// fork_placement: on which node, and on which CPU there, a new task starts: the NUMA level of
// find_idlest_group() and then find_idlest_group_cpu() (kernel/sched/fair.c, reached from
// select_task_rq_fair() with SD_BALANCE_FORK).
//
// Model and its limits:
//  - One NUMA level whose groups are the nodes of the view (nodes without CPUs are skipped).
//    The kernel walks every domain level from the top one with SD_BALANCE_FORK down; on a
//    machine with several NUMA distances its upper levels compare sets of nodes, and a level
//    whose distance exceeds RECLAIM_DISTANCE (30) has no SD_BALANCE_FORK at all: a caller
//    modelling that passes only the nodes the balanced domain spans through `allowed`.
//  - Loads are the view's task_load() sums (runnable and blocked load alike: the view has no
//    blocked load); a node's capacity is 1024 per CPU (no SMT or RT pressure).
//  - v5.5+ classify groups by utilisation: every runnable task counts as keeping its CPU fully
//    busy (util = 1024 per CPU with a task, runnable = 1024 per task). v5.5 and v5.6 classified
//    without the runnable test of v5.7; both are classified with it here.
//  - Groups are visited from the parent's node upwards, wrapping (the kernel's group ring starts
//    at the group of this_cpu); ties keep the first.
//  - The kernel filters groups by the task's CPU affinity; the view has node affinity, so
//    `allowed(node)` says whether the new task may run on a node.
//  - Where the kernel would keep the task on a parent node it may not run on (v3.8..v4.9 with
//    the local group not allowed), select_task_rq's fallback takes the first allowed node.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "../topology/types.hpp"
#include "imbalance_adjustment.hpp"
#include "inputs.hpp"
#include "loop_inputs.hpp"
#include "machine_view.hpp"

namespace numaplace {

enum class fork_placement_rule : std::uint8_t {
  v3_8,   ///< least average load per capacity, unless the parent's is within imbalance_pct/2
          ///< (the 2.6-era find_idlest_group, unchanged until v4.9)
  v4_10,  ///< runnable load with an absolute margin of NICE_0_LOAD * (imbalance_pct - 100) %,
          ///< average load as tie-break (v4.10..v4.16)
  v4_17,  ///< plus, across NUMA, stay unless the remote node is lighter by more than the margin
          ///< (2c83362734da, v4.17..v5.4)
  v5_5,   ///< group types; a parent node with spare capacity keeps the task while it has an idle CPU (v5.5..v5.10)
  v5_11,  ///< ...while it runs fewer tasks than 25 % of the NUMA domain's CPUs (v5.11..v5.17)
  v5_18,  ///< ...while its tasks plus the new one stay below imb_numa_nr (v5.18)
  v5_19,  ///< ...unless the idle-CPU difference beyond NUMA_IMBALANCE_MIN remains once its tasks
          ///< plus the new one exceed imb_numa_nr (adjust_numa_imbalance, v5.19)
  v6_0,   ///< imb_numa_nr capped by the CPUs the task may use on the parent node (v6.0+)
};

/// A node's sg_lb_stats as update_sg_wakeup_stats() (v5.5+) fills them for a fork.
struct fork_group_stats {
  enum type_t : std::uint8_t { has_spare = 0, fully_busy = 1, overloaded = 5 };  // the kernel's group_type order
  std::uint64_t load = 0;      ///< sum of the CPUs' load
  std::uint64_t capacity = 0;  ///< 1024 per CPU
  std::uint64_t avg_load = 0;  ///< load * 1024 / capacity, only for fully_busy and overloaded
  unsigned nr_running = 0;     ///< sum_nr_running
  unsigned idle_cpus = 0;
  unsigned weight = 0;         ///< group_weight: CPUs
  type_t type = has_spare;
};

/// find_idlest_group_cpu(): on `node`, the first idle CPU (the view has no idle states or idle
/// stamps to prefer a shallower or more recently idled one, and no SMT siblings to prefer an
/// idle core: the kernel reaches idle cores by repeating find_idlest_group at the SMT level),
/// else the least loaded CPU, the first of equals. no_cpu for a node without CPUs.
template <machine_view M>
constexpr cpu_index find_idlest_group_cpu(const M& m, node_index node) {
  cpu_index least = no_cpu;
  std::uint64_t least_load = std::numeric_limits<std::uint64_t>::max();
  for (cpu_index c : m.cpus_of(node)) {
    if (cpu_idle(m, c)) return c;
    const std::uint64_t load = load_on_cpu(m, c);
    if (least == no_cpu || load < least_load) {
      least = c;
      least_load = load;
    }
  }
  return least;
}

template <fork_placement_rule Rule>
struct fork_placement {
  static constexpr fork_placement_rule rule = Rule;
  /// NUMA_IMBALANCE_MIN (v5.19's allowance).
  static constexpr long imbalance_min = 2;

  /// The node find_idlest_group() leaves the new task on: the parent's (NULL in the kernel) or
  /// the idlest other one. `allowed(node_index) -> bool` is the task's node affinity.
  /// no_node when no node with CPUs is allowed.
  template <machine_view M, class Allowed>
  constexpr node_index find_idlest_node(const M& m, const fork_args& a, Allowed&& allowed) const {
    const std::size_t n = m.node_count();
    const auto usable = [&](node_index node) { return cpu_count_of(m, node) != 0 && allowed(node); };
    node_index first_allowed = no_node;
    for (node_index node = 0; node < n; ++node) {
      if (usable(node)) {
        first_allowed = node;
        break;
      }
    }
    if (first_allowed == no_node) return no_node;
    const node_index start = a.parent < n ? a.parent : 0;
    const bool local_usable = a.parent < n && usable(a.parent);
    const node_index chosen = choose(m, a, usable, start, local_usable, n);
    if (chosen == a.parent && !local_usable) return first_allowed;  // select_fallback_rq
    return chosen;
  }

  template <machine_view M>
  constexpr node_index find_idlest_node(const M& m, const fork_args& a) const {
    return find_idlest_node(m, a, [](node_index) { return true; });
  }

  /// find_idlest_node(), then find_idlest_group_cpu() there. no_cpu when nothing is allowed.
  template <machine_view M, class Allowed>
  constexpr cpu_index select_fork_cpu(const M& m, const fork_args& a, Allowed&& allowed) const {
    const node_index node = find_idlest_node(m, a, allowed);
    return node == no_node ? no_cpu : find_idlest_group_cpu(m, node);
  }

  template <machine_view M>
  constexpr cpu_index select_fork_cpu(const M& m, const fork_args& a) const {
    return select_fork_cpu(m, a, [](node_index) { return true; });
  }

  /// update_sg_wakeup_stats() and group_classify() for one node, under the model above.
  template <machine_view M>
  static constexpr fork_group_stats group_stats(const M& m, node_index node, unsigned imbalance_pct) {
    fork_group_stats s;
    s.weight = static_cast<unsigned>(cpu_count_of(m, node));
    s.nr_running = static_cast<unsigned>(running_on(m, node));
    s.idle_cpus = static_cast<unsigned>(idle_cpus_on(m, node));
    s.load = load_on_node(m, node);
    s.capacity = std::uint64_t{1024} * s.weight;
    const std::uint64_t util = std::uint64_t{1024} * (s.weight - s.idle_cpus);
    const std::uint64_t runnable = std::uint64_t{1024} * s.nr_running;
    const std::uint64_t pct = imbalance_pct;
    // group_is_overloaded(): more tasks than CPUs, and utilisation or runnable beyond the margin.
    const bool overloaded =
        s.nr_running > s.weight && (s.capacity * 100 < util * pct || s.capacity * pct < runnable * 100);
    // group_has_capacity(): fewer tasks than CPUs, or runnable and utilisation under the margin.
    bool has_capacity = true;
    if (s.nr_running >= s.weight) {
      if (s.capacity * pct < runnable * 100) {
        has_capacity = false;
      } else {
        has_capacity = s.capacity * 100 > util * pct;
      }
    }
    s.type = overloaded ? fork_group_stats::overloaded : !has_capacity ? fork_group_stats::fully_busy : fork_group_stats::has_spare;
    if (s.type != fork_group_stats::has_spare && s.capacity != 0) s.avg_load = s.load * 1024 / s.capacity;
    return s;
  }

 private:
  static constexpr std::uint64_t ulong_max = std::numeric_limits<std::uint64_t>::max();

  template <machine_view M, class Usable>
  constexpr node_index choose(const M& m, const fork_args& a, Usable& usable, node_index start, bool local_usable,
                              std::size_t n) const {
    if constexpr (Rule <= fork_placement_rule::v4_17) {
      return choose_by_load(m, a, usable, start, local_usable, n);
    } else {
      return choose_by_type(m, a, usable, start, local_usable, n);
    }
  }

  // Load per capacity, scaled like avg_load: load * SCHED_CAPACITY_SCALE / group capacity.
  template <machine_view M>
  static constexpr std::uint64_t scaled_load(const M& m, node_index node) {
    return load_on_node(m, node) * 1024 / (std::uint64_t{1024} * cpu_count_of(m, node));
  }

  template <machine_view M, class Usable>
  constexpr node_index choose_by_load(const M& m, const fork_args& a, Usable& usable, node_index start,
                                      bool local_usable, std::size_t n) const {
    (void)local_usable;  // both forms compare with the parent's load as the kernel does
    const std::uint64_t pct = a.imbalance_pct;
    const std::uint64_t imbalance_scale = 100 + (pct - 100) / 2;  // 112 for 125
    node_index idlest = no_node;
    if constexpr (Rule == fork_placement_rule::v3_8) {
      // find_idlest_group() up to v4.9: this_load starts at 0 (so a parent node the task may
      // not use keeps it: the fallback above applies), min_load at ULONG_MAX.
      std::uint64_t min_load = ulong_max;
      std::uint64_t this_load = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const auto node = static_cast<node_index>((start + k) % n);
        if (!usable(node)) continue;
        const std::uint64_t avg = scaled_load(m, node);
        if (node == a.parent) {
          this_load = avg;
        } else if (avg < min_load) {
          min_load = avg;
          idlest = node;
        }
      }
      // if (!idlest || 100*this_load < imbalance*min_load) return NULL;
      if (idlest == no_node || 100 * this_load < imbalance_scale * min_load) return a.parent;
      return idlest;
    } else {
      // v4.10 (6b94780e45c1): runnable load decides unless within `imbalance` of the best so
      // far, where the average (blocked) load breaks the tie. Fork skips the spare-capacity
      // path (f519a3f1c6b7). Arithmetic is ulong and wraps as the kernel's does.
      const std::uint64_t imbalance = 1024 * (pct - 100) / 100;  // 256 for 125
      std::uint64_t min_runnable = ulong_max, min_avg = ulong_max;
      std::uint64_t this_runnable = ulong_max, this_avg = ulong_max;
      for (std::size_t k = 0; k < n; ++k) {
        const auto node = static_cast<node_index>((start + k) % n);
        if (!usable(node)) continue;
        const std::uint64_t runnable = scaled_load(m, node);
        const std::uint64_t avg = runnable;  // the view has no blocked load
        if (node == a.parent) {
          this_runnable = runnable;
          this_avg = avg;
        } else if (min_runnable > runnable + imbalance) {
          min_runnable = runnable;
          min_avg = avg;
          idlest = node;
        } else if (runnable < min_runnable + imbalance && 100 * min_avg > imbalance_scale * avg) {
          min_avg = avg;
          idlest = node;
        }
      }
      if (idlest == no_node) return a.parent;
      if constexpr (Rule == fork_placement_rule::v4_17) {
        // 2c83362734da: across NUMA, add the margin to the remote load and consider staying.
        if (min_runnable + imbalance >= this_runnable) return a.parent;
      }
      if (min_runnable > this_runnable + imbalance) return a.parent;
      if (this_runnable < min_runnable + imbalance && 100 * this_avg < imbalance_scale * min_avg) return a.parent;
      return idlest;
    }
  }

  template <machine_view M, class Usable>
  constexpr node_index choose_by_type(const M& m, const fork_args& a, Usable& usable, node_index start,
                                      bool local_usable, std::size_t n) const {
    // find_idlest_group() of v5.5 (57abff067a08) and later.
    const std::uint64_t pct = a.imbalance_pct;
    fork_group_stats local{};
    fork_group_stats idlest_sgs{};
    idlest_sgs.avg_load = std::numeric_limits<unsigned>::max();  // UINT_MAX
    idlest_sgs.type = fork_group_stats::overloaded;
    node_index idlest = no_node;
    unsigned span_weight = 0;  // sd->span_weight: every CPU of the domain, allowed or not
    for (node_index node = 0; node < n; ++node) span_weight += static_cast<unsigned>(cpu_count_of(m, node));
    for (std::size_t k = 0; k < n; ++k) {
      const auto node = static_cast<node_index>((start + k) % n);
      if (!usable(node)) continue;
      const fork_group_stats s = group_stats(m, node, a.imbalance_pct);
      if (node == a.parent) {
        local = s;
      } else if (pick_idlest(idlest_sgs, s)) {
        idlest = node;
        idlest_sgs = s;
      }
    }
    if (idlest == no_node) return a.parent;    // no idlest group to push to
    if (!local_usable) return idlest;           // the local group was skipped for affinity
    if (local.type < idlest_sgs.type) return a.parent;
    if (local.type > idlest_sgs.type) return idlest;
    if (local.type != fork_group_stats::has_spare) {
      const std::uint64_t imbalance = 1024 * (pct - 100) / 100;
      if (idlest_sgs.avg_load + imbalance >= local.avg_load) return a.parent;  // SD_NUMA: consider staying
      if (idlest_sgs.avg_load >= local.avg_load + imbalance) return a.parent;
      if (100 * local.avg_load <= pct * idlest_sgs.avg_load) return a.parent;
      return idlest;
    }
    // group_has_spare at SD_NUMA: the preferred node first (CONFIG_NUMA_BALANCING).
    if (a.preferred != no_node) {
      if (a.parent == a.preferred) return a.parent;
      if (idlest == a.preferred) return idlest;
    }
    if constexpr (Rule == fork_placement_rule::v5_5) {
      if (local.idle_cpus != 0) return a.parent;
    } else if constexpr (Rule == fork_placement_rule::v5_11) {
      // 7d2b5dd0bcc4: allow_numa_imbalance(local_sgs.sum_nr_running, sd->span_weight).
      if (local.nr_running < (span_weight >> 2)) return a.parent;
    } else if constexpr (Rule == fork_placement_rule::v5_18) {
      // 2cfb7a1b031b + e496132ebedd: allow_numa_imbalance(sum_nr_running + 1, sd->imb_numa_nr).
      if (local.nr_running + 1 < a.imb_numa_nr) return a.parent;
    } else {
      // cb29a5c19d2d: adjust_numa_imbalance(|idle difference|, sum_nr_running + 1, imb_numa_nr);
      // f5b2eeb49991 (v6.0) caps imb_numa_nr by the CPUs the task may use on the local node.
      unsigned imb_numa_nr = a.imb_numa_nr;
      if constexpr (Rule == fork_placement_rule::v6_0) imb_numa_nr = std::min(imb_numa_nr, local.weight);
      imbalance_args ia;
      ia.imbalance = local.idle_cpus > idlest_sgs.idle_cpus ? local.idle_cpus - idlest_sgs.idle_cpus
                                                            : idlest_sgs.idle_cpus - local.idle_cpus;
      ia.dst_running = static_cast<int>(local.nr_running + 1);
      ia.imb_numa_nr = static_cast<int>(imb_numa_nr);
      if (imbalance_adjustment<imbalance_rule::v5_19>{}.adjust_imbalance(ia) == 0) return a.parent;
    }
    // Otherwise the group with more idle CPUs.
    if (local.idle_cpus >= idlest_sgs.idle_cpus) return a.parent;
    return idlest;
  }

  // update_pick_idlest() (v5.5): a lower group type wins; within a type the lower average load
  // (busy groups) or more idle CPUs (groups with spare capacity); ties keep the earlier group.
  static constexpr bool pick_idlest(const fork_group_stats& idlest, const fork_group_stats& s) noexcept {
    if (s.type < idlest.type) return true;
    if (s.type > idlest.type) return false;
    if (s.type == fork_group_stats::has_spare) return idlest.idle_cpus < s.idle_cpus;
    return idlest.avg_load > s.avg_load;
  }
};

}  // namespace numaplace
