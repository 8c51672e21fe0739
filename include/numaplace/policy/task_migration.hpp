#pragma once
// task_migration<Rule>: task_numa_migrate() as a policy over a machine_view. A task away from
// its preferred node asks where it should run: a move to a CPU, a swap with the task running
// on one, or stick where it is; and what its preferred node becomes (the stack's settling).
// The caller applies the decision. Decisions allocate nothing and change nothing.
//
// The walk is the kernel's: the preferred node first (env.dist = its distance from the
// source); then, when nothing was found or the placement's scan_all_nodes() says the group
// spans nodes, every other node in index order whose task or group weight would improve, each
// at the distance from the source to the previously accepted destination (env.dst_nid, as
// the kernel reads it), a backplane recomputing the source weights when that distance
// changes. CPUs are tried in the view's cpus_of() order; ties go as the kernel's comparisons
// send them (e.g. v4.19 re-assigns each idle CPU of equal improvement: the last one wins).
//
// The placement is used only through task_weight, group_weight, has_capacity (numa_has_capacity,
// v4.1 rule only), adjust_imbalance (v5.7+), scan_all_nodes and settle_preferred, plus its
// `kind` (numa_kind::backplane recomputes). See load_imbalance.hpp for the optional view members.
//
// Parallel migrations to one CPU (rq->numa_migrate_on) are read through the view's optional
// numa_migrate_on(cpu) (numa_compare.hpp's numa_assign). Not modelled: exiting tasks, idle
// SMT cores (numa_idle_core), select_idle_sibling beyond the node (the node stands in for the
// LLC), and cpusets without an SD_NUMA domain (-EINVAL).

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <ranges>

#include "inputs.hpp"
#include "load_imbalance.hpp"
#include "loop_inputs.hpp"
#include "machine_view.hpp"
#include "numa_compare.hpp"
#include "preferred_settling.hpp"

namespace numaplace {

/// env.imbalance_pct = 100 + (sd->imbalance_pct - 100) / 2: 125 gave 112 until v5.10
/// lowered the domains' default to 117 (sched/fair: Reduce minimal imbalance threshold).
inline constexpr unsigned numa_imbalance_pct_before_v5_10 = 112;
inline constexpr unsigned numa_imbalance_pct_since_v5_10 = 108;

/// What task_numa_migrate() reads of the scheduler domains, and one loop detail.
struct migrate_params {
  unsigned imbalance_pct = numa_imbalance_pct_since_v5_10;
  /// sd->imb_numa_nr of the source's NUMA domain (v5.18+), unless the view has
  /// `int imb_numa_nr(node_index) const` (then that, for the source node).
  int imb_numa_nr = 1;
  /// v5.18+: other nodes are for_each_node_state(N_CPU), so a CPU-less node never becomes
  /// env.dst_nid (nor the node the next distance is read from); before: every online node.
  bool cpu_nodes_only = true;
};

/// The parameters of kernel `major.minor`'s task_numa_migrate (imb_numa_nr left at 1).
constexpr migrate_params migrate_params_for(unsigned major, unsigned minor) noexcept {
  const unsigned v = major * 100 + minor;
  migrate_params p;
  p.imbalance_pct = v >= 510 ? numa_imbalance_pct_since_v5_10 : numa_imbalance_pct_before_v5_10;
  p.cpu_nodes_only = v >= 518;
  return p;
}

/// The task_migration_rule of kernel `major.minor` (v4.1 for everything before v4.19).
constexpr task_migration_rule migrate_rule_for(unsigned major, unsigned minor) noexcept {
  const unsigned v = major * 100 + minor;
  return v >= 617   ? task_migration_rule::v6_17
         : v >= 600 ? task_migration_rule::v6_0
         : v >= 507 ? task_migration_rule::v5_7
         : v >= 419 ? task_migration_rule::v4_19
                    : task_migration_rule::v4_1;
}

template <task_migration_rule Rule>
struct task_migration {
  static constexpr task_migration_rule rule = Rule;
  migrate_params params{};

  /// task_numa_find_cpu() over env.dst_nid.
  template <machine_view M, class Placement>
  constexpr void find_cpu(const M& m, const Placement& pl, migrate_env& env, long taskimp, long groupimp) const {
    bool maymove = false;
    const long load = static_cast<long>(m.task_load(env.p));
    const auto move_balances = [&] {
      return !load_too_imbalanced<imbalance_test::v4_19>(static_cast<long>(env.src_stats.load) - load,
                                                         static_cast<long>(env.dst_stats.load) + load,
                                                         env.src_stats, env.dst_stats, env.imbalance_pct);
    };
    if constexpr (Rule == task_migration_rule::v4_19) maymove = move_balances();
    if constexpr (Rule >= task_migration_rule::v5_7) {
      if (env.dst_stats.node_type == numa_type::has_spare) {
        // Would the move cause an imbalance the load balancer would undo?
        imbalance_args a;
        a.src_running = static_cast<int>(env.src_stats.nr_running) - 1;
        a.dst_running = static_cast<int>(env.dst_stats.nr_running) + 1;
        a.imbalance = std::max(0, a.dst_running - a.src_running);
        a.dst_weight = static_cast<int>(env.dst_stats.weight);
        a.imb_numa_nr = env.imb_numa_nr;
        if (pl.adjust_imbalance(a) == 0) {
          maymove = true;
          if (env.dst_stats.idle_cpu != no_cpu) {  // an idle CPU, taken at once
            env.dst_cpu = env.dst_stats.idle_cpu;
            numa_assign<Rule>(m, env, no_task, 0);
            return;
          }
        }
      } else {
        maymove = move_balances();
      }
    }
    if (!m.allowed(env.p, env.dst_nid)) return;  // per CPU in the kernel; per node in a view
    for (auto c : m.cpus_of(env.dst_nid)) {
      env.dst_cpu = static_cast<cpu_index>(c);
      if (task_numa_compare<Rule>(m, pl, env, taskimp, groupimp, maymove)) break;
    }
  }

