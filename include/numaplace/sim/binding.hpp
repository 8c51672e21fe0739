#pragma once
// The bindings a user would give the baselines, as numactl --cpunodebind/--membind would be
// given by hand: each process on the nearest set of nodes whose cores hold its threads, one
// thread per core (logical CPUs only when the cores cannot), the processes of a workload on
// separate nodes while free nodes remain (as JVMs are bound apart), and, for the inverse
// baseline, its memory on the nodes farthest from its CPUs.
//
// "Nearest" ranks a set by its largest internal SLIT distance (a set that fits inside a quad or
// a socket never crosses the farthest distance), then the sum of its internal distances, then
// fewer nodes, then the lowest node ids. Sets are not enumerated (2^256 for 256 nodes): from
// every seed node a set grows greedily by the node that keeps it nearest, O(n^3) in all. On a
// tiered machine (quads, sockets: distances that only grow from one tier to the next) every
// tier that holds the seed is filled before the next is entered, so the best seed's set is the
// exact optimum; on other matrices (rings, ladders) it is a good set, not always the best.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "machine.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// The CPUs each node offers a binding: its CPU list's size, `default_cpus` for a node with
/// CPUs but no list, 0 for a node without CPUs.
inline std::vector<std::size_t> binding_cpus(const dynamic_topology& t, unsigned default_cpus) {
  std::vector<std::size_t> cpus(t.node_count(), 0);
  for (node_index i = 0; i < t.node_count(); ++i) {
    if (t.has_cpu(i)) cpus[i] = t.cpus(i).empty() ? default_cpus : t.cpus(i).size();
  }
  return cpus;
}

/// The cores each node offers a binding: its CPUs `threads_per_core` to a core, a last partial
/// group a core too (the simulated machine groups them so).
inline std::vector<std::size_t> binding_cores(std::span<const std::size_t> cpus, unsigned threads_per_core) {
  const std::size_t per = std::max(1u, threads_per_core);
  std::vector<std::size_t> cores;
  for (const std::size_t c : cpus) cores.push_back((c + per - 1) / per);
  return cores;
}

/// How bind_nearest sized the sets it gave, for a report to say.
struct binding_sizing {
  unsigned threads_per_core = 1;
  bool by_cores = true;       ///< one thread per core; false: by logical CPUs
  std::size_t processes = 0;  ///< the processes it bound (those with explicit bind_nodes or cpu_nodes not counted)
  std::size_t threads = 0;    ///< their threads
  std::size_t cores = 0;      ///< the cores of the nodes free for them
  std::size_t thread_by_thread = 0;  ///< processes whose threads bind one by one (bind_each_thread)
};

namespace detail {

struct node_set_rank {
  unsigned largest = 0;     // largest internal distance
  unsigned long total = 0;  // sum of internal distances, both directions
  std::vector<node_index> nodes;  // ascending

  auto key() const { return std::tie(largest, total); }
  bool better_than(const node_set_rank& o) const {
    if (key() != o.key()) return key() < o.key();
    if (nodes.size() != o.nodes.size()) return nodes.size() < o.nodes.size();
    return nodes < o.nodes;
  }
};

// The set grown from `seed` over nodes with `usable` set, until its CPUs hold `threads`.
inline std::optional<node_set_rank> grow_from(const dynamic_topology& t, std::span<const std::size_t> cpus,
                                              const std::vector<bool>& usable, node_index seed, std::size_t threads) {
  const std::size_t n = t.node_count();
  std::vector<bool> in(n, false);
  std::vector<unsigned> far(n, 0);             // each node's largest distance to the set
  std::vector<unsigned long> to_set(n, 0);     // and its sum of distances to it
  node_set_rank r;
  std::size_t have = 0;
  const auto add = [&](node_index a) {
    in[a] = true;
    have += cpus[a];
    r.largest = std::max(r.largest, far[a]);
    r.total += to_set[a];
    r.nodes.push_back(a);
    for (node_index b = 0; b < n; ++b) {
      const unsigned there = t.distance(a, b), back = t.distance(b, a);
      far[b] = std::max({far[b], there, back});
      to_set[b] += there + back;
    }
  };
  add(seed);
  while (have < std::max<std::size_t>(threads, 1)) {
    const auto none = static_cast<node_index>(n);
    node_index best = none;
    for (node_index b = 0; b < n; ++b) {
      if (in[b] || !usable[b] || cpus[b] == 0) continue;
      if (best == none || std::max(r.largest, far[b]) < std::max(r.largest, far[best]) ||
          (std::max(r.largest, far[b]) == std::max(r.largest, far[best]) && to_set[b] < to_set[best])) {
        best = b;  // ties keep the lower id: b only grows
      }
    }
    if (best == none) return std::nullopt;
    add(best);
  }
  std::sort(r.nodes.begin(), r.nodes.end());
  return r;
}

}  // namespace detail

