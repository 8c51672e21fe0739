#pragma once
// What reaching memory really costs on a machine: the simulator's hardware, kept apart from the
// SLIT distances the policies read. Per pair of nodes the unloaded latency over local; per node
// its memory bandwidth; the links between nodes with their bandwidth and the routes over them;
// how latency grows with load. Measured values carry their sources; without any, from_slit()
// derives them and says so (SLIT is firmware's relative distance, not a measurement: the
// kernel's own CXL/ACPI documentation says it carries no real latency or bandwidth figure),
// links included: remote memory is reached over some interconnect, and a stream can fill it.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "slit_links.hpp"

namespace numaplace::sim {

/// Latency under load, as a multiple of unloaded latency, against utilisation (demand over
/// bandwidth). Piecewise linear between points; past the last point it keeps the last
/// segment's slope, so demand settles near the bandwidth instead of above it.
struct loaded_latency_curve {
  /// (utilisation, factor), utilisation strictly ascending, starting at (0, 1).
  std::vector<std::pair<double, double>> points{{0.0, 1.0}, {1.0, 1.0}};

  double at(double utilisation) const {
    if (utilisation <= points.front().first) return points.front().second;
    for (std::size_t i = 1; i < points.size(); ++i) {
      if (utilisation <= points[i].first) {
        const auto [u0, f0] = points[i - 1];
        const auto [u1, f1] = points[i];
        return f0 + (f1 - f0) * (utilisation - u0) / (u1 - u0);
      }
    }
    const auto [u0, f0] = points[points.size() - 2];
    const auto [u1, f1] = points.back();
    return f1 + (f1 - f0) / (u1 - u0) * (utilisation - u1);
  }
};

/// A point-to-point interconnect link (QPI/UPI, HyperTransport, xGMI, a node controller's
/// port). Traffic in either direction uses it; its bandwidth is per direction.
struct memory_link {
  node_index a = 0, b = 0;
  double gb_per_s = 0;
};

struct machine_costs {
  /// What machine class the figures describe.
  std::string name;
  /// latency_ratio[a * n + b]: unloaded latency from a CPU on node a to memory on node b, over
  /// the local latency (1 on the diagonal).
  std::vector<double> latency_ratio;
  /// Unloaded local latency, ns: what one dependent (pointer-chasing) access waits.
  double local_latency_ns = 100;
  /// Per node: the bandwidth its memory controllers sustain (STREAM-like), GB/s.
  std::vector<double> node_bandwidth_gbs;
  /// What one core streaming alone draws from local memory, GB/s (its own limit, from the
  /// line-fill buffers it can keep in flight).
  double core_stream_gbs = 10;
  /// The links; empty: nodes reach each other without a link limit (only node bandwidth), as
  /// on seed 002's one shared memory. from_slit() always derives some.
  std::vector<memory_link> links;
  /// routes[a * n + b]: the links traffic from a CPU on node a to memory on node b crosses.
  /// Derived by fewest hops over `links` when empty (complete_routes).
  std::vector<std::vector<std::uint32_t>> routes;
  /// Memory and links alike slow down along this curve as they load.
  loaded_latency_curve loaded;
  /// Where each figure comes from, one line each.
  std::vector<std::string> sources;
  /// Set when the figures are derived, not measured: what was assumed.
  std::string assumption;
  /// SMT threads per core (the topology only lists CPUs); 0 when not stated, and then the
  /// run's machine_options say.
  unsigned threads_per_core = 0;

