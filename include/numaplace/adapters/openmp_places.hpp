#pragma once
// OpenMP affinity from a topology: an OMP_PLACES string with one place per node, nodes in the
// order of the distance circles around a start node, and the OMP_PROC_BIND that goes with it.
// Pure text: no OpenMP header, no system call. The caller passes the CPUs it may use per node
// (a cpuset can hide some), or any topology whose nodes list their CPUs.

#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../topology/concept.hpp"
#include "../topology/types.hpp"
#include "node_cpus.hpp"

namespace numaplace::adapters {

/// One OpenMP place for a set of CPUs: "{0:4}" for 0,1,2,3, "{0:2,8:2}" for 0,1,8,9, "{5}" for
/// one CPU (OpenMP 5.0 section 6.5: a place is a brace list of resource intervals
/// "first:length"). Order and repeats in `cpus` do not matter. Empty `cpus` gives "".
inline std::string omp_place(std::span<const unsigned> cpus) {
  std::vector<unsigned> sorted(cpus.begin(), cpus.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.empty()) return {};
  std::string place = "{";
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t end = i + 1;
    while (end < sorted.size() && sorted[end] == sorted[end - 1] + 1) ++end;
    if (i > 0) place += ',';
    place += std::to_string(sorted[i]);
    if (end - i > 1) place += ':' + std::to_string(end - i);
    i = end;
  }
  return place + '}';
}

namespace detail {

// The nodes of `order` that have CPUs, checked: each in range and named once.
inline std::vector<node_index> nodes_with_cpus(const node_cpu_lists& cpus, std::span<const node_index> order) {
  std::vector<bool> seen(cpus.size(), false);
  std::vector<node_index> out;
  for (const node_index n : order) {
    if (n >= cpus.size()) {
      throw std::invalid_argument("OpenMP places: node index " + std::to_string(n) + " is not in the " +
                                  std::to_string(cpus.size()) + "-node topology");
    }
    if (seen[n]) {
      throw std::invalid_argument("OpenMP places: node index " + std::to_string(n) +
                                  " appears twice in the node order");
    }
    seen[n] = true;
    if (!cpus[n].empty()) out.push_back(n);
  }
  if (out.empty()) throw std::invalid_argument("OpenMP places: no node in the order has a CPU");
  return out;
}

inline std::string join_places(const node_cpu_lists& cpus, std::span<const node_index> nodes) {
  std::string places;
  for (const node_index n : nodes) {
    if (!places.empty()) places += ',';
    places += omp_place(cpus[n]);
  }
  return places;
}

}  // namespace detail

/// OMP_PLACES with one place per node of `order` that has CPUs, in that order; nodes without
/// CPUs (memory-only nodes: PMEM, CXL, GPU memory) are skipped, as OpenMP places hold
/// processors. Throws std::invalid_argument for a node out of range, a repeated node, or an
/// order in which no node has a CPU.
inline std::string omp_places(const node_cpu_lists& cpus, std::span<const node_index> order) {
  return detail::join_places(cpus, detail::nodes_with_cpus(cpus, order));
}

template <lists_node_cpus T>
std::string omp_places(const T& t, std::span<const node_index> order) {
  return omp_places(cpus_by_node(t), order);
}

/// What to set for an OpenMP team of `threads` threads that should live near one node.
struct omp_binding {
  std::string places;              ///< OMP_PLACES
  std::string proc_bind;           ///< OMP_PROC_BIND: "close" or "spread"
  std::vector<node_index> nodes;   ///< the node of each place, in place order
  bool oversubscribed = false;     ///< more threads than CPUs on all nodes together
};

/// The nearest nodes around `start` (circle order, CPU-less nodes skipped) whose CPUs hold
/// `threads` threads, one place each, and the binding for them:
///  - "close" when the team fits one node: the list then has that single place, and close
///    binds every thread to it, so the team shares the node's memory and its caches.
///  - "spread" when it needs several nodes: with more threads than places, spread gives each
///    place an equal share of consecutive threads and narrows each thread's place partition
///    to its own node (OpenMP 5.0 section 2.6.2), so nested parallel regions stay on that node.
///    close would bind the same way but leave every thread the whole list as its partition.
/// Places stop at the nodes the team needs: a list of every node would, under close or spread
/// alike, send a small team to distant nodes one thread per node. Nodes of unequal size share
/// threads equally under spread, so a small node among large ones can get more threads than
/// CPUs. Throws std::invalid_argument for threads == 0, a start node out of range, or a
/// machine without CPUs.
template <numa_topology T>
omp_binding advise_openmp(const T& t, const node_cpu_lists& cpus, node_index start, unsigned threads) {
  if (threads == 0) throw std::invalid_argument("advise_openmp: a team needs at least one thread");
  if (cpus.size() != t.node_count()) {
    throw std::invalid_argument("advise_openmp: " + std::to_string(cpus.size()) + " CPU lists for " +
                                std::to_string(t.node_count()) + " nodes");
  }
  const std::vector<node_index> order = circle_order(t, start);
  const std::vector<node_index> candidates = detail::nodes_with_cpus(cpus, order);
  omp_binding b;
  std::size_t held = 0;
  for (const node_index n : candidates) {
    if (held >= threads) break;
    b.nodes.push_back(n);
    held += cpus[n].size();
  }
  b.oversubscribed = held < threads;
  b.places = detail::join_places(cpus, b.nodes);
  b.proc_bind = b.nodes.size() == 1 ? "close" : "spread";
  return b;
}

/// The same for a topology that lists its nodes' CPUs (dynamic_topology, a preset).
template <class T>
  requires numa_topology<T> && lists_node_cpus<T>
omp_binding advise_openmp(const T& t, node_index start, unsigned threads) {
  return advise_openmp(t, cpus_by_node(t), start, threads);
}

}  // namespace numaplace::adapters