namespace detail {

// Widens a binding to the whole tier it lies in (every free node no farther from each member
// than the members are from each other: the rest of its socket or quad), as numactl users bind
// a job to a socket, not to three of its four nodes, and as autonuma-benchmark's HARD_BIND
// gives each numa01 process half the machine: a bandwidth-bound job gains the tier's other
// memory controllers. Only while the free nodes left still hold the `later` threads, and never
// for a set already across the machine's farthest distance (that would be the whole machine).
inline void fill_tier(const dynamic_topology& t, std::span<const std::size_t> cpus, const std::vector<bool>& every,
                      const std::vector<bool>& taken, std::vector<node_index>& nodes, std::size_t later) {
  distance_t span = t.local_distance();
  for (const node_index a : nodes) {
    for (const node_index b : nodes) span = std::max(span, t.distance(a, b));
  }
  if (span >= t.max_distance()) return;
  std::size_t spare = 0;  // CPUs on free nodes outside the set
  std::vector<node_index> tier;
  for (node_index j = 0; j < t.node_count(); ++j) {
    if (!every[j] || taken[j] || std::find(nodes.begin(), nodes.end(), j) != nodes.end()) continue;
    spare += cpus[j];
    const bool inside = std::all_of(nodes.begin(), nodes.end(), [&](node_index a) { return t.distance(a, j) <= span; });
    if (inside) tier.push_back(j);
  }
  std::size_t widened = 0;
  for (const node_index j : tier) widened += cpus[j];
  if (tier.empty() || spare - widened < later) return;
  nodes.insert(nodes.end(), tier.begin(), tier.end());
  std::sort(nodes.begin(), nodes.end());
}

}  // namespace detail

/// The nearest set of nodes with `usable` set (and CPUs) whose CPUs hold `threads` (at least
/// one node); empty when those nodes cannot hold them. Ascending node indices.
inline std::vector<node_index> nearest_fitting_nodes(const dynamic_topology& t, std::span<const std::size_t> cpus,
                                                     const std::vector<bool>& usable, std::size_t threads) {
  std::optional<detail::node_set_rank> best;
  for (node_index seed = 0; seed < t.node_count(); ++seed) {
    if (!usable[seed] || cpus[seed] == 0) continue;
    auto r = detail::grow_from(t, cpus, usable, seed, threads);
    if (r && (!best || r->better_than(*best))) best = std::move(r);
  }
  return best ? best->nodes : std::vector<node_index>{};
}

