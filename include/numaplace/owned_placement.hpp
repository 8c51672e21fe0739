#pragma once
// owned_placement<Stack>: a placement a runtime can keep.
//
// with_placement() builds a placement as a local and hands it to a callback, so that every
// decision is compiled for the topology's kind; but a class cannot hold that placement as a
// member. owned_placement holds the topology and one placement per kind in a std::variant: a
// runtime class stores it, copies or moves it, and asks from any thread. Each decision costs
// one dispatch on the variant's index (a jump table); visit() enters the kinded placement
// once for a batch of decisions, which is with_placement's cost again.
//
// The topology is shared (a shared_ptr to const) because the kinded views inside the
// placement point at it: copies of an owned_placement share one immutable topology, and a
// move keeps the address the views hold.

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>

#include "placement.hpp"
#include "policy/inputs.hpp"
#include "stats/fault_view.hpp"
#include "topology/dynamic_topology.hpp"
#include "topology/kinded_topology.hpp"
#include "topology/types.hpp"

namespace numaplace {

namespace detail {

// Stack's placement over each kinded view of T: three kinds, with and without CPU-less nodes.
template <class Stack, class T>
using kinded_placements =
    std::variant<typename Stack::template placement_type<kinded_topology<T, numa_kind::direct, false>>,
                 typename Stack::template placement_type<kinded_topology<T, numa_kind::direct, true>>,
                 typename Stack::template placement_type<kinded_topology<T, numa_kind::glueless_mesh, false>>,
                 typename Stack::template placement_type<kinded_topology<T, numa_kind::glueless_mesh, true>>,
                 typename Stack::template placement_type<kinded_topology<T, numa_kind::backplane, false>>,
                 typename Stack::template placement_type<kinded_topology<T, numa_kind::backplane, true>>>;

}  // namespace detail

template <class Stack, cached_facts Topology = dynamic_topology>
class owned_placement {
  using variant_type = detail::kinded_placements<Stack, Topology>;

 public:
  using stack_type = Stack;
  using topology_type = Topology;
  static constexpr kernel_era era = Stack::era;

  /// Classifies `t` as Stack's era does and builds the placement of its kind.
  explicit owned_placement(Topology t) : owned_placement(std::make_shared<const Topology>(std::move(t))) {}

  /// The same over a topology already shared with others (it must not be null).
  explicit owned_placement(std::shared_ptr<const Topology> t)
      : topology_(std::move(t)), placement_(build(*topology_)) {}

  const Topology& topology() const noexcept { return *topology_; }
  /// The shared topology, for another owned_placement or a caller that keeps it.
  const std::shared_ptr<const Topology>& shared_topology() const noexcept { return topology_; }
  std::size_t node_count() const noexcept { return topology_->node_count(); }

  /// The kind the topology was classified as.
  numa_kind kind() const noexcept {
    return visit([](const auto& pl) { return std::decay_t<decltype(pl)>::kind; });
  }

  /// Calls `f(placement)` with the kinded placement: one dispatch for a batch of decisions.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), placement_);
  }

  // One decision per call, each through one dispatch; placement.hpp documents each.
  node_index preferred_node(const decision_input& in) const noexcept {
    return visit([&](const auto& pl) { return pl.preferred_node(in); });
  }
  node_index group_node(const decision_input& in, node_index nid) const noexcept {
    return visit([&](const auto& pl) { return pl.group_node(in, nid); });
  }
  std::uint64_t weight(const fault_view& faults, node_index nid, distance_t dist) const noexcept {
    return visit([&](const auto& pl) { return pl.weight(faults, nid, dist); });
  }
  bool scan_all_nodes(const decision_input& in) const noexcept {
    return visit([&](const auto& pl) { return pl.scan_all_nodes(in); });
  }
  bool has_capacity(const node_load& src, const node_load& dst) const noexcept {
    return visit([&](const auto& pl) { return pl.has_capacity(src, dst); });
  }
  long adjust_imbalance(const imbalance_args& args) const noexcept {
    return visit([&](const auto& pl) { return pl.adjust_imbalance(args); });
  }
  long adjust_balancer_imbalance(const balancer_args& args) const noexcept {
    return visit([&](const auto& pl) { return pl.adjust_balancer_imbalance(args); });
  }
  node_index settle_preferred(const decision_input& in, const migrate_outcome& m) const noexcept {
    return visit([&](const auto& pl) { return pl.settle_preferred(in, m); });
  }
  void interleave_nodes(const decision_input& in, std::span<bool> out) const noexcept {
    visit([&](const auto& pl) { pl.interleave_nodes(in, out); });
  }

 private:
  static variant_type build(const Topology& t) {
    return visit_kind(t, Stack::era, [](const auto& view) {
      using view_type = std::decay_t<decltype(view)>;
      return variant_type(std::in_place_type<typename Stack::template placement_type<view_type>>, view);
    });
  }

  std::shared_ptr<const Topology> topology_;
  variant_type placement_;
};

}  // namespace numaplace
