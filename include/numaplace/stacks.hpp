#pragma once
// Named stacks: the kernels of the seeds as policy lists, side by side, each listing every rule
// it follows, its settling rule included (a stack that names none does not settle); the
// variants are derived with stack.hpp's extend. The registry is a hana::map keyed by
// compile-time strings, so the CLI, the benchmarks and the simulator list and select stacks by
// their run-time name without a hand-written table.

#include <boost/hana/first.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/map.hpp>
#include <boost/hana/pair.hpp>
#include <boost/hana/second.hpp>
#include <boost/hana/string.hpp>
#include <boost/hana/type.hpp>

#include <string_view>
#include <utility>

#include "placement.hpp"
#include "policy/arithmetic.hpp"
#include "policy/capacity_check.hpp"
#include "policy/fault_scoring.hpp"
#include "policy/fork_placement.hpp"
#include "policy/group_preferred_pull.hpp"
#include "policy/imbalance_adjustment.hpp"
#include "policy/page_migration.hpp"
#include "policy/neighbour_weighting.hpp"
#include "policy/numa_core.hpp"
#include "policy/page_placement_only.hpp"
#include "policy/preferred_settling.hpp"
#include "policy/scan_pacing.hpp"
#include "policy/shared_interleave.hpp"
#include "policy/task_migration.hpp"
#include "stack.hpp"
#include "topology/kinded_topology.hpp"