/// CPU nodes for processes of `threads[i]` threads, node i holding `cpus[i]` of them (its CPUs,
/// or its cores), in order: each the nearest set that fits among the nodes no earlier process
/// took, widened to its whole tier where the later processes still fit without it
/// (detail::fill_tier); when the free nodes cannot hold the next process the machine is full
/// and a new round starts over all nodes; a process bigger than the whole machine gets every
/// node with CPUs. `taken` marks nodes already bound (explicit bindings).
inline std::vector<std::vector<node_index>> nearest_bindings(const dynamic_topology& t,
                                                             std::span<const std::size_t> cpus,
                                                             std::span<const std::size_t> threads,
                                                             std::vector<bool> taken = {}) {
  const std::size_t n = t.node_count();
  taken.resize(n, false);
  std::vector<bool> every(n);
  for (node_index i = 0; i < n; ++i) every[i] = cpus[i] > 0;
  std::vector<std::vector<node_index>> out;
  std::size_t later = 0;  // threads of the processes not bound yet
  for (const std::size_t want : threads) later += want;
  for (const std::size_t want : threads) {
    std::vector<bool> free(n);
    for (node_index i = 0; i < n; ++i) free[i] = every[i] && !taken[i];
    auto nodes = nearest_fitting_nodes(t, cpus, free, want);
    if (nodes.empty()) {  // the machine is full: wrap around
      std::fill(taken.begin(), taken.end(), false);
      nodes = nearest_fitting_nodes(t, cpus, every, want);
    }
    if (nodes.empty()) {  // bigger than the machine: all of it
      for (node_index i = 0; i < n; ++i) {
        if (every[i]) nodes.push_back(i);
      }
    }
    later -= want;
    detail::fill_tier(t, cpus, every, taken, nodes, later);
    for (const node_index i : nodes) taken[i] = true;
    out.push_back(std::move(nodes));
  }
  return out;
}

