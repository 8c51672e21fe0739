#pragma once
// The hook table: what a policy may declare, and how the composer (placement.hpp) combines it
// over a stack. A policy is a small, stateless-by-default class that opts into a hook by
// declaring the member function; each hook below is one entry with its detection, its default
// and its combining rule (policy/combining.hpp), laid out as Abseil's common_policy_traits and
// documented as sched_ext_ops documents its callbacks' defaults.
//
// The table depends on nothing concrete: it reads only the hooks' inputs (inputs.hpp,
// loop_inputs.hpp, stats/fault_view.hpp), views (machine_view.hpp) and the trace decisions
// record into (trace.hpp). The one default that
// is a policy, 6.1's for each balancing-loop role, is policy/default_roles.hpp's, which the
// composer includes.
//
// Every hook is const, noexcept, allocates nothing and mutates nothing. `pl` is the composed
// placement, so a hook may call back into it (pl.topology(), pl.fits(in), pl.group_weight(...),
// pl.preferred_node(...)), but not into the placement method that is calling it.
//
//   hook                                                 rule         default
//   select_preferred(pl, in) -> node_index               exactly_one  none: a compile error
//   refine_preferred(pl, in, nid) -> node_index          in_order     nid
//   choose_group_node(pl, in, nid) -> node_index         in_order     nid
//   score_nearby(pl, faults, nid, dist) -> uint64_t      sum          0
//   scan_all_nodes(pl, in) -> bool                       any          false
//   has_capacity(src, dst) -> bool                       all          true
//   adjust_imbalance(imbalance_args) -> long             at_most_one  the imbalance unchanged
//   adjust_balancer_imbalance(balancer_args) -> long     at_most_one  the imbalance unchanged
//   settle_preferred(pl, in, migrate_outcome) -> node    at_most_one  the preferred node unchanged
//   interleave_nodes(pl, in, std::span<bool> out)        at_most_one  the preferred node alone
//   narrow_from_faults(pl, in, maximum) -> node_index    at_most_one  pl.group_node(in, maximum())
//   using arithmetic = ...;   (a type)                   at_most_one  kernel_arithmetic
//   the balancing loop's roles, each handing back its policy:
//     scan_pacing(pl), page_migration(pl),               at_most_one  6.1's policy each
//     task_migration(pl), fork_placement(pl)                          (policy/default_roles.hpp)
//   template <numa_kind K> static constexpr bool applies_to;   default true; false drops the
//                                                      policy from placements on K (no code)
//
// Rules are counted over the policies that take part on the placement's kind, and checked when
// a placement is built (and again by the method that combines the hook): a stack that breaks
// one does not compile, and the diagnostic names the rule and the hook.
//
// Read by runtimes from the policy itself, not combined by the composer:
//   node_index spread_target(pl, from, running_per_node, cpus_per_node) const   concentric_spread
//
// Adding a hook (say, for fork placement):
//   1. Write its entry below, a struct named as the member function: `rule`, `provided_by`
//      (the detecting requires-expression), `call` (forwards to the policy's member) and,
//      unless in_order, `fallback` (the default; the start of sum, any and all). Document it
//      as the others: what it decides after which kernel function, REQUIRED or OPTIONAL with
//      its default, pre- and postconditions.
//   2. Name it in `table` at the end of this header.
//   3. Add its placement method, one line (for in_order, the value being refined first):
//        R NAME(args) const noexcept { return hooks::combine<hooks::NAME>(*this, policies_, args...); }
//   4. Test the rule in test/policy/hooks_test.cpp with two small policies.
// Choosing the rule: a decision the kernel makes by one rule per version (a CPU choice, a scan
// period, whether a page migrates) is at_most_one, with a default that is what a stack without
// the feature does; exactly_one breaks every stack that lacks a provider, so keep it for what no
// stack can do without; in_order for refinements of a value; sum, any or all for votes.

#include <boost/hana/for_each.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <span>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"
#include "arithmetic.hpp"
#include "combining.hpp"
#include "inputs.hpp"
#include "loop_inputs.hpp"
#include "machine_view.hpp"
#include "trace.hpp"