  std::size_t node_count() const noexcept { return node_bandwidth_gbs.size(); }
  double ratio(node_index cpu_node, node_index memory_node) const {
    return latency_ratio[cpu_node * node_count() + memory_node];
  }
  const std::vector<std::uint32_t>& route(node_index cpu_node, node_index memory_node) const {
    return routes[cpu_node * node_count() + memory_node];
  }
};

/// Fills `routes` (when empty and there are links) with a fewest-hop path for every pair,
/// the lowest-numbered link first on ties. A pair the links do not join keeps an empty route:
/// validate() reports it.
inline void complete_routes(machine_costs& c) {
  const std::size_t n = c.node_count();
  if (!c.routes.empty() || c.links.empty()) {
    if (c.routes.empty()) c.routes.assign(n * n, {});
    return;
  }
  c.routes.assign(n * n, {});
  for (node_index from = 0; from < n; ++from) {
    // Breadth-first from `from`: the link each node was reached over.
    std::vector<std::optional<std::uint32_t>> via(n);
    std::vector<bool> seen(n, false);
    std::deque<node_index> queue{from};
    seen[from] = true;
    while (!queue.empty()) {
      const node_index at = queue.front();
      queue.pop_front();
      for (std::uint32_t l = 0; l < c.links.size(); ++l) {
        const auto& link = c.links[l];
        if (link.a != at && link.b != at) continue;
        const node_index next = link.a == at ? link.b : link.a;
        if (next >= n || seen[next]) continue;
        seen[next] = true;
        via[next] = l;
        queue.push_back(next);
      }
    }
    for (node_index to = 0; to < n; ++to) {
      std::vector<std::uint32_t> path;
      for (node_index at = to; at != from && via[at];) {
        const auto& link = c.links[*via[at]];
        path.push_back(*via[at]);
        at = link.a == at ? link.b : link.a;
      }
      std::reverse(path.begin(), path.end());
      c.routes[from * n + to] = std::move(path);
    }
  }
}

/// What is wrong with `c` for a machine of `nodes` nodes, naming the field and the node, pair
/// or link; nothing when it is usable.
inline std::optional<std::string> validate(const machine_costs& c, std::size_t nodes) {
  using std::to_string;
  // Appended piecewise: GCC 12's -Wrestrict misreads "(" + std::string&& at -O3 (a false positive).
  const auto pair = [](std::size_t a, std::size_t b) {
    std::string s = "(";
    s += to_string(a);
    s += ", ";
    s += to_string(b);
    s += ")";
    return s;
  };
  if (c.node_bandwidth_gbs.size() != nodes)
    return "node_bandwidth_gbs has " + to_string(c.node_bandwidth_gbs.size()) + " entries for " + to_string(nodes) +
           " nodes";
  if (c.latency_ratio.size() != nodes * nodes)
    return "latency_ratio has " + to_string(c.latency_ratio.size()) + " entries, not " + to_string(nodes) + " x " +
           to_string(nodes);
  for (std::size_t a = 0; a < nodes; ++a) {
    if (!(c.node_bandwidth_gbs[a] > 0) || c.node_bandwidth_gbs[a] > 1e6)
      return "node " + to_string(a) + ": bandwidth " + std::to_string(c.node_bandwidth_gbs[a]) +
             " GB/s is not in (0, 1e6]";
    for (std::size_t b = 0; b < nodes; ++b) {
      const double r = c.latency_ratio[a * nodes + b];
      if (a == b && r != 1.0) return "latency_ratio" + pair(a, b) + " is " + std::to_string(r) + ", not 1 (local)";
      if (a != b && !(r >= 1.0 && r <= 100.0))
        return "latency_ratio" + pair(a, b) + " is " + std::to_string(r) + ", not in [1, 100]";
    }
  }
  if (!(c.local_latency_ns > 0 && c.local_latency_ns < 1e5))
    return "local_latency_ns " + std::to_string(c.local_latency_ns) + " is not in (0, 1e5)";
  if (c.threads_per_core > 16) return "threads_per_core " + to_string(c.threads_per_core) + " is over 16";
  if (!(c.core_stream_gbs > 0 && c.core_stream_gbs < 1e4))
    return "core_stream_gbs " + std::to_string(c.core_stream_gbs) + " is not in (0, 1e4)";
  for (std::size_t l = 0; l < c.links.size(); ++l) {
    const auto& link = c.links[l];
    if (link.a >= nodes || link.b >= nodes || link.a == link.b)
      return "link " + to_string(l) + " joins nodes " + to_string(link.a) + " and " + to_string(link.b) +
             " (need two different nodes below " + to_string(nodes) + ")";
    if (!(link.gb_per_s > 0 && link.gb_per_s <= 1e6))
      return "link " + to_string(l) + ": bandwidth " + std::to_string(link.gb_per_s) + " GB/s is not in (0, 1e6]";
  }
  if (!c.links.empty()) {
    if (c.routes.size() != nodes * nodes)
      return "routes has " + to_string(c.routes.size()) + " entries, not " + to_string(nodes) + " x " +
             to_string(nodes);
    for (std::size_t a = 0; a < nodes; ++a) {
      for (std::size_t b = 0; b < nodes; ++b) {
        const auto& path = c.routes[a * nodes + b];
        if (a != b && path.empty()) return "no route from node " + to_string(a) + " to node " + to_string(b);
        node_index at = static_cast<node_index>(a);
        for (const auto l : path) {
          if (l >= c.links.size()) return "route" + pair(a, b) + " names link " + to_string(l) + ", which is not there";
          const auto& link = c.links[l];
          if (link.a != at && link.b != at)
            return "route" + pair(a, b) + ": link " + to_string(l) + " does not start at node " + to_string(at);
          at = link.a == at ? link.b : link.a;
        }
        if (at != b) return "route" + pair(a, b) + " ends at node " + to_string(at);
      }
    }
  }
  const auto& p = c.loaded.points;
  if (p.size() < 2) return std::string("loaded latency curve needs at least two points");
  if (p.front() != std::pair{0.0, 1.0}) return std::string("loaded latency curve must start at (0, 1)");
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (!(p[i].first > p[i - 1].first) || p[i].first > 100)
      return "loaded latency curve point " + to_string(i) + ": utilisation does not ascend (or is over 100)";
    if (!(p[i].second >= p[i - 1].second) || p[i].second > 1e4)
      return "loaded latency curve point " + to_string(i) + ": factor falls (or is over 1e4)";
  }
  return std::nullopt;
}