  /// task_numa_migrate() for task t.
  template <machine_view M, class Placement>
  constexpr migrate_decision decide(const M& m, const Placement& pl, task_index t) const {
    migrate_decision d;
    const auto src = static_cast<node_index>(m.task_node(t));
    const auto preferred = static_cast<node_index>(m.task_preferred(t));
    d.preferred_after = preferred;
    // numa_migrate_preferred(): nothing to do without a preferred node, or already on it.
    if (preferred == no_node || preferred == src || preferred >= m.node_count()) return d;

    migrate_env env;
    env.p = t;
    env.p_group = static_cast<group_index>(m.group_of(t));
    env.src_cpu = static_cast<cpu_index>(m.task_cpu(t));
    env.src_nid = src;
    env.imbalance_pct = params.imbalance_pct;
    env.imb_numa_nr = params.imb_numa_nr;
    if constexpr (requires { { m.imb_numa_nr(src) } -> std::convertible_to<int>; }) env.imb_numa_nr = m.imb_numa_nr(src);
    const decision_input in = input_of(m, t);
    const auto tw = [&](node_index n, distance_t dist) { return static_cast<long>(pl.task_weight(in, n, dist)); };
    const auto gw = [&](node_index n, distance_t dist) { return static_cast<long>(pl.group_weight(in, n, dist)); };
    const auto try_node = [&](long taskimp, long groupimp) {
      env.dst_stats = update_numa_stats(m, env.imbalance_pct, env.dst_nid, t);
      if constexpr (Rule == task_migration_rule::v4_1) {
        if (!pl.has_capacity(env.src_stats.as_node_load(), env.dst_stats.as_node_load())) return;
      }
      find_cpu(m, pl, env, taskimp, groupimp);
    };

    env.dst_nid = preferred;
    env.dist = static_cast<distance_t>(m.distance(src, preferred));
    distance_t dist = env.dist;
    long taskweight = tw(src, dist);
    long groupweight = gw(src, dist);
    env.src_stats = update_numa_stats(m, env.imbalance_pct, src);
    try_node(tw(preferred, dist) - taskweight, gw(preferred, dist) - groupweight);

    // Other nodes: nothing found on the preferred one, or the group spans several nodes.
    if (env.best_cpu == no_cpu || pl.scan_all_nodes(in)) {
      for (node_index nid = 0; nid < m.node_count(); ++nid) {
        if (nid == src || nid == preferred) continue;
        if (params.cpu_nodes_only && !machine_reads::has_cpus(m, nid)) continue;
        dist = static_cast<distance_t>(m.distance(src, env.dst_nid));  // the previous destination's
        if constexpr (requires { Placement::kind; }) {
          if (Placement::kind == numa_kind::backplane && dist != env.dist) {
            taskweight = tw(src, dist);
            groupweight = gw(src, dist);
          }
        }
        const long taskimp = tw(nid, dist) - taskweight;
        const long groupimp = gw(nid, dist) - groupweight;
        if (taskimp < 0 && groupimp < 0) continue;  // neither task nor group would gain
        env.dist = dist;
        env.dst_nid = nid;
        try_node(taskimp, groupimp);
      }
    }

    d.last_evaluated = env.dst_nid;
    d.improvement = env.best_imp;
    node_index moved_to = no_node;
    if (env.best_cpu != no_cpu) {
      d.cpu = env.best_cpu;
      d.swap_with = env.best_task;
      d.kind = env.best_task == no_task ? migrate_kind::move : migrate_kind::swap;
      moved_to = static_cast<node_index>(m.node_of_cpu(env.best_cpu));
    }
    d.preferred_after = pl.settle_preferred(in, migrate_outcome{preferred, src, env.dst_nid, moved_to});
    return d;
  }
};

/// task_migration as kernel `Major.Minor` has it: its rule and its parameters, as a type a
/// stack can list (a policy in a stack is default-constructed).
template <unsigned Major, unsigned Minor>
struct kernel_numa_migration : task_migration<migrate_rule_for(Major, Minor)> {
  constexpr kernel_numa_migration() noexcept { this->params = migrate_params_for(Major, Minor); }
};

}  // namespace numaplace