namespace numaplace {

/// Whether policy `P` takes part in placements on topologies of kind `K`.
template <class P, numa_kind K>
constexpr bool policy_applies() {
  if constexpr (requires { P::template applies_to<K>; }) {
    return P::template applies_to<K>;
  } else {
    return true;
  }
}

namespace hooks {

/// The detecting concept of every hook: whether policy `P` provides `Hook` in a placement of
/// type `Placement` (e.g. `hooks::provides<my_policy, hooks::interleave_nodes, Pl>`).
template <class P, class Hook, class Placement>
concept provides = Hook::template provided_by<P, Placement>;

/// select_preferred(pl, in): task_numa_placement()'s base choice of the node the task should
/// prefer, from its faults (or its group's, by the policy's kernel rule).
///   REQUIRED (exactly_one): a stack without one, or with two, does not compile.
///   Precondition: on complex kinds pl.fits(in) (the placement checks first).
///   Postcondition: a node below pl.node_count(), or no_node when the faults give no answer
///   (the kernel then keeps numa_preferred_nid).
struct select_preferred {
  static constexpr combining rule = combining::exactly_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in) {
    { p.select_preferred(pl, in) } -> std::same_as<node_index>;
  };
  static node_index call(const auto& p, const auto& pl, const decision_input& in) noexcept {
    return p.select_preferred(pl, in);
  }
  // Never called: a stack without a provider does not compile, and this keeps its diagnostic
  // to the rule's alone.
  static node_index fallback(const auto&, const decision_input&) noexcept { return no_node; }
};

/// refine_preferred(pl, in, nid): a last word on the chosen node, for runtimes' own rules
/// (examples/custom_policy keeps tasks off node 0); no kernel stack has one.
///   OPTIONAL (in_order): defaults to nid unchanged. Called only when select_preferred gave a
///   node; each provider sees the previous one's answer.
///   Postcondition: a node below pl.node_count(), or no_node.
struct refine_preferred {
  static constexpr combining rule = combining::in_order;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in,
                                               node_index nid) { p.refine_preferred(pl, in, nid); };
  static node_index call(const auto& p, const auto& pl, node_index nid, const decision_input& in) noexcept {
    return p.refine_preferred(pl, in, nid);
  }
};

/// choose_group_node(pl, in, nid): preferred_group_nid() (v3.19+), the group's node starting
/// from the node with its most faults.
///   OPTIONAL (in_order): defaults to nid unchanged (no narrowing: always so on direct kinds).
///   Precondition: in.has_group(), nid below pl.node_count().
///   Postcondition: a node below pl.node_count().
struct choose_group_node {
  static constexpr combining rule = combining::in_order;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in,
                                               node_index nid) { p.choose_group_node(pl, in, nid); };
  static node_index call(const auto& p, const auto& pl, node_index nid, const decision_input& in) noexcept {
    return p.choose_group_node(pl, in, nid);
  }
};

/// score_nearby(pl, faults, nid, dist): score_nearby_nodes() (v3.19+), the faults on nodes near
/// `nid` counted at hop limit `dist`.
///   OPTIONAL (sum, in the stack's arithmetic): defaults to 0 (no neighbour counts).
///   Precondition: faults has pl.node_count() nodes; nid below pl.node_count().
struct score_nearby {
  static constexpr combining rule = combining::sum;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const fault_view& f, node_index nid,
                                               distance_t dist) { p.score_nearby(pl, f, nid, dist); };
  static std::uint64_t call(const auto& p, const auto& pl, const fault_view& f, node_index nid,
                            distance_t dist) noexcept {
    return p.score_nearby(pl, f, nid, dist);
  }
  static std::uint64_t fallback(const auto&, const fault_view&, node_index, distance_t) noexcept { return 0; }
};

/// scan_all_nodes(pl, in): whether task_numa_migrate() also looks beyond the preferred node
/// (v3.19+: the group is active on several nodes).
///   OPTIONAL (any): defaults to false (the preferred node only).
struct scan_all_nodes {
  static constexpr combining rule = combining::any;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in) {
    p.scan_all_nodes(pl, in);
  };
  static bool call(const auto& p, const auto& pl, const decision_input& in) noexcept {
    return p.scan_all_nodes(pl, in);
  }
  static bool fallback(const auto&, const decision_input&) noexcept { return false; }
};

/// has_capacity(src, dst): numa_has_capacity() (v4.1..v4.18), whether `dst` may take a task
/// from `src`.
///   OPTIONAL (all): defaults to true (no capacity check, as before v4.1 and since v4.19).
struct has_capacity {
  static constexpr combining rule = combining::all;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const node_load& src, const node_load& dst) {
    p.has_capacity(src, dst);
  };
  static bool call(const auto& p, const auto&, const node_load& src, const node_load& dst) noexcept {
    return p.has_capacity(src, dst);
  }
  static bool fallback(const auto&, const node_load&, const node_load&) noexcept { return true; }
};

