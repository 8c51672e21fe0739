#pragma once
// Custom topologies from a few parameters: what a user describes when they do not own the
// machine. Each returns a validated dynamic_topology; bad parameters throw topology_error.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cpulist.hpp"
#include "dynamic_topology.hpp"
#include "error.hpp"
#include "types.hpp"

namespace numaplace::generate {

/// CPUs and memory given to every generated node; CPUs are numbered consecutively by node.
struct node_shape {
  unsigned cpus_per_node = 1;
  std::uint64_t memory_bytes_per_node = 0;
};

namespace detail {

[[noreturn]] inline void bad_parameter(const std::string& generator, const std::string& what) {
  throw topology_error({"generator " + generator, 0, std::nullopt, std::nullopt}, what);
}

inline dynamic_topology build(const std::string& generator, const std::vector<std::vector<long long>>& rows,
                              node_shape shape) {
  // Every reader refuses a CPU number past max_cpu_number, so a generated machine must not
  // use one: what `topo --generate ... --json` writes has to read back.
  const std::uint64_t cpus = std::uint64_t{rows.size()} * shape.cpus_per_node;
  if (cpus > std::uint64_t{max_cpu_number} + 1) {
    bad_parameter(generator, std::to_string(rows.size()) + " nodes of " + std::to_string(shape.cpus_per_node) +
                                 " CPUs are " + std::to_string(cpus) + " CPUs, more than the " +
                                 std::to_string(std::uint64_t{max_cpu_number} + 1) + " a machine may number (0-" +
                                 std::to_string(max_cpu_number) + ")");
  }
  std::vector<node_attributes> nodes(rows.size());
  unsigned next_cpu = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    nodes[i].id = static_cast<node_id>(i);
    nodes[i].memory_bytes = shape.memory_bytes_per_node;
    for (unsigned c = 0; c < shape.cpus_per_node; ++c) nodes[i].cpus.push_back(next_cpu++);
  }
  try {
    return dynamic_topology(rows, std::move(nodes));
  } catch (const topology_error& e) {
    bad_parameter(generator, e.what());
  }
}

inline void check_nodes(const std::string& generator, std::size_t n) {
  if (n == 0) bad_parameter(generator, "needs at least one node");
  if (n > max_nodes) {
    bad_parameter(generator, std::to_string(n) + " nodes is more than the " + std::to_string(max_nodes) + " supported");
  }
}

}  // namespace detail

/// N nodes all `remote` apart: the kernel's DIRECT kind.
inline dynamic_topology fully_connected(std::size_t nodes, distance_t remote = 20, node_shape shape = {}) {
  detail::check_nodes("fully_connected", nodes);
  std::vector<std::vector<long long>> rows(nodes, std::vector<long long>(nodes, remote));
  for (std::size_t i = 0; i < nodes; ++i) rows[i][i] = slit_local_distance;
  return detail::build("fully_connected", rows, shape);
}

/// A hierarchy built in "concentric circles" (seed 002): `levels` from the innermost out,
/// each a fan-out and the distance between nodes whose closest common group is that level.
/// {{2, 11}, {4, 20}}: 8 nodes in pairs 11 apart, the 4 pairs 20 apart, as HT siblings
/// mapped as nodes under sockets would be.
struct level {
  std::size_t fanout = 2;
  distance_t distance = 20;
};

inline dynamic_topology hierarchical(std::span<const level> levels, node_shape shape = {}) {
  if (levels.empty()) detail::bad_parameter("hierarchical", "needs at least one level");
  std::size_t n = 1;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    if (levels[l].fanout == 0) detail::bad_parameter("hierarchical", "level " + std::to_string(l) + " has fan-out 0");
    if (n > max_nodes / levels[l].fanout) detail::bad_parameter("hierarchical", "more than 1024 nodes");
    n *= levels[l].fanout;
  }
  std::vector<std::vector<long long>> rows(n, std::vector<long long>(n, slit_local_distance));
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      // The innermost level at which a and b fall into the same group.
      std::size_t group = 1;
      for (const level& l : levels) {
        group *= l.fanout;
        if (a / group == b / group) {
          rows[a][b] = l.distance;
          break;
        }
      }
    }
  }
  return detail::build("hierarchical", rows, shape);
}

