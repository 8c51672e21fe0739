#pragma once
// concentric_spread: "nearest circle of nodes first; spread over circles at low load" (seed 002,
// the 2.5-era NUMA scheduler of Erich Focht and Michael Hohnbaum, as Andrew Theurer used it with
// hyper-threaded siblings mapped as nodes).
//
// Seen from a node, the machine is a set of concentric circles: the node itself, then the
// nodes at the next distance, and so on. A task looking for a CPU tries the circles from the
// inside out. At low load (some node runs nothing) it goes to the nearest circle with such an
// empty node, so each task gets a node (with HT-as-nodes: a physical core) of its own; that is
// what made Theurer's `make -j4` on 4 cores x 2 siblings 6.5 % faster. Once every node runs
// something, it takes the nearest circle with an idle CPU, and the least loaded node there.
//
// Modelled: the choice of a node for a task being placed (fork, exec or wake-up).
// Not modelled: how often each circle is balanced (the old scheduler balanced inside a node
// every tick and across nodes more rarely), load averaged over time, task weights, cache
// affinity, migration cost, and which CPU of the node is taken.
//
// A runtime calls spread_target on the policy (placement::policy<I>() or for_each_policy);
// the composer folds no hook for it.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

/// The nodes at one distance from a centre node.
struct circle {
  distance_t distance = 0;
  std::span<const node_index> nodes;
};

/// The circles around a node, innermost (the node itself) first. Reads the topology's cached
/// neighbour order (sorted by distance, then index), so it neither sorts nor allocates.
template <class Topology>
class circles_around {
 public:
  class iterator {
   public:
    using value_type = circle;
    using difference_type = std::ptrdiff_t;

    iterator() = default;
    iterator(const Topology& topo, node_index centre) noexcept
        : topo_(&topo), centre_(centre), order_(topo.neighbours(centre)) {
      last_ = run_end(0);
    }

    circle operator*() const noexcept {
      return {topo_->distance(centre_, order_[first_]), order_.subspan(first_, last_ - first_)};
    }
    iterator& operator++() noexcept {
      first_ = last_;
      last_ = run_end(first_);
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return it.first_ >= it.order_.size(); }

   private:
    std::size_t run_end(std::size_t from) const noexcept {
      if (from >= order_.size()) return from;
      const distance_t d = topo_->distance(centre_, order_[from]);
      std::size_t end = from + 1;
      while (end < order_.size() && topo_->distance(centre_, order_[end]) == d) ++end;
      return end;
    }

    const Topology* topo_ = nullptr;
    node_index centre_ = 0;
    std::span<const node_index> order_;
    std::size_t first_ = 0;
    std::size_t last_ = 0;
  };

  circles_around(const Topology& topo, node_index centre) noexcept : topo_(&topo), centre_(centre) {}

  iterator begin() const noexcept { return iterator(*topo_, centre_); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  const Topology* topo_;
  node_index centre_;
};

/// `for (circle c : circles(topo, n))`: the circles around node `n`, nearest first.
template <class Topology>
circles_around<Topology> circles(const Topology& topo, node_index centre) noexcept {
  return circles_around<Topology>(topo, centre);
}

struct concentric_spread {
  /// The node a task leaving (or forked on) node `from` should run on. `running_per_node[n]`
  /// counts the tasks node n runs now, not counting this one; `cpus_per_node[n]` its CPUs
  /// (0 for a CPU-less node, which is never chosen). Returns `from` when no node has an idle
  /// CPU (the periodic balancer's business), no_node when `from` is not a node.
  template <class Placement>
  node_index spread_target(const Placement& pl, node_index from, std::span<const unsigned> running_per_node,
                           std::span<const unsigned> cpus_per_node) const noexcept {
    if (from >= pl.node_count()) return no_node;
    const load loads{running_per_node, cpus_per_node};
    // Low load: some node runs nothing, and the nearest such gives the task a node of its own.
    for (const circle c : circles(pl.topology(), from)) {
      const node_index n = loads.least_loaded(c.nodes, [&](node_index i) { return loads.empty(i); });
      if (n != no_node) return n;
    }
    // Otherwise: the nearest circle with an idle CPU, its least loaded node.
    for (const circle c : circles(pl.topology(), from)) {
      const node_index n = loads.least_loaded(c.nodes, [&](node_index i) { return loads.has_idle_cpu(i); });
      if (n != no_node) return n;
    }
    return from;
  }

 private:
  // The caller's counts; a node beyond either span counts as having no CPUs.
  struct load {
    std::span<const unsigned> running;
    std::span<const unsigned> cpus;

    unsigned running_on(node_index n) const noexcept { return n < running.size() ? running[n] : 0; }
    unsigned cpus_of(node_index n) const noexcept { return n < cpus.size() && n < running.size() ? cpus[n] : 0; }
    bool empty(node_index n) const noexcept { return cpus_of(n) > 0 && running_on(n) == 0; }
    bool has_idle_cpu(node_index n) const noexcept { return running_on(n) < cpus_of(n); }

    /// running/cpus of a is below b's (cross-multiplied: no division, exact).
    bool less_loaded(node_index a, node_index b) const noexcept {
      return std::uint64_t{running_on(a)} * cpus_of(b) < std::uint64_t{running_on(b)} * cpus_of(a);
    }

    /// Among `nodes` that pass `eligible`, the least loaded; the first in order on ties.
    template <class Eligible>
    node_index least_loaded(std::span<const node_index> nodes, Eligible eligible) const noexcept {
      node_index best = no_node;
      for (node_index n : nodes) {
        if (eligible(n) && (best == no_node || less_loaded(n, best))) best = n;
      }
      return best;
    }
  };
};

}  // namespace numaplace