/// adjust_imbalance(a): adjust_numa_imbalance() (v5.7+), the imbalance task_numa_find_cpu()
/// leaves after the allowance for small imbalances. A stack without one is not NUMA-aware in
/// its load balancer (placement::has_imbalance_policy()).
///   OPTIONAL (at_most_one: each kernel has one rule; two would be no kernel's): defaults to
///   a.imbalance unchanged.
///   Postcondition: 0 <= result <= a.imbalance for a.imbalance >= 0.
struct adjust_imbalance {
  static constexpr combining rule = combining::at_most_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const imbalance_args& a) {
    { p.adjust_imbalance(a) } -> std::convertible_to<long>;
  };
  static long call(const auto& p, const auto& pl, const imbalance_args& a) noexcept {
    // A traced placement hands its trace to a rule that records (imbalance_adjustment does).
    if constexpr (requires { requires traces<decltype(pl.trace())>; p.adjust_imbalance(a, pl.trace()); }) {
      return p.adjust_imbalance(a, pl.trace());
    } else {
      return p.adjust_imbalance(a);
    }
  }
  static long fallback(const auto&, const imbalance_args& a) noexcept { return a.imbalance; }
};

/// adjust_balancer_imbalance(b): the same allowance as the load balancer's
/// calculate_imbalance() asks for it (v5.7+).
///   OPTIONAL (at_most_one, as adjust_imbalance): defaults to b.imbalance unchanged.
///   Postcondition: 0 <= result <= b.imbalance for b.imbalance >= 0.
struct adjust_balancer_imbalance {
  static constexpr combining rule = combining::at_most_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const balancer_args& b) {
    { p.adjust_balancer_imbalance(b) } -> std::convertible_to<long>;
  };
  static long call(const auto& p, const auto&, const balancer_args& b) noexcept {
    return p.adjust_balancer_imbalance(b);
  }
  static long fallback(const auto&, const balancer_args& b) noexcept { return b.imbalance; }
};

/// settle_preferred(pl, in, m): what a grouped task's preferred node becomes after
/// task_numa_migrate() (v3.13+; policy/preferred_settling.hpp has each kernel's rule, and
/// every kernel stack names its own).
///   OPTIONAL (at_most_one): defaults to m.preferred unchanged: no settling, the preferred node
///   stays as task_numa_placement() chose it. (v4.19's rule, which kernels still follow, is
///   preferred_settling<settle_rule::v4_19>; a stack that wants it lists it.)
///   Postcondition: a node below pl.node_count(), or m.preferred.
struct settle_preferred {
  static constexpr combining rule = combining::at_most_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in,
                                               const migrate_outcome& m) { p.settle_preferred(pl, in, m); };
  static node_index call(const auto& p, const auto& pl, const decision_input& in, const migrate_outcome& m) noexcept {
    return p.settle_preferred(pl, in, m);
  }
  static node_index fallback(const auto&, const decision_input&, const migrate_outcome& m) noexcept {
    return m.preferred;
  }
};

/// interleave_nodes(pl, in, out): the nodes a shared group's memory should interleave over
/// (seed 003; advice for an MPOL_INTERLEAVE mask, no kernel has it).
///   OPTIONAL (at_most_one): defaults to the preferred node alone (node-local allocation), no
///   node when there is none. placement::has_interleave_policy() tells the two apart.
///   Postcondition: every out[n] written; all false means no advice.
struct interleave_nodes {
  static constexpr combining rule = combining::at_most_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in,
                                               std::span<bool> out) { p.interleave_nodes(pl, in, out); };
  static void call(const auto& p, const auto& pl, const decision_input& in, std::span<bool> out) noexcept {
    p.interleave_nodes(pl, in, out);
  }
  static void fallback(const auto& pl, const decision_input& in, std::span<bool> out) noexcept {
    std::fill(out.begin(), out.end(), false);
    const node_index nid = pl.preferred_node(in);
    if (nid != no_node && nid < out.size()) out[nid] = true;
  }
};