/// The inverse binding's memory nodes (autonuma-benchmark's INVERSE_BIND, the worst case):
/// as many nodes with memory as `cpu_nodes` has, none of them, those farthest from it (ranked by the
/// distance from the nearest of `cpu_nodes`, then the sum of distances from all, then the
/// lowest id). With no node left outside `cpu_nodes` (bound to the whole machine), the
/// binding itself: there is nothing farther.
inline std::vector<node_index> farthest_nodes(const dynamic_topology& t, std::span<const node_index> cpu_nodes) {
  struct candidate {
    unsigned nearest;
    unsigned long total;
    node_index node;
  };
  std::vector<candidate> others;
  for (node_index m = 0; m < t.node_count(); ++m) {
    if (!t.has_memory(m) || std::find(cpu_nodes.begin(), cpu_nodes.end(), m) != cpu_nodes.end()) continue;
    candidate c{~0u, 0, m};
    for (const node_index cpu : cpu_nodes) {
      c.nearest = std::min<unsigned>(c.nearest, t.distance(cpu, m));
      c.total += t.distance(cpu, m);
    }
    others.push_back(c);
  }
  if (others.empty()) return {cpu_nodes.begin(), cpu_nodes.end()};
  std::sort(others.begin(), others.end(), [](const candidate& a, const candidate& b) {
    if (a.nearest != b.nearest) return a.nearest > b.nearest;
    if (a.total != b.total) return a.total > b.total;
    return a.node < b.node;
  });
  others.resize(std::min(others.size(), cpu_nodes.size()));
  std::vector<node_index> nodes;
  for (const auto& c : others) nodes.push_back(c.node);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

/// Where numa02's HARD_BIND and INVERSE_BIND builds put thread i of `threads`
/// (process_spec::bind_each_thread): the main thread writes node k's share of the memory
/// bound to node k, so thread i's part lands on the (i * n / T)-th of the n nodes with CPUs,
/// `home`; hard binding runs the thread there, inverse binding on the mirrored node,
/// `mirrored`, the ((T - 1 - i) * n / T)-th. (The benchmark divides by T / n, the same when n
/// divides T, which its T = CPUs always is on a machine of equal nodes.)
struct thread_binding {
  node_index home = 0;
  node_index mirrored = 0;
};

inline thread_binding bind_thread(const dynamic_topology& t, std::size_t threads, std::size_t i) {
  std::vector<node_index> cpu_nodes;
  for (node_index n = 0; n < t.node_count(); ++n) {
    if (t.has_cpu(n)) cpu_nodes.push_back(n);
  }
  if (cpu_nodes.empty() || threads == 0 || i >= threads) throw std::invalid_argument("bind_thread: no CPU node or thread");
  const std::size_t n = cpu_nodes.size();
  return {cpu_nodes[i * n / threads], cpu_nodes[(threads - 1 - i) * n / threads]};
}

/// Throws std::invalid_argument naming the process and node when `p` binds its CPUs to a node
/// beyond `t` or without CPUs (its threads could run nowhere there), or its memory to a node
/// beyond `t` or without memory (numactl --membind refuses those too). Memory may go to a node
/// without CPUs: CXL and GPU memory are bound so.
inline void check_binding(const process_spec& p, const dynamic_topology& t) {
  const std::string beyond = ", beyond the machine's " + std::to_string(t.node_count()) + " nodes";
  for (const auto b : p.bound_cpu_nodes()) {
    if (b >= t.node_count()) throw std::invalid_argument("process " + p.name + " binds to node index " + std::to_string(b) + beyond);
    if (!t.has_cpu(b)) {
      throw std::invalid_argument("process " + p.name + " binds to node index " + std::to_string(b) +
                                  ", which has no CPUs" +
                                  (p.cpu_nodes.empty() ? "; memory alone binds there with memory_nodes" : ""));
    }
  }
  for (const auto b : p.bound_memory_nodes()) {
    if (b >= t.node_count()) {
      throw std::invalid_argument("process " + p.name + " binds its memory to node index " + std::to_string(b) + beyond);
    }
    if (!t.has_memory(b)) {
      throw std::invalid_argument("process " + p.name + " binds its memory to node index " + std::to_string(b) +
                                  ", which has no memory");
    }
  }
}

/// check_binding for every process of `w`.
inline void check_bindings(const workload& w, const dynamic_topology& t) {
  for (const process_spec& p : w.processes) check_binding(p, t);
}

namespace detail {

// Whether each set holds its process's threads (node i `holds[i]`) on nodes of its own (no
// other set's, none `taken`): no process wrapped around or got the whole machine short.
inline bool held_apart(std::span<const std::size_t> holds, std::span<const std::size_t> threads,
                       const std::vector<std::vector<node_index>>& sets, std::vector<bool> taken) {
  for (std::size_t p = 0; p < sets.size(); ++p) {
    std::size_t held = 0;
    for (const node_index i : sets[p]) {
      if (taken[i]) return false;
      taken[i] = true;
      held += holds[i];
    }
    if (held < threads[p]) return false;
  }
  return true;
}

}  // namespace detail

/// Gives every process of `w` without a CPU binding (bind_nodes, cpu_nodes) the nearest fitting
/// set as its bind_nodes (nearest_bindings; memory_nodes, where given, still bind its memory),
/// sized by cores of `m.threads_per_core` threads (machine_of's, the run's SMT): numactl users
/// bind a job one thread per core. By logical CPUs when the free nodes' cores cannot hold the
/// processes apart, as autonuma-benchmark's HARD_BIND binds numa01's processes, one thread per
/// logical CPU of half the machine each. Explicit bindings are kept, checked
/// (check_bindings), and their CPU nodes count as taken.
inline binding_sizing bind_nearest(workload& w, const dynamic_topology& t, const machine_options& m) {
  check_bindings(w, t);
  const auto cpus = binding_cpus(t, m.default_cpus_per_node);
  const auto cores = binding_cores(cpus, m.threads_per_core);
  std::vector<bool> taken(t.node_count(), false);
  std::vector<std::size_t> threads;
  for (const process_spec& p : w.processes) {
    for (const auto b : p.bound_cpu_nodes()) taken[b] = true;
    if (p.bound_cpu_nodes().empty() && !p.bind_each_thread) threads.push_back(p.threads.size());
  }
  binding_sizing sizing{std::max(1u, m.threads_per_core), true, threads.size(), 0, 0, 0};
  for (const process_spec& p : w.processes) sizing.thread_by_thread += p.bind_each_thread ? 1 : 0;
  for (const std::size_t n : threads) sizing.threads += n;
  for (node_index i = 0; i < t.node_count(); ++i) sizing.cores += taken[i] ? 0 : cores[i];
  auto sets = nearest_bindings(t, cores, threads, taken);
  if (sizing.threads_per_core > 1 && !detail::held_apart(cores, threads, sets, taken)) {
    sizing.by_cores = false;
    sets = nearest_bindings(t, cpus, threads, taken);
  }
  std::size_t next = 0;
  for (process_spec& p : w.processes) {
    if (p.bound_cpu_nodes().empty() && !p.bind_each_thread) p.bind_nodes = std::move(sets[next++]);
  }
  return sizing;
}

}  // namespace numaplace::sim
