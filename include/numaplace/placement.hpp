#pragma once
// placement<Topology, Policies...>: the composer.
//
// A placement binds a kinded topology (its kind is a compile-time constant) to a list of
// policy classes. Boost.Hana filters the list at compile time (a policy whose
// applies_to<Kind> is false is dropped, so on a direct topology neighbour weighting and group
// narrowing are not even instantiated) and combines each hook over the remaining policies by
// the hook's rule (policy/hooks.hpp is the table; each method below is one call through it).
// A placement whose stack breaks a rule does not compile. Policies that need precomputed facts
// (node groups per level, say) take the topology in their constructor; decisions then only read.
//
// Decisions are noexcept, allocate nothing and mutate nothing: one placement may be shared
// by any number of threads, each deciding for its own task. Building a placement allocates.

#include <boost/hana/at.hpp>
#include <boost/hana/filter.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "policy/default_roles.hpp"
#include "policy/hooks.hpp"
#include "policy/inputs.hpp"
#include "policy/trace.hpp"
#include "stats/fault_view.hpp"
#include "topology/kinded_topology.hpp"
#include "topology/types.hpp"

namespace numaplace {

namespace detail {

namespace hana = boost::hana;

// The policies of Ps... that take part on kind K, as a hana::tuple of hana::type_c.
template <numa_kind K, class... Ps>
constexpr auto active_policies() {
  return hana::filter(hana::tuple_t<Ps...>,
                      [](auto t) { return hana::bool_c<policy_applies<typename decltype(t)::type, K>()>; });
}

// The same as a hana::tuple of policy instances.
template <numa_kind K, class... Ps>
using active_policy_tuple =
    typename decltype(hana::unpack(active_policies<K, Ps...>(), hana::template_<hana::tuple>))::type;

// A policy built from the topology when it wants to precompute, default-built otherwise.
template <class P, class View>
P make_policy(const View& view) {
  if constexpr (std::is_constructible_v<P, const View&>) {
    return P(view);
  } else {
    return P();
  }
}

// Whether policy P reads decision_input::buddies (declares `static constexpr bool
// reads_buddies = true`, as numa_core_placement does).
template <class P>
inline constexpr bool policy_reads_buddies = requires { requires P::reads_buddies; };

// The trace a stack records into: traced_by<Trace>'s Trace, else no_trace.
template <class... Ps>
struct trace_of {
  using type = no_trace;
};
template <class P, class... Ps>
struct trace_of<P, Ps...> : trace_of<Ps...> {};
template <class Trace, class... Ps>
struct trace_of<traced_by<Trace>, Ps...> {
  using type = Trace;
};

// Whether policy P keeps tasks out of numa_groups (declares `static constexpr bool
// forms_groups = false`, as page_placement_only does for v3.8).
template <class P>
inline constexpr bool policy_forgoes_groups = requires { requires !P::forms_groups; };

}  // namespace detail

template <class View, class... Policies>
class placement {
  using policy_tuple = detail::active_policy_tuple<View::kind, Policies...>;

 public:
  using topology_type = View;
  static constexpr numa_kind kind = View::kind;
  /// What decisions record their steps into (policy/trace.hpp): no_trace unless the stack
  /// lists traced_by<Trace>.
  using trace_type = typename detail::trace_of<Policies...>::type;
  static constexpr bool traced = traces<trace_type>;
  /// kernel_arithmetic (wrapping, as the kernel) unless the stack has overflow_safe.
  using arithmetic = hooks::chosen_t<hooks::arithmetic, policy_tuple>;

  /// A node's faults, shared plus private, in the stack's arithmetic.
  static constexpr std::uint64_t faults_on(const fault_view& f, std::size_t node) noexcept {
    return arithmetic::add(f.memory[2 * node], f.memory[2 * node + 1]);
  }

  explicit placement(const View& view)
    requires(!traced)
      : view_(view), policies_(make_policies(view)) {
    hooks::check_every_rule<placement, policy_tuple>();
  }

  /// A traced placement: its decisions record their steps into `trace`, which must outlive it.
  placement(const View& view, trace_type& trace)
    requires traced
      : view_(view), policies_(make_policies(view)), trace_(&trace) {
    hooks::check_every_rule<placement, policy_tuple>();
  }