namespace numaplace {

namespace stacks {

// Each stack lists its placement rules, then its balancing loop: the scan pace, page
// migration, task_numa_migrate and fork placement of its kernel (the roles of policy/hooks.hpp;
// a stack that names none for a role gets 6.1's, policy/default_roles.hpp).

/// Linux 3.8 to 3.12, balancenuma (Mel Gorman's series as merged in v3.8): a page moves to the
/// node of the task that faults on it twice in a row from there (rate-limited), and nothing
/// moves tasks towards their memory; the scan slows by 10 ms per fault that moves nothing and
/// returns to its fastest every minute. kernel_numa_migration<3, 8> is there for fork
/// placement's imbalance_pct alone: with no preferred node, task_numa_migrate never runs.
using linux_3_8 = stack<kernel_era::v3_19, page_placement_only, scan_pacing<scan_pacing_rule::v3_8>,
                        page_migration<page_migration_rule::v3_8>, kernel_numa_migration<3, 8>,
                        fork_placement<fork_placement_rule::v3_8>>;

/// Linux 3.13 and 3.14: the first task placement (Mel Gorman's "Basic scheduler support for
/// automatic NUMA balancing", v3.13) before Rik van Riel's pseudo-interleaving (v3.15): every
/// page that passes the two-stage filter migrates, shared or not, and a task that moved makes
/// the node it moved to its preferred one. task_numa_migrate() as v4.1's rule (v3.13's differs
/// in details not modelled).
using linux_3_13 = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_13>, preferred_settling<settle_rule::v3_13>,
                         scan_pacing<scan_pacing_rule::v3_13>, page_migration<page_migration_rule::v3_13>,
                         kernel_numa_migration<3, 13>, fork_placement<fork_placement_rule::v3_8>>;

/// Before seed 000 (v3.18): plain fault maxima, task and group combined when they disagree.
using vanilla = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_13>, preferred_settling<settle_rule::v3_15>,
                      scan_pacing<scan_pacing_rule::v3_17>, page_migration<page_migration_rule::v3_15>,
                      kernel_numa_migration<3, 18>, fork_placement<fork_placement_rule::v3_8>>;

/// Seed 000 patches 1-2 (on v3.18): the maximum distance stored and nearby nodes weighed.
using patches_1_2 = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_13>, neighbour_weighting<nearby_rule::v3_19>,
                          preferred_settling<settle_rule::v3_15>, scan_pacing<scan_pacing_rule::v3_17>,
                          page_migration<page_migration_rule::v3_15>, kernel_numa_migration<3, 18>,
                          fork_placement<fork_placement_rule::v3_8>>;

/// Seed 000 patches 1-4 (on v3.18): also a group's preferred node, towards which its tasks
/// are pulled.
using patches_1_4 =
    stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>, neighbour_weighting<nearby_rule::v3_19>,
          group_preferred_pull<group_rule::v3_19>, preferred_settling<settle_rule::v3_15>,
          scan_pacing<scan_pacing_rule::v3_17>, page_migration<page_migration_rule::v3_15>, kernel_numa_migration<3, 18>,
          fork_placement<fork_placement_rule::v3_8>>;

/// Linux 4.1: patches 1-4 as merged, numa_has_capacity() without the imbalance margin.
using linux_4_1 = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>, neighbour_weighting<nearby_rule::v3_19>,
                        group_preferred_pull<group_rule::v3_19>, capacity_check<capacity_rule::v4_1>,
                        preferred_settling<settle_rule::v3_15>, scan_pacing<scan_pacing_rule::v4_0>,
                        page_migration<page_migration_rule::v3_15>, kernel_numa_migration<4, 1>,
                        fork_placement<fork_placement_rule::v3_8>>;

/// Linux 4.2: patches 1-4 as merged, with seed 001's fixes: numa_has_capacity() with the
/// imbalance margin, and the preferred node settled even when no better CPU was found.
using linux_4_2 = stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>, neighbour_weighting<nearby_rule::v3_19>,
                        group_preferred_pull<group_rule::v3_19>, capacity_check<capacity_rule::v4_2>,
                        preferred_settling<settle_rule::v4_2>, scan_pacing<scan_pacing_rule::v4_2>,
                        page_migration<page_migration_rule::v3_15>, kernel_numa_migration<4, 2>,
                        fork_placement<fork_placement_rule::v3_8>>;

/// Linux 4.19-rc5, the baseline of Mel Gorman's "Faster migration for automatic NUMA
/// balancing" (lkml, 1 Oct 2018; "numab" in its tables): Srikar Dronamraju's v4.19 rework of
/// task_numa_migrate and the preferred node in, the page migration rate limit still on, and
/// the two-stage filter alone deciding early faults. No NUMA allowance in the balancer yet.
using linux_4_19_rc5 =
    stack<kernel_era::v4_16, fault_scoring<preferred_rule::v4_19>, neighbour_weighting<nearby_rule::v4_19>,
          group_preferred_pull<group_rule::v3_19>, preferred_settling<settle_rule::v4_19>,
          scan_pacing<scan_pacing_rule::v4_14>, page_migration<page_migration_rule::v4_6, migrate_limit::ratelimit>,
          kernel_numa_migration<4, 19>, fork_placement<fork_placement_rule::v4_17>>;

/// 4.19-rc5 with the first of those two patches alone: efaffc5e40ae removes the rate limit
/// ("noratelimit" in its table). 37355bdc5a12 alone is
/// `replace<linux_4_19_rc5, page_migration<page_migration_rule::v4_6, migrate_limit::ratelimit>,
/// page_migration<page_migration_rule::v4_19, migrate_limit::ratelimit>>`.
using linux_4_19_rc5_noratelimit =
    replace<linux_4_19_rc5, page_migration<page_migration_rule::v4_6, migrate_limit::ratelimit>,
            page_migration<page_migration_rule::v4_6, migrate_limit::none>>;

/// Linux 4.19 as released: both patches, the rate limit gone and private faults migrating at
/// once early in a task's life (37355bdc5a12; "fastmigrate" in the table).
using linux_4_19 = replace<linux_4_19_rc5, page_migration<page_migration_rule::v4_6, migrate_limit::ratelimit>,
                           page_migration<page_migration_rule::v4_19>>;

/// Linux 5.5: Vincent Guittot's reworked load balancer (0b0695f2b34a: group types, spare
/// capacity balanced by idle CPUs) and find_idlest_group() (57abff067a08), with no NUMA
/// allowance at all; task_numa_migrate as v4.19's.
using linux_5_5 = stack<kernel_era::v5_10, fault_scoring<preferred_rule::v4_19>, neighbour_weighting<nearby_rule::v4_19>,
                        group_preferred_pull<group_rule::v3_19>, imbalance_adjustment<imbalance_rule::v5_5>,
                        preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
                        page_migration<page_migration_rule::v4_19>, kernel_numa_migration<5, 5>,
                        fork_placement<fork_placement_rule::v5_5>>;

/// Linux 5.6: b396f52326de ("sched/fair: Allow a small load imbalance between low utilisation
/// SD_NUMA domains"): the load balancer forgives an imbalance while the busiest node runs at
/// most two tasks; task_numa_migrate does not ask yet (it does from v5.7: linux-5.9).
using linux_5_6 = replace<linux_5_5, imbalance_adjustment<imbalance_rule::v5_5>, imbalance_adjustment<imbalance_rule::v5_7>>;

/// Linux 5.9: source-based imbalance allowance (before seed 004); settling as since v4.19.
using linux_5_9 = stack<kernel_era::v5_10, fault_scoring<preferred_rule::v4_19>, neighbour_weighting<nearby_rule::v4_19>,
                        group_preferred_pull<group_rule::v3_19>, imbalance_adjustment<imbalance_rule::v5_7>,
                        preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
                        page_migration<page_migration_rule::v4_19>, kernel_numa_migration<5, 9>,
                        fork_placement<fork_placement_rule::v5_5>>;

/// Linux 5.10: one fault maximum, the hop-limit fix, and seed 004's destination-based imbalance.
using linux_5_10 = stack<kernel_era::v5_10, fault_scoring<preferred_rule::v4_19>, neighbour_weighting<nearby_rule::v4_19>,
                         group_preferred_pull<group_rule::v3_19>, imbalance_adjustment<imbalance_rule::v5_10>,
                         preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
                         page_migration<page_migration_rule::v4_19>, kernel_numa_migration<5, 10>,
                         fork_placement<fork_placement_rule::v5_5>>;

/// Linux 5.17: v5.11's floating allowance, forgiven while the busiest node (the load balancer)
/// or the parent node (fork) runs under 25 % of its CPUs, of the whole NUMA domain's at fork
/// (7d2b5dd0bcc4, v5.11); otherwise as 5.10.
using linux_5_17 = stack<kernel_era::v5_10, fault_scoring<preferred_rule::v4_19>, neighbour_weighting<nearby_rule::v4_19>,
                         group_preferred_pull<group_rule::v3_19>, imbalance_adjustment<imbalance_rule::v5_11>,
                         preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
                         page_migration<page_migration_rule::v4_19>, kernel_numa_migration<5, 17>,
                         fork_placement<fork_placement_rule::v5_11>>;

/// Linux 5.18 (and 5.19): the allowance becomes sd->imb_numa_nr (e496132ebedd; a quarter of
/// the CPUs of a node that is one LLC, an eighth from v6.0), and CPU-less nodes leave the
/// distance levels and the scoring.
using linux_5_18 =
    stack<kernel_era::modern, fault_scoring<preferred_rule::v5_18>, neighbour_weighting<nearby_rule::v5_18>,
          group_preferred_pull<group_rule::v5_18>, imbalance_adjustment<imbalance_rule::v5_18>,
          preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
          page_migration<page_migration_rule::v4_19>, kernel_numa_migration<5, 18>, fork_placement<fork_placement_rule::v5_18>>;

/// What Debian's 6.1 kernel does: CPU-less nodes ignored, imb_numa_nr allowance. The default.
using linux_modern =
    stack<kernel_era::modern, fault_scoring<preferred_rule::v5_18>, neighbour_weighting<nearby_rule::v5_18>,
          group_preferred_pull<group_rule::v5_18>, imbalance_adjustment<imbalance_rule::v5_19>,
          preferred_settling<settle_rule::v4_19>, scan_pacing<scan_pacing_rule::v4_14>,
          page_migration<page_migration_rule::v4_19>, kernel_numa_migration<6, 1>, fork_placement<fork_placement_rule::v6_0>>;

/// Linux 6.12 (checked against Debian's 6.12.118): 6.1's decisions over the scan of 6.4-6.11,
/// which skips VMAs by their own history and by the thread that scans (scan_pacing_rule::v6_11,
/// policy/vma_scan.hpp).
using linux_6_12 = replace<linux_modern, scan_pacing<scan_pacing_rule::v4_14>, scan_pacing<scan_pacing_rule::v6_11>>;

/// Linux 7.x (checked against Debian's 7.3.4): 6.12, save that task_numa_compare() takes a
/// kernel thread or a task without mm on the destination CPU for no task (a move target, never
/// a swap partner; task_migration_rule::v6_17).
using linux_7_x = replace<linux_6_12, kernel_numa_migration<6, 1>, kernel_numa_migration<7, 3>>;

/// linux-modern whose shared groups interleave their memory over the nodes they use (seed 003).
using shared_interleave = extend<linux_modern, numaplace::shared_interleave>;

/// linux-modern with scores that saturate instead of wrapping (policy/arithmetic.hpp).
using linux_modern_safe = extend<linux_modern, overflow_safe>;

/// Seed 003's kernel without its patch: Ingo Molnar's numa/core v17 (tip, on v3.7, 22 Nov
/// 2012) up to patch 32/33. Shared tasks compress towards the node with most buddies that is
/// not full (sched_update_ideal_cpu_shared()), private tasks spread to idle nodes
/// (sched_update_ideal_cpu_private()), and get there by an active migration
/// (sched_rebalance_to()), not task_numa_migrate(). Its scan pace, page migration and fork
/// placement are the nearest this library has (v3.13's scan period, v3.8's two-fault page
/// filter, v3.8's fork balancing): numa/core's own are not modelled. The seed says this kernel
/// "would regress compared to mainline" on its 4x JVM run.
using numa_core = stack<kernel_era::v3_19, numa_core_placement, scan_pacing<scan_pacing_rule::v3_13>,
                        page_migration<page_migration_rule::v3_8>, numa_core_migration, fork_placement<fork_placement_rule::v3_8>>;

/// Seed 003 itself: numa/core v17 with patch 33/33, "sched: Track shared task's node groups
/// and interleave their memory allocations" (22 Nov 2012): a shared task's memory interleaves
/// over the nodes that run it or its buddies.
using numa_core_interleave = extend<numa_core, numaplace::numa_core_interleave>;

}  // namespace stacks

/// Every named stack, by the name the command line uses.
inline auto named_stacks() {
  namespace hana = boost::hana;
  return hana::make_map(hana::make_pair(BOOST_HANA_STRING("linux-3.8"), hana::type_c<stacks::linux_3_8>),
                        hana::make_pair(BOOST_HANA_STRING("linux-3.13"), hana::type_c<stacks::linux_3_13>),
                        hana::make_pair(BOOST_HANA_STRING("vanilla"), hana::type_c<stacks::vanilla>),
                        hana::make_pair(BOOST_HANA_STRING("patches-1-2"), hana::type_c<stacks::patches_1_2>),
                        hana::make_pair(BOOST_HANA_STRING("patches-1-4"), hana::type_c<stacks::patches_1_4>),
                        hana::make_pair(BOOST_HANA_STRING("linux-4.1"), hana::type_c<stacks::linux_4_1>),
                        hana::make_pair(BOOST_HANA_STRING("linux-4.2"), hana::type_c<stacks::linux_4_2>),
                        hana::make_pair(BOOST_HANA_STRING("linux-4.19-rc5"), hana::type_c<stacks::linux_4_19_rc5>),
                        hana::make_pair(BOOST_HANA_STRING("linux-4.19-rc5-noratelimit"),
                                        hana::type_c<stacks::linux_4_19_rc5_noratelimit>),
                        hana::make_pair(BOOST_HANA_STRING("linux-4.19"), hana::type_c<stacks::linux_4_19>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.5"), hana::type_c<stacks::linux_5_5>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.6"), hana::type_c<stacks::linux_5_6>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.9"), hana::type_c<stacks::linux_5_9>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.10"), hana::type_c<stacks::linux_5_10>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.17"), hana::type_c<stacks::linux_5_17>),
                        hana::make_pair(BOOST_HANA_STRING("linux-5.18"), hana::type_c<stacks::linux_5_18>),
                        hana::make_pair(BOOST_HANA_STRING("linux-modern"), hana::type_c<stacks::linux_modern>),
                        hana::make_pair(BOOST_HANA_STRING("linux-6.12"), hana::type_c<stacks::linux_6_12>),
                        hana::make_pair(BOOST_HANA_STRING("linux-7.x"), hana::type_c<stacks::linux_7_x>),
                        hana::make_pair(BOOST_HANA_STRING("shared-interleave"), hana::type_c<stacks::shared_interleave>),
                        hana::make_pair(BOOST_HANA_STRING("linux-modern-safe"), hana::type_c<stacks::linux_modern_safe>),
                        hana::make_pair(BOOST_HANA_STRING("numa-core"), hana::type_c<stacks::numa_core>),
                        hana::make_pair(BOOST_HANA_STRING("numa-core-interleave"),
                                        hana::type_c<stacks::numa_core_interleave>));
}

