#pragma once
// How the kernel sees a machine: distance levels, the maximum distance and the kind
// (direct, glueless mesh or backplane), per era: sched_init_numa(), init_numa_topology_type() (v3.19+).

#include <cstddef>

#include "concept.hpp"
#include "levels.hpp"
#include "types.hpp"

namespace numaplace {

/// The scheduler's view of a topology's distances.
struct classification {
  numa_kind kind = numa_kind::direct;
  distance_t local_distance = slit_local_distance;
  /// sched_max_numa_distance: the largest level (0 when the kernel found no levels).
  distance_t max_distance = 0;
  /// Ascending; in the modern era the local distance is levels[0].
  distance_levels levels;

  /// The kernel's find_numa_distance(): is `d` the local distance or one of the levels?
  constexpr bool is_level(distance_t d) const noexcept { return d == local_distance || levels.contains(d); }

  friend constexpr bool operator==(const classification&, const classification&) = default;
};

namespace detail {

// Modern kernels consider only CPU-bearing nodes; older ones every online node.
template <numa_topology T>
constexpr bool counts_for_levels(const T& t, node_index a, kernel_era era) {
  return era != kernel_era::modern || node_has_cpu(t, a);
}

// The kernel's far-pair search: the first pair at (or beyond) the maximum distance decides.
template <numa_topology T>
constexpr numa_kind classify_far_pair(const T& t, distance_t max, kernel_era era) {
  const auto n = static_cast<node_index>(t.node_count());
  for (node_index a = 0; a < n; ++a) {
    if (!counts_for_levels(t, a, era)) continue;
    for (node_index b = 0; b < n; ++b) {
      if (!counts_for_levels(t, b, era)) continue;
      if (t.distance(a, b) < max) continue;
      for (node_index c = 0; c < n; ++c) {
        if (!counts_for_levels(t, c, era)) continue;
        if (t.distance(a, c) < max && t.distance(b, c) < max) return numa_kind::glueless_mesh;
      }
      return numa_kind::backplane;
    }
  }
  return numa_kind::direct;
}

}  // namespace detail

/// Derives levels, maximum distance and kind exactly as the given kernel era does.
/// constexpr: for a static topology, `static_assert(classify(t).kind == ...)` works.
template <numa_topology T>
constexpr classification classify(const T& t, kernel_era era = kernel_era::modern) {
  classification c;
  const auto n = static_cast<node_index>(t.node_count());
  if (n == 0) return c;
  c.local_distance = static_cast<distance_t>(t.distance(0, 0));

  if (era == kernel_era::modern) {
    for (node_index a = 0; a < n; ++a) {
      if (!node_has_cpu(t, a)) continue;
      for (node_index b = 0; b < n; ++b) {
        if (node_has_cpu(t, b)) c.levels.insert(static_cast<distance_t>(t.distance(a, b)));
      }
    }
    if (c.levels.empty()) return c;
    c.max_distance = c.levels.back();
    if (c.levels.size() <= 2) return c;
  } else {
    // Older kernels read node 0's row only; a distance absent from it is invisible.
    if (era != kernel_era::v3_19) c.levels.insert(c.local_distance);
    for (node_index b = 0; b < n; ++b) {
      const auto d = static_cast<distance_t>(t.distance(0, b));
      if (d > c.local_distance) c.levels.insert(d);
    }
    if (c.levels.empty()) return c;  // a single node (v3.19): max stays 0
    c.max_distance = c.levels.back();
    if (c.levels.size() <= (era == kernel_era::v5_10 ? 2u : 1u)) return c;
  }
  c.kind = detail::classify_far_pair(t, c.max_distance, era);
  return c;
}

}  // namespace numaplace