/// narrow_from_faults(pl, in, maximum): preferred_group_nid() in the same pass that finds the
/// group's fault maximum (v5.18+ on glueless meshes, where every group weight comes from one
/// pass): maximum(), the preferred node from the group's fault maximum, is called only when
/// the policy needs it. select_preferred's grouped path asks for it (placement::
/// group_node_from_faults).
///   OPTIONAL (at_most_one): defaults to pl.group_node(in, maximum()), or no_node when
///   maximum() is no_node. A provider must also provide choose_group_node, and is asked only
///   while it is the stack's one choose_group_node provider: its answer then stands for the
///   whole in_order refinement.
///   Precondition: in.has_group() and pl.fits(in).
///   Postcondition: what group_node(in, maximum()) would answer.
struct narrow_from_faults {
  static constexpr combining rule = combining::at_most_one;
  using maximum_archetype = node_index (*)();
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const decision_input& in,
                                               maximum_archetype maximum, node_index nid) {
    { p.narrow_from_faults(pl, in, maximum) } -> std::same_as<node_index>;
    p.choose_group_node(pl, in, nid);
  };
  // Inlined into fault_scoring's select_preferred, as the provider's own narrow_from_faults is
  // (group_preferred_pull): a call here costs glueless decisions instructions.
  template <class Maximum>
  [[gnu::always_inline]] static node_index call(const auto& p, const auto& pl, const decision_input& in,
                                                const Maximum& maximum) noexcept {
    return p.narrow_from_faults(pl, in, maximum);
  }
  template <class Maximum>
  static node_index fallback(const auto& pl, const decision_input& in, const Maximum& maximum) noexcept {
    const node_index nid = maximum();
    return nid == no_node ? no_node : pl.group_node(in, nid);
  }
};

/// using arithmetic = ...: the arithmetic of fault sums and weights (policy/arithmetic.hpp);
/// a type, read when the placement type is formed.
///   OPTIONAL (at_most_one): defaults to kernel_arithmetic (wraps, as the kernel's ulong).
struct arithmetic {
  static constexpr combining rule = combining::at_most_one;
  template <class P, class Placement>
  static constexpr bool provided_by = requires { typename P::arithmetic; };
  template <class P>
  using type_of = typename P::arithmetic;
  using fallback_type = kernel_arithmetic;
};

// ---------------------------------------------------------------------------------------------
// The balancing loop's roles: the four policies that act over time rather than on one
// decision's faults. Each is a role that one policy of a stack fills as a whole (the scan pace
// is four related functions of one kernel era, not four separate choices), so each hook hands
// back the policy itself, and the caller asks it what it needs. A policy fills a role by
// having the role's members (detected as below); a user's own scan pace, say, needs
// task_scan_start, task_scan_max, update_task_scan_period, backs_off and migrate_retry_jiffies
// with scan_pacing's signatures.

/// The policy a stack that names none for loop role `Role` gets, as `role_default<Role>::policy`.
/// Declared here, specialized for each role by policy/default_roles.hpp (6.1's policies), so
/// that the table names no policy.
template <class Role>
struct role_default;

namespace detail {

/// The least machine_view, declared only: policies that read a view are detected against it.
struct machine_view_archetype {
  std::size_t node_count() const;
  distance_t distance(node_index, node_index) const;
  std::span<const cpu_index> cpus_of(node_index) const;
  node_index node_of_cpu(cpu_index) const;
  std::span<const task_index> tasks_on(cpu_index) const;
  cpu_index task_cpu(task_index) const;
  node_index task_node(task_index) const;
  node_index task_preferred(task_index) const;
  fault_view task_faults(task_index) const;
  fault_view group_faults(task_index) const;
  group_index group_of(task_index) const;
  bool allowed(task_index, node_index) const;
  std::uint64_t task_load(task_index) const;
};
static_assert(machine_view<machine_view_archetype>);

/// A role's hook: at_most_one, the provider itself or role_default<Role>'s policy.
template <class Role>
struct role {
  static constexpr combining rule = combining::at_most_one;
  static const auto& call(const auto& p, const auto&) noexcept { return p; }
  template <class Placement>
  static const auto& fallback(const Placement&) noexcept {
    return role_default<Role>::policy;
  }
};

}  // namespace detail

