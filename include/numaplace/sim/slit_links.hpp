#pragma once
// An interconnect read off SLIT, for a machine nobody described: which pairs of nodes a link
// joins and which links each pair's traffic crosses. SLIT is a table of relative distances,
// not a wiring diagram, so both are assumptions (from_slit states them):
// - a link joins a and b when no third node c is at least as cheap a way between them:
//   (d(a,c) - local) + (d(c,b) - local) > d(a,b) - local for every c, from a to b or from b
//   to a (SLIT may be asymmetric). All-equal and backplane tables (seed 000's 10/12/17/19)
//   give a full mesh; a ring's table gives the ring back, and so does any table built as
//   local + hops x per-hop over a set of links. As every remote distance exceeds local, the
//   links always connect the machine: a pair without one has a cheaper way through nodes
//   nearer to each other, and so on down;
// - traffic goes the cheapest way by SLIT, the sum of d - local over the links it crosses,
//   not by fewest links: ties go to fewer links, then to the way found first (nearer nodes
//   settled first, the lower-numbered of equals), so routes are the same on every run.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "../topology/dynamic_topology.hpp"

namespace numaplace::sim {

/// A link's two ends, the lower index first.
using node_pair = std::pair<node_index, node_index>;

namespace slit_links_detail {

// excess[a * n + b]: what SLIT adds for going from a to b over staying, d(a, b) - local; at
// least 1, as validated tables keep remote above local.
inline std::vector<int> excess(const dynamic_topology& t) {
  const std::size_t n = t.node_count();
  std::vector<int> e(n * n);
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = 0; b < n; ++b) e[a * n + b] = int(t.distance(a, b)) - int(t.local_distance());
  }
  return e;
}

}  // namespace slit_links_detail

/// The pairs a link joins, by the rule above, ordered by their lower then higher node.
inline std::vector<node_pair> nearest_links(const dynamic_topology& t) {
  const std::size_t n = t.node_count();
  const std::vector<int> e = slit_links_detail::excess(t);
  std::vector<int> into(n * n);  // into[b * n + c] = e(c, b): each column as a row, for the scan
  for (std::size_t b = 0; b < n; ++b) {
    for (std::size_t c = 0; c < n; ++c) into[b * n + c] = e[c * n + b];
  }
  // No third node c as cheap a way from a to b as going straight (a and b themselves never
  // are: each adds all of d(a, b) - local to a positive excess).
  const auto nearest = [&](std::size_t a, std::size_t b) {
    const int direct = e[a * n + b];
    const int* from_a = &e[a * n];
    const int* to_b = &into[b * n];
    for (std::size_t c = 0; c < n; ++c) {
      if (c != a && c != b && from_a[c] + to_b[c] <= direct) return false;
    }
    return true;
  };
  std::vector<node_pair> links;
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = a + 1; b < n; ++b) {
      if (nearest(a, b) || nearest(b, a)) links.emplace_back(a, b);
    }
  }
  return links;
}

/// routes[a * n + b]: the indices into `links` that traffic from a to b crosses, in order, the
/// cheapest way by SLIT (above). A pair the links do not join keeps an empty route.
inline std::vector<std::vector<std::uint32_t>> cheapest_routes(const dynamic_topology& t,
                                                               std::span<const node_pair> links) {
  const std::size_t n = t.node_count();
  const std::vector<int> e = slit_links_detail::excess(t);
  std::vector<std::vector<std::pair<node_index, std::uint32_t>>> next(n);  // (node, link) per node
  for (std::uint32_t l = 0; l < links.size(); ++l) {
    next[links[l].first].emplace_back(links[l].second, l);
    next[links[l].second].emplace_back(links[l].first, l);
  }
  // A way's key: its cost, then its links, in one number (at most 1023 links of 245 each).
  constexpr int hop_bits = 16;
  constexpr std::uint64_t unreached = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::vector<std::uint32_t>> routes(n * n);
  // Dijkstra from every node over plain arrays, n^2 steps each (n^3 in all: a tenth of a
  // second at 256 nodes, seconds at Linux's 1024); the nearest open node is settled first, the
  // lowest-numbered of equals, and a tie never replaces a way already found.
  std::vector<std::uint64_t> key(n), open(n);  // open: the key until settled, then unreached
  std::vector<node_index> parent(n);
  std::vector<std::uint32_t> via(n);
  for (node_index from = 0; from < n; ++from) {
    std::fill(key.begin(), key.end(), unreached);
    key[from] = 0;
    open = key;
    for (std::size_t round = 0; round < n; ++round) {
      const auto at = static_cast<node_index>(std::min_element(open.begin(), open.end()) - open.begin());
      if (open[at] == unreached) break;
      open[at] = unreached;
      if (at != from) {
        auto& path = routes[from * n + at];
        path = routes[from * n + parent[at]];
        path.push_back(via[at]);
      }
      for (const auto& [there, l] : next[at]) {
        // Settled nodes never improve: every link adds at least 1 to the cost.
        const std::uint64_t k = key[at] + (std::uint64_t(e[at * n + there]) << hop_bits) + 1;
        if (k < key[there]) {
          key[there] = open[there] = k;
          parent[there] = at;
          via[there] = l;
        }
      }
    }
  }
  return routes;
}

}  // namespace numaplace::sim
