#pragma once
// The vocabulary the runtime adapters share: CPUs per node, and the order in which nodes are
// tried, circle by circle around a start node.

#include <concepts>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "../stats/fault_view.hpp"
#include "../topology/concept.hpp"
#include "../topology/neighbour_order.hpp"
#include "../topology/types.hpp"

namespace numaplace::adapters {

/// CPU numbers per dense node index; an empty list is a node without (usable) CPUs.
using node_cpu_lists = std::vector<std::vector<unsigned>>;

/// Every node's CPUs as `m` lists them (a CPU-less node gives an empty list).
template <lists_node_cpus Machine>
node_cpu_lists cpus_by_node(const Machine& m) {
  node_cpu_lists out(m.node_count());
  for (node_index n = 0; n < m.node_count(); ++n) {
    for (const auto cpu : m.cpus(n)) out[n].push_back(static_cast<unsigned>(cpu));
  }
  return out;
}

/// All nodes, circle by circle around `start`: `start`, then the nodes at the next distance
/// from it (by index), and so on outward; the order the scheduler widens its search in
/// (sched_init_numa builds its domains by these distance levels, Linux 3.5+).
/// Throws std::invalid_argument for a node not in `t`.
template <numa_topology T>
std::vector<node_index> circle_order(const T& t, node_index start) {
  if (start >= t.node_count()) {
    throw std::invalid_argument("circle_order: start node index " + std::to_string(start) + " is not in the " +
                                std::to_string(t.node_count()) + "-node topology");
  }
  std::vector<node_index> order(t.node_count());
  detail::fill_neighbour_order(t, start, order);
  return order;
}

/// The node nearest `n`, circle by circle, whose list in `cpus` is not empty: `n` itself when
/// it has CPUs; no_node when no node has. Work meant for a memory-only node runs there.
template <numa_topology T>
node_index nearest_node_with_cpus(const T& t, const node_cpu_lists& cpus, node_index n) {
  for (const node_index near : circle_order(t, n)) {
    if (near < cpus.size() && !cpus[near].empty()) return near;
  }
  return no_node;
}

}  // namespace numaplace::adapters