/// scan_pacing(pl): how fast the NUMA scanner walks a process's memory (task_scan_start,
/// task_scan_max, update_task_scan_period) and how often a task retries its preferred node
/// (numa_migrate_preferred's interval).
///   OPTIONAL (at_most_one): defaults to 6.1's, scan_pacing<scan_pacing_rule::v4_14> (v4.14..6.1).
struct scan_pacing : detail::role<scan_pacing> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const fault_window& w) {
    { p.task_scan_start(std::uint64_t{}, scan_tunables{}, scan_group{}) } -> std::convertible_to<unsigned>;
    { p.task_scan_max(std::uint64_t{}, scan_tunables{}, scan_group{}) } -> std::convertible_to<unsigned>;
    { p.update_task_scan_period(0u, 0u, 0u, 0u, w) } -> std::convertible_to<unsigned>;
    { p.migrate_retry_jiffies(0u) } -> std::convertible_to<unsigned long>;
    { p.backs_off(w) } -> std::convertible_to<bool>;
  };
};

/// page_migration(pl): whether a hinting fault moves the page to the faulting CPU's node
/// (mpol_misplaced and should_numa_migrate_memory), as misplaced_target(page, fault).
///   OPTIONAL (at_most_one): defaults to 6.1's, page_migration<page_migration_rule::v4_19>.
///   Postcondition of misplaced_target: the page's last cpupid records this fault.
struct page_migration : detail::role<page_migration> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, last_cpupid& page, const migrate_fault& f) {
    { p.misplaced_target(page, f) } -> std::same_as<node_index>;
  };
};

/// task_migration(pl): task_numa_migrate(), where a task away from its preferred node should
/// run, as decide(view, pl, task) over a machine_view.
///   OPTIONAL (at_most_one): defaults to 6.1's, task_migration<task_migration_rule::v6_0> with 6.1's
///   parameters.
struct task_migration : detail::role<task_migration> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const Placement& pl, const detail::machine_view_archetype& m,
                                               task_index t) {
    { p.decide(m, pl, t) } -> std::same_as<migrate_decision>;
  };
};

/// fork_placement(pl): find_idlest_group()'s NUMA level and find_idlest_group_cpu(), the CPU a
/// new task starts on, as select_fork_cpu(view, args, allowed).
///   OPTIONAL (at_most_one): defaults to 6.1's, fork_placement<fork_placement_rule::v6_0>.
struct fork_placement : detail::role<fork_placement> {
  template <class P, class Placement>
  static constexpr bool provided_by = requires(const P& p, const detail::machine_view_archetype& m,
                                               const fork_args& a) {
    { p.select_fork_cpu(m, a) } -> std::same_as<cpu_index>;
  };
};

/// Every hook the composer combines; a placement checks each one's rule when it is built.
inline constexpr auto table = boost::hana::tuple_t<select_preferred, refine_preferred, choose_group_node, score_nearby,
                                                   scan_all_nodes, has_capacity, adjust_imbalance,
                                                   adjust_balancer_imbalance, settle_preferred, interleave_nodes,
                                                   narrow_from_faults, arithmetic, scan_pacing, page_migration, task_migration,
                                                   fork_placement>;

/// Fails to compile when the policies of `Policies` (a hana::tuple) break a rule of the table.
template <class Placement, class Policies>
constexpr void check_every_rule() noexcept {
  boost::hana::for_each(table, [](auto hook) {
    using Hook = typename decltype(hook)::type;
    check_rule<Hook, provider_count<Hook, Placement, Policies>>();
  });
}

namespace detail {
template <class Hook, class Policies>
struct chosen_type {
  using type = typename Hook::fallback_type;
};
template <class Hook, class P, class... Ps>
struct chosen_type<Hook, boost::hana::tuple<P, Ps...>> {
  using type = typename chosen_type<Hook, boost::hana::tuple<Ps...>>::type;
};
template <class Hook, class P, class... Ps>
  requires(Hook::template provided_by<P, void>)
struct chosen_type<Hook, boost::hana::tuple<P, Ps...>> {
  using type = typename Hook::template type_of<P>;
};
}  // namespace detail

/// A type hook (arithmetic) over `Policies` (a hana::tuple): the provider's type, else the default.
template <class Hook, class Policies>
struct chosen {
  static_assert((check_rule<Hook, provider_count<Hook, void, Policies>>(), true));
  using type = typename detail::chosen_type<Hook, Policies>::type;
};
template <class Hook, class Policies>
using chosen_t = typename chosen<Hook, Policies>::type;

}  // namespace hooks
}  // namespace numaplace