  /// Where policies record their steps: the placement's trace, or a no_trace that keeps none.
  decltype(auto) trace() const noexcept {
    if constexpr (traced) {
      return *trace_;
    } else {
      return no_trace{};
    }
  }

  const View& topology() const noexcept { return view_; }
  std::size_t node_count() const noexcept { return view_.node_count(); }

  /// How many of the listed policies take part on this kind (for tests and `explain`).
  static constexpr std::size_t active_policy_count() noexcept {
    // From the type alone: a policy may hold a std::vector, which libc++ 14 cannot build
    // in a constant expression.
    return decltype(boost::hana::length(std::declval<const policy_tuple&>()))::value;
  }

  /// task_numa_placement(): the node the task should prefer, or no_node when its faults give
  /// no answer (the kernel then leaves numa_preferred_nid as it was) or when the input's spans
  /// do not match the topology's node count.
  node_index preferred_node(const decision_input& in) const noexcept {
    // Complex kinds read neighbours' faults by topology index: refuse views of another size.
    // The direct path only reads within the view's own span, so it needs no check.
    if constexpr (kind != numa_kind::direct) {
      if (!fits(in)) return no_node;
    }
    const node_index nid = hooks::combine<hooks::select_preferred>(*this, policies_, in);
    if (nid == no_node) return nid;
    return hooks::combine<hooks::refine_preferred>(*this, policies_, nid, in);
  }

  /// Whether every span of `in` has one entry pair per node of the topology (cpu may be empty).
  bool fits(const decision_input& in) const noexcept {
    const auto fits_view = [&](const fault_view& f) {
      return f.memory.size() == 2 * node_count() && (f.cpu.empty() || f.cpu.size() == f.memory.size());
    };
    return fits_view(in.task) && (!in.has_group() || fits_view(in.group));
  }

  /// preferred_group_nid(): the group's node, starting from the node with its most faults.
  /// Identity when no policy narrows (always so on direct topologies).
  node_index group_node(const decision_input& in, node_index nid) const noexcept {
    return hooks::combine<hooks::choose_group_node>(*this, policies_, nid, in);
  }

  /// preferred_group_nid() on the group's fault maximum, `maximum()` (the preferred node it
  /// gives, no_node when every count is 0): in one pass with finding it where the stack's one
  /// narrowing policy can (hooks::narrow_from_faults), else group_node(in, maximum()).
  /// Precondition: in.has_group() and fits(in).
  template <class Maximum>
  [[gnu::always_inline]] node_index group_node_from_faults(const decision_input& in, const Maximum& maximum) const noexcept {
    if constexpr (hooks::provider_count<hooks::choose_group_node, placement, policy_tuple> == 1) {
      return hooks::combine<hooks::narrow_from_faults>(*this, policies_, in, maximum);
    } else {
      return hooks::narrow_from_faults::fallback(*this, in, maximum);
    }
  }

  /// score_nearby_nodes(): faults on nodes near `nid` as counted at hop limit `dist`.
  std::uint64_t score_nearby(const fault_view& faults, node_index nid, distance_t dist) const noexcept {
    return hooks::combine<hooks::score_nearby>(*this, policies_, faults, nid, dist);
  }

  /// task_weight() / group_weight(): per-mille share of the faults on and near `nid`, in the
  /// stack's arithmetic (the kernel's wraps); 0 when there are no faults or the total is 0.
  std::uint64_t weight(const fault_view& faults, node_index nid, distance_t dist) const noexcept {
    if (faults.empty() || faults.total == 0) return 0;
    return arithmetic::mul_div(arithmetic::add(faults_on(faults, nid), score_nearby(faults, nid, dist)), 1000,
                               faults.total);
  }
  std::uint64_t task_weight(const decision_input& in, node_index nid, distance_t dist) const noexcept {
    return weight(in.task, nid, dist);
  }
  std::uint64_t group_weight(const decision_input& in, node_index nid, distance_t dist) const noexcept {
    return weight(in.group, nid, dist);
  }

  /// Whether task_numa_migrate should look beyond the preferred node.
  bool scan_all_nodes(const decision_input& in) const noexcept {
    return hooks::combine<hooks::scan_all_nodes>(*this, policies_, in);
  }