/// `groups` groups of `per_group` nodes: `in_group` apart inside a group, `across` between
/// groups (seed 000's kind of machine: the kernel's BACKPLANE when across is the maximum).
inline dynamic_topology two_level_backplane(std::size_t groups, std::size_t per_group, distance_t in_group = 20,
                                            distance_t across = 30, node_shape shape = {}) {
  if (groups == 0 || per_group == 0) detail::bad_parameter("two_level_backplane", "groups and nodes per group must be positive");
  const level levels[] = {{per_group, in_group}, {groups, across}};
  return hierarchical(levels, shape);
}

/// Nodes joined by links; distance = local + hops * `per_hop` (shortest path).
/// Links are undirected pairs of node indices.
inline dynamic_topology from_links(std::size_t nodes, std::span<const std::pair<std::size_t, std::size_t>> links,
                                   distance_t per_hop, node_shape shape = {}, const std::string& name = "from_links") {
  detail::check_nodes(name, nodes);
  if (per_hop == 0) detail::bad_parameter(name, "distance per hop must be positive");
  constexpr std::size_t unreachable = std::numeric_limits<std::size_t>::max();
  std::vector<std::vector<std::size_t>> adjacent(nodes);
  for (const auto& [a, b] : links) {
    if (a >= nodes || b >= nodes) {
      detail::bad_parameter(name, "link " + std::to_string(a) + "-" + std::to_string(b) + " names a node beyond " +
                                      std::to_string(nodes - 1));
    }
    adjacent[a].push_back(b);
    adjacent[b].push_back(a);
  }
  std::vector<std::vector<long long>> rows(nodes, std::vector<long long>(nodes));
  std::vector<std::size_t> hops(nodes), queue;
  for (std::size_t s = 0; s < nodes; ++s) {
    std::fill(hops.begin(), hops.end(), unreachable);
    hops[s] = 0;
    queue.assign(1, s);
    for (std::size_t q = 0; q < queue.size(); ++q) {
      for (std::size_t next : adjacent[queue[q]]) {
        if (hops[next] == unreachable) {
          hops[next] = hops[queue[q]] + 1;
          queue.push_back(next);
        }
      }
    }
    for (std::size_t t = 0; t < nodes; ++t) {
      if (hops[t] == unreachable) {
        detail::bad_parameter(name, "node " + std::to_string(t) + " cannot be reached from node " + std::to_string(s));
      }
      const std::size_t d = slit_local_distance + hops[t] * per_hop;
      rows[s][t] = d > max_valid_distance ? static_cast<long long>(max_valid_distance) + 1 : static_cast<long long>(d);
    }
  }
  return detail::build(name, rows, shape);
}

/// A ring of `nodes` (a 4-node ring 10/20/30 is the kernel's GLUELESS_MESH example).
inline dynamic_topology ring(std::size_t nodes, distance_t per_hop = 10, node_shape shape = {}) {
  detail::check_nodes("ring", nodes);
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t i = 0; i + 1 < nodes; ++i) links.emplace_back(i, i + 1);
  if (nodes > 2) links.emplace_back(nodes - 1, 0);
  return from_links(nodes, links, per_hop, shape, "ring");
}

/// Two rails of `rungs` nodes (0..rungs-1 and rungs..2*rungs-1) with a link per rung; with
/// `twisted`, the ends are also joined crosswise, as on 8-socket Opteron boards, which keeps
/// every node within two hops.
inline dynamic_topology ladder(std::size_t rungs, bool twisted, distance_t per_hop = 6, node_shape shape = {}) {
  const std::string name = twisted ? "twisted_ladder" : "ladder";
  if (rungs < 2) detail::bad_parameter(name, "needs at least two rungs");
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t i = 0; i < rungs; ++i) {
    links.emplace_back(i, rungs + i);
    if (i + 1 < rungs) {
      links.emplace_back(i, i + 1);
      links.emplace_back(rungs + i, rungs + i + 1);
    }
  }
  if (twisted) {
    links.emplace_back(0, 2 * rungs - 1);
    links.emplace_back(rungs, rungs - 1);
  }
  return from_links(2 * rungs, links, per_hop, shape, name);
}

}  // namespace numaplace::generate
