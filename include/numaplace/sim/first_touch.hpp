#pragma once
// Where a process's memory starts: on the node of the thread that touches it first (the
// default local allocation policy: the page fault allocates on the faulting CPU's node,
// alloc_pages_vma() with MPOL_DEFAULT, and the page stays there until something migrates it).
// A heap every thread works on is touched by all of them at once, so each chunk lands on a
// toucher's node drawn at random, or by its builder, or TLAB by TLAB (workload.hpp's
// shared_touch); a thread's private region on its own node, unless every thread writes all of
// it once first. A memory binding (MPOL_BIND) keeps every chunk on the process's memory nodes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "random.hpp"
#include "world.hpp"

namespace numaplace::sim {

namespace detail {

// The first task of process p that accesses its region r, or nullptr.
inline const task_state* first_accessor(const world& s, std::uint32_t p, std::uint32_t r) {
  const std::uint32_t global = s.mem.region_base[p] + r;
  for (const auto& t : s.m.tasks) {
    if (t.process != p) continue;
    for (const auto& a : t.accesses) {
      if (a.first == global) return &t;
    }
  }
  return nullptr;
}

}  // namespace detail

/// The node of `allowed` a chunk touched from `toucher` lands on: the toucher's own when
/// allowed, else the nearest allowed node, equally near ones taken in turn (`chunk` spreads
/// them); when that node is full, the nearest with room, again in turn, counted in
/// memory_model::full. A page fault allocates from the faulting node's zonelist, every node
/// nearest first (build_zonelists(), find_next_best_node()), filtered by an MPOL_BIND
/// nodemask (policy_nodemask() and policy_zonelist() since v2.6.26), falling back down the
/// list when a node is full; the zonelists of a machine's nodes spread equally near nodes
/// (node_load). Throws std::invalid_argument when no allowed node has room: the kernel would
/// reclaim, swap or OOM-kill, none of which the simulator does.
template <class Nodes>
node_index bound_node_for(world& s, const Nodes& allowed, node_index toucher, std::size_t chunk, std::uint32_t p) {
  // The nearest allowed nodes, of all of them (`with_room`: only those with room), in order.
  const auto nearest = [&](bool with_room) {
    std::vector<node_index> at;
    distance_t best = 0;
    for (const auto a : allowed) {
      const auto n = static_cast<node_index>(a);
      if (with_room && !s.mem.has_room(n)) continue;
      const distance_t d = s.topo.distance(toucher, n);
      if (at.empty() || d < best) {
        best = d;
        at.assign(1, n);
      } else if (d == best) {
        at.push_back(n);
      }
    }
    return at;
  };
  const bool toucher_allowed = std::find(allowed.begin(), allowed.end(), toucher) != allowed.end();
  node_index first_choice = toucher;
  if (!toucher_allowed) {
    const auto at = nearest(false);
    first_choice = at[chunk % at.size()];
  }
  if (s.mem.has_room(first_choice)) return first_choice;
  const auto at = nearest(true);
  if (at.empty()) {
    std::string nodes;
    for (const auto a : allowed) nodes += (nodes.empty() ? "" : ",") + std::to_string(a);
    const bool one = allowed.size() == 1;
    throw std::invalid_argument("process " + s.w.processes[p].name + ": its memory does not fit on node" +
                                (one ? " " : "s ") + nodes + (one ? ", which is full" : ", which are full") +
                                " (the workload may use all of a node's memory, no more; the kernel would "
                                "reclaim, swap or OOM-kill)");
  }
  ++s.mem.full.fell_back;
  return at[chunk % at.size()];
}

/// The node a chunk of process p touched from `toucher` lands on: within the run's memory
/// binding of p (a binding baseline's), else within the nodes p first touches its memory
/// under (process_spec::first_touch_nodes), else the toucher's own, or the nearest node with
/// room when that is full.
inline node_index memory_node_for(world& s, std::uint32_t p, node_index toucher, std::size_t chunk) {
  if (p < s.memory_nodes.size() && !s.memory_nodes[p].empty()) return bound_node_for(s, s.memory_nodes[p], toucher, chunk, p);
  const auto& forced = s.w.processes[p].first_touch_nodes;
  if (!forced.empty()) return bound_node_for(s, forced, toucher, chunk, p);
  if (s.mem.has_room(toucher)) return toucher;
  std::vector<node_index> every(s.m.node_count());
  for (node_index n = 0; n < every.size(); ++n) every[n] = n;
  return bound_node_for(s, every, toucher, chunk, p);
}

/// Fresh memory for all of region `rs` of process p, touched from `toucher` (a new job's):
/// each chunk where memory_node_for() puts it, `spread` choosing among equally near nodes.
inline void allocate_fresh(world& s, std::uint32_t p, region_state& rs, node_index toucher, std::size_t spread) {
  s.mem.clear(rs);
  for (auto& ch : rs.chunks) s.mem.put(rs, ch, memory_node_for(s, p, toucher, spread));
  rs.touched = true;
}

/// Places every chunk of process p by first touch, after its first tasks have started (when
/// the process starts: process_spec::start_ms). A region every thread works on lands where
/// its shared_touch says: spread over the touchers' nodes at random, all on the first thread's
/// node, or dealt to the allocating threads in turn (TLABs: chunk c on thread c % threads's
/// node, an equal share each in a random order), or, for memory the collector promotes, on
/// its worker threads' nodes. Memory is faulted once: nothing here runs again for reused
/// memory.
inline void first_touch(world& s, std::uint32_t p) {
  std::vector<node_index> toucher_nodes, collector_nodes;
  for (const auto& t : s.m.tasks) {
    if (t.process != p || !t.alive) continue;
    (t.gc_worker ? collector_nodes : toucher_nodes).push_back(t.node);
  }
  const process_spec& spec = s.w.processes[p];
  auto regions = s.mem.of_process(p);
  for (std::uint32_t r = 0; r < regions.size(); ++r) {
    region_state& rs = regions[r];
    const shared_touch touch = spec.regions[r].touch;
    // A private part every thread writes once first lands as a shared heap does.
    const bool by_all = spec.regions[r].first_touch_by_all || touch == shared_touch::every_thread_once;
    if (touch == shared_touch::collector_threads && !collector_nodes.empty()) {
      for (std::size_t c = 0; c < rs.chunks.size(); ++c) {
        const node_index node =
            memory_node_for(s, p, collector_nodes[random_index(s.rng, collector_nodes.size())], c);
        s.mem.put(rs, rs.chunks[c], node);
      }
      rs.touched = true;
      continue;
    }
    // TLABs: every allocating thread an equal share of the chunks, in a random order.
    std::vector<std::size_t> order;
    if (by_all && touch == shared_touch::allocating_threads && !toucher_nodes.empty()) {
      for (std::size_t c = 0; c < rs.chunks.size(); ++c) order.push_back(c % toucher_nodes.size());
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random_index(s.rng, i)]);
    }
    // A part written for a thread bound alone goes to that thread's memory node, whoever
    // writes it (numa02's HARD_BIND builds write each node's share bound to that node).
    const task_state* accessor = by_all ? nullptr : detail::first_accessor(s, p, r);
    const node_index bound_home = accessor != nullptr ? accessor->memory_home : no_node;
    const bool first_thread = spec.main_thread_touches_first || (by_all && touch == shared_touch::first_thread);
    // no_node: each chunk its own toucher's, below.
    const node_index home = [&] {
      if (bound_home != no_node) return bound_home;
      if (first_thread && !toucher_nodes.empty()) return toucher_nodes.front();
      if (by_all) return no_node;
      if (accessor != nullptr) return accessor->node;  // private: where its thread runs
      return toucher_nodes.empty() ? node_index{0} : toucher_nodes.front();
    }();
    for (std::size_t c = 0; c < rs.chunks.size(); ++c) {
      node_index node = home;
      if (by_all && home == no_node && !toucher_nodes.empty()) {
        node = !order.empty() ? toucher_nodes[order[c]]
                                                         : toucher_nodes[random_index(s.rng, toucher_nodes.size())];
      } else if (node == no_node) {
        node = 0;
      }
      s.mem.put(rs, rs.chunks[c], memory_node_for(s, p, node, c));
    }
    rs.touched = true;
  }
}

}  // namespace numaplace::sim