  /// adjust_numa_imbalance(): the imbalance left after the stack's allowance (unchanged when
  /// the stack has no imbalance policy).
  long adjust_imbalance(const imbalance_args& args) const noexcept {
    return hooks::combine<hooks::adjust_imbalance>(*this, policies_, args);
  }

  /// The grouped task's preferred node after task_numa_migrate(): the stack's settling rule,
  /// or m.preferred unchanged when the stack names none (every kernel stack names its own).
  node_index settle_preferred(const decision_input& in, const migrate_outcome& m) const noexcept {
    return hooks::combine<hooks::settle_preferred>(*this, policies_, in, m);
  }

  /// The load balancer's view of the same allowance (unchanged without an imbalance policy).
  long adjust_balancer_imbalance(const balancer_args& args) const noexcept {
    return hooks::combine<hooks::adjust_balancer_imbalance>(*this, policies_, args);
  }

  /// Whether the stack has an imbalance policy (the balancer is NUMA-aware only then).
  static constexpr bool has_imbalance_policy() noexcept {
    return hooks::provided<hooks::adjust_imbalance, placement, policy_tuple>;
  }

  /// Whether the stack says how shared memory interleaves (else memory follows its faults).
  static constexpr bool has_interleave_policy() noexcept {
    return hooks::provided<hooks::interleave_nodes, placement, policy_tuple>;
  }

  /// Whether a policy reads decision_input::buddies (numa/core's buddy counts): callers that
  /// can count where a task's buddies run fill them only then.
  static constexpr bool reads_buddies() noexcept { return (detail::policy_reads_buddies<Policies> || ...); }

  /// Whether tasks that fault on each other's pages join one numa_group (task_numa_group(),
  /// v3.13 onwards): true unless a policy says its kernel had none.
  static constexpr bool forms_groups() noexcept { return !(detail::policy_forgoes_groups<Policies> || ...); }

  /// numa_has_capacity(): true unless a capacity policy refuses the move.
  bool has_capacity(const node_load& src, const node_load& dst) const noexcept {
    return hooks::combine<hooks::has_capacity>(*this, policies_, src, dst);
  }

  /// The nodes a shared group's memory should interleave over (out[n] for every node n).
  /// Without an interleave policy: only the group's (or task's) preferred node.
  void interleave_nodes(const decision_input& in, std::span<bool> out) const noexcept {
    return hooks::combine<hooks::interleave_nodes>(*this, policies_, in, out);
  }

  /// The balancing loop's policies: the stack's own, or 6.1's (policy/default_roles.hpp).
  /// The scan pace: task_scan_start/max, update_task_scan_period, the migrate retry interval.
  const auto& scan_pacing() const noexcept { return hooks::combine<hooks::scan_pacing>(*this, policies_); }
  /// Whether a hinting fault migrates its page (misplaced_target).
  const auto& page_migration() const noexcept { return hooks::combine<hooks::page_migration>(*this, policies_); }
  /// task_numa_migrate (decide over a machine_view).
  const auto& task_migration() const noexcept { return hooks::combine<hooks::task_migration>(*this, policies_); }
  /// Fork placement (select_fork_cpu over a machine_view).
  const auto& fork_placement() const noexcept { return hooks::combine<hooks::fork_placement>(*this, policies_); }

  /// The I-th policy that takes part on this kind.
  template <std::size_t I>
  const auto& policy() const noexcept {
    return policies_[boost::hana::size_c<I>];
  }

  /// Each policy that takes part, for introspection (`f(policy)` in stack order).
  template <class F>
  void for_each_policy(F&& f) const {
    boost::hana::for_each(policies_, std::forward<F>(f));
  }

 private:
  static policy_tuple make_policies(const View& view) {
    return boost::hana::unpack(detail::active_policies<kind, Policies...>(), [&](auto... types) {
      return policy_tuple(detail::make_policy<typename decltype(types)::type>(view)...);
    });
  }

  View view_;
  policy_tuple policies_;
  [[no_unique_address]] std::conditional_t<traced, trace_type*, no_trace> trace_{};
};

}  // namespace numaplace
