#pragma once
// A topology whose kind is part of its type. A run-time topology is classified once and
// visited into one of its kinded views, so placement code specialises on the kind at compile
// time and no decision branches on it (design: "classify once, then visit").

#include <cstddef>
#include <span>
#include <utility>

#include "classify.hpp"
#include "concept.hpp"
#include "types.hpp"

namespace numaplace {

/// A topology that keeps each node's neighbours sorted by distance (computed when it was
/// built): static_topology and dynamic_topology do.
template <class T>
concept cached_facts = numa_topology<T> && requires(const T& t, node_index a) {
  { t.neighbours(a) } -> std::convertible_to<std::span<const node_index>>;
};

/// A view of topology `T` (not owning it) known to be of kind `Kind`, with the classification
/// of the kernel era the placement follows. `CpuLessNodes` says whether some node lacks CPUs;
/// when false, has_cpu() is a compile-time `true`.
template <cached_facts T, numa_kind Kind, bool CpuLessNodes>
class kinded_topology {
 public:
  static constexpr numa_kind kind = Kind;
  static constexpr bool has_cpu_less_nodes = CpuLessNodes;
  using topology_type = T;

  constexpr kinded_topology(const T& t, const classification& c) noexcept : t_(&t), classification_(c) {}

  constexpr std::size_t node_count() const noexcept { return t_->node_count(); }
  constexpr distance_t distance(node_index a, node_index b) const noexcept { return t_->distance(a, b); }
  constexpr bool has_cpu(node_index a) const noexcept {
    if constexpr (CpuLessNodes) {
      return node_has_cpu(*t_, a);
    } else {
      (void)a;
      return true;
    }
  }
  constexpr const classification& classification_info() const noexcept { return classification_; }
  constexpr distance_t max_distance() const noexcept { return classification_info().max_distance; }
  constexpr distance_t local_distance() const noexcept { return classification_info().local_distance; }
  constexpr std::span<const node_index> neighbours(node_index a) const noexcept { return t_->neighbours(a); }
  constexpr const T& underlying() const noexcept { return *t_; }

 private:
  const T* t_;
  classification classification_;
};

/// Whether any node of `t` lacks CPUs.
template <numa_topology T>
constexpr bool any_cpu_less_node(const T& t) {
  for (node_index a = 0; a < t.node_count(); ++a) {
    if (!node_has_cpu(t, a)) return true;
  }
  return false;
}

/// Calls `f(kinded_topology<T, K, C>)` for t's kind K as kernel era `era` sees it and its
/// CPU-less flag C: the one run-time branch on the kind, taken when a placement is set up
/// rather than per decision. `f` must return the same type for every kind.
template <cached_facts T, class F>
constexpr decltype(auto) visit_kind(const T& t, kernel_era era, F&& f) {
  const bool cpu_less = any_cpu_less_node(t);
  const classification c = classify(t, era);
  auto with = [&]<numa_kind K>() -> decltype(auto) {
    if (cpu_less) return std::forward<F>(f)(kinded_topology<T, K, true>(t, c));
    return std::forward<F>(f)(kinded_topology<T, K, false>(t, c));
  };
  switch (c.kind) {
    case numa_kind::glueless_mesh: return with.template operator()<numa_kind::glueless_mesh>();
    case numa_kind::backplane: return with.template operator()<numa_kind::backplane>();
    case numa_kind::direct: break;
  }
  return with.template operator()<numa_kind::direct>();
}

}  // namespace numaplace