inline constexpr std::string_view default_stack_name = "linux-modern";

/// Calls `f(name, hana::type_c<Stack>)` for every named stack, in declaration order.
template <class F>
void for_each_stack(F&& f) {
  boost::hana::for_each(named_stacks(), [&](auto pair) {
    f(std::string_view(boost::hana::to<const char*>(boost::hana::first(pair))), boost::hana::second(pair));
  });
}

/// Calls `f(hana::type_c<Stack>)` for the stack called `name`; false when there is none.
template <class F>
bool with_stack(std::string_view name, F&& f) {
  bool found = false;
  for_each_stack([&](std::string_view n, auto type) {
    if (!found && n == name) {
      found = true;
      f(type);
    }
  });
  return found;
}

/// Builds `Stack`'s placement for topology `t` (classified as Stack's kernel era sees it) and
/// calls `f(placement)`: the kind is branched on here, once, never inside decisions.
template <class Stack, cached_facts T, class F>
decltype(auto) with_placement(const T& t, F&& f) {
  return visit_kind(t, Stack::era, [&](const auto& view) -> decltype(auto) {
    const typename Stack::template placement_type<std::decay_t<decltype(view)>> pl(view);
    return f(pl);
  });
}

/// with_placement for `Stack` with its decisions traced: builds the placement of
/// extend<Stack, traced_by<Trace>> for `t`, recording into `trace`, and calls `f(placement)`.
template <class Stack, cached_facts T, class Trace, class F>
decltype(auto) with_traced_placement(const T& t, Trace& trace, F&& f) {
  using traced = extend<Stack, traced_by<Trace>>;
  return visit_kind(t, Stack::era, [&](const auto& view) -> decltype(auto) {
    const typename traced::template placement_type<std::decay_t<decltype(view)>> pl(view, trace);
    return f(pl);
  });
}

/// with_stack, then with_placement: builds the placement of the stack called `name` for `t`
/// and calls `f(placement)`; false, without calling `f`, when no stack has that name. `f` is
/// instantiated for every named stack and kind, so it returns nothing: it writes its result.
template <cached_facts T, class F>
bool with_named_placement(std::string_view name, const T& t, F&& f) {
  return with_stack(name, [&](auto type) { with_placement<typename decltype(type)::type>(t, f); });
}

}  // namespace numaplace