/// A derived link's bandwidth, each way: this share of the smaller of its two nodes' memory
/// bandwidths. Measured remote over local reads: 2-socket Skylake-SP 34 / 112 GB/s = 0.30
/// (both UPI links together), Opteron 6200 with two threads 7.4 / 13.2 GB/s = 0.56. The
/// presets' link figures over their node figures, peaks rather than measurements, run from
/// 0.51 (Magny-Cours cross-package HyperTransport, 6.4 / 12.5) through 0.71 (DL980 QPI,
/// 12.8 / 17.9) to 0.78 (EPYC xGMI, 32 / 41). A half lies between the two measurements and at
/// the low end of the peaks. (Sources in hardware_presets.hpp.)
inline constexpr double derived_link_share = 0.5;

inline double derived_link_gbs(double a_gbs, double b_gbs) { return derived_link_share * std::min(a_gbs, b_gbs); }

/// What derive_links() assumes, as the output says it.
inline constexpr const char* derived_links_assumption =
    "links derived from SLIT: one between two nodes when no third is as near a way between them, each carrying "
    "half the smaller node's bandwidth each way, traffic routed the least SLIT distance";

/// Gives `c` the links nearest_links() reads off `t`'s SLIT, each at derived_link_gbs() of the
/// nodes it joins, and the cheapest routes over them (slit_links.hpp), in place of any it had.
inline void derive_links(machine_costs& c, const dynamic_topology& t) {
  const std::vector<node_pair> pairs = nearest_links(t);
  c.links.clear();
  for (const auto& [a, b] : pairs) c.links.push_back({a, b, derived_link_gbs(c.node_bandwidth_gbs[a], c.node_bandwidth_gbs[b])});
  c.routes = cheapest_routes(t, pairs);
}

/// What from_slit() assumes, as the output says it.
inline std::string from_slit_assumption(double core_stream_gbs = 10.0) {
  return "costs derived from SLIT: latency ratio 1 + (distance/local - 1)/2, node bandwidth = CPUs/2 x " +
         std::to_string(core_stream_gbs).substr(0, 4) + " GB/s, " + derived_links_assumption +
         ", a generic loaded-latency curve";
}

/// Costs derived from SLIT and CPU counts alone, for a machine nobody measured. Assumed:
/// - latency ratio 1 + (d / local - 1) / 2: halfway between SLIT and no NUMA effect. Measured
///   ratios fall below SLIT's, by about that much on Xeon E7-4800 (MLC: 1.45 where SLIT says
///   2.0) and by more on Opteron (1.08-1.30 where SLIT says 1.6-2.2);
/// - each node's memory sustains `node_cpus / 2` cores streaming at `core_stream_gbs`
///   (server DRAM saturates with about half of its cores streaming);
/// - links as derive_links() reads them off SLIT: between nearest nodes, half the smaller
///   node's bandwidth each, routed the least distance;
/// - the loaded-latency shape of generic DDR, for memory and links alike: flat to 40 % of the
///   bandwidth, doubling by 90 %, steep at saturation.
inline machine_costs from_slit(const dynamic_topology& t, const std::vector<std::size_t>& cpus_per_node,
                               double core_stream_gbs = 10.0) {
  machine_costs c;
  const std::size_t n = t.node_count();
  c.name = "derived from SLIT";
  c.core_stream_gbs = core_stream_gbs;
  c.latency_ratio.assign(n * n, 1.0);
  const double local = t.local_distance();
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = 0; b < n; ++b) {
      if (a != b) c.latency_ratio[a * n + b] = std::max(1.0, 1.0 + (double(t.distance(a, b)) / local - 1.0) / 2.0);
    }
    const double cpus = a < cpus_per_node.size() ? double(cpus_per_node[a]) : 0.0;
    c.node_bandwidth_gbs.push_back(std::max(1.0, cpus / 2.0) * core_stream_gbs);
  }
  c.loaded.points = {{0.0, 1.0}, {0.4, 1.0}, {0.6, 1.1}, {0.8, 1.4}, {0.9, 2.0}, {1.0, 3.5}};
  derive_links(c, t);
  c.assumption = from_slit_assumption(core_stream_gbs);
  return c;
}

}  // namespace numaplace::sim
