#pragma once
// The topology concept: all a placement needs from a machine description.

#include <concepts>
#include <cstddef>
#include <iterator>

#include "types.hpp"

namespace numaplace {

/// A NUMA topology: a node count and a distance between any two dense node indices.
/// Everything else (levels, kind, neighbour order) is derived once by `classify` or by
/// the topology types that cache it.
///
/// Laws (what Linux accepts of a SLIT table, and what classify and the policies assume);
/// check_topology() (topology/check_topology.hpp) checks them and names the first one broken:
///  - `node_count()` is 1..max_nodes, and `distance(a, b)` is defined for every a, b below it;
///  - `distance(a, a)` is slit_local_distance (10) for every node;
///  - every distance is within 10..max_valid_distance (255), and `distance(a, b)` for a != b is
///    larger than the local distance.
/// A topology need not be symmetric: Linux uses `distance(a, b) != distance(b, a)` as given
/// (it warns), and so does numaplace. A node may have no CPUs (`has_cpu`, below).
template <class T>
concept numa_topology = requires(const T& t, node_index a, node_index b) {
  { t.node_count() } -> std::convertible_to<std::size_t>;
  { t.distance(a, b) } -> std::convertible_to<distance_t>;
};

/// Optional member: whether a node has CPUs. The modern kernel ignores CPU-less nodes
/// (PMEM, CXL, GPU memory) when it derives levels and the kind.
template <class T>
concept reports_cpu_less_nodes = numa_topology<T> && requires(const T& t, node_index a) {
  { t.has_cpu(a) } -> std::convertible_to<bool>;
};

/// Anything that lists each node's CPUs by dense node index: dynamic_topology (presets,
/// load::sysfs) and os::usable_machine (only the CPUs this process may use).
template <class Machine>
concept lists_node_cpus = requires(const Machine& m, node_index n) {
  { m.node_count() } -> std::convertible_to<std::size_t>;
  { *std::begin(m.cpus(n)) } -> std::convertible_to<unsigned>;
};

/// Whether node `a` of `t` has CPUs (true for topologies that do not say).
template <numa_topology T>
constexpr bool node_has_cpu(const T& t, node_index a) {
  if constexpr (reports_cpu_less_nodes<T>) {
    return static_cast<bool>(t.has_cpu(a));
  } else {
    (void)t;
    (void)a;
    return true;
  }
}

}  // namespace numaplace
