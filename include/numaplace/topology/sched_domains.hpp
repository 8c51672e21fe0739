#pragma once
// Scheduling domains as Linux builds them over NUMA nodes, and what sd_init() sets on each.
//
// sched_init_numa() (v3.13+) makes one NUMA level per distinct distance: at level k a node's
// span is every node within the k-th distance of it. build_sched_domains() then drops the
// levels that add nothing: a domain whose span equals its child's (sd_degenerate and
// sd_parent_degenerate). The groups of a domain are its children's spans, taken in node
// order, each node's child span once it is not yet covered (build_overlap_sched_groups(),
// v3.13+; where distances are not transitive, groups may overlap and reach beyond the span).
// Below the NUMA levels sit SMT (the siblings of a core) and MC (one node: one LLC here);
// those need CPUs, which a topology alone does not say, so only their parameters live here.
//
// Pure: from a topology (node_count, distance, and has_cpu when it reports CPU-less nodes, which
// hold no CPUs and so change no span) to plain vectors. Nothing here schedules.

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "concept.hpp"
#include "types.hpp"

namespace numaplace {

enum class sched_level_kind : std::uint8_t { smt, mc, numa };

/// What sd_init() sets on a domain of one level (min_interval and max_interval follow from the
/// span's weight: sd_weight ms and twice that, every version).
struct sched_domain_params {
  unsigned busy_factor = 32;       ///< the interval multiplier while the balancing CPU is busy
  unsigned imbalance_pct = 125;    ///< how much busier than local the busiest must be, in %
  unsigned cache_nice_tries = 0;   ///< failures tolerated before cache-hot (or NUMA-local) tasks go
  bool share_pkg_resources = false;  ///< SD_SHARE_PKG_RESOURCES (SMT and MC)
  bool numa = false;                 ///< SD_NUMA
  bool prefer_sibling = true;        ///< SD_PREFER_SIBLING (cleared on NUMA levels)
};

/// Whether sd_init() follows the values of v5.10 and later: Vincent Guittot's "Improve
/// fairness between cfs tasks" (merged for v5.10) cut busy_factor from 32 to 16 and the default
/// imbalance_pct, which NUMA levels keep, from 125 to 117.
enum class sd_init_rule : std::uint8_t { v3_19, v5_10 };

/// sd_init(): SMT imbalance_pct 110; MC 117 with cache_nice_tries 1; NUMA cache_nice_tries 2,
/// no SD_PREFER_SIBLING, and the default imbalance_pct (125 before v5.10, 117 since).
constexpr sched_domain_params sd_init(sched_level_kind k, sd_init_rule rule) noexcept {
  sched_domain_params p;
  p.busy_factor = rule == sd_init_rule::v5_10 ? 16 : 32;
  p.imbalance_pct = rule == sd_init_rule::v5_10 ? 117 : 125;
  switch (k) {
    case sched_level_kind::smt:
      p.imbalance_pct = 110;
      p.share_pkg_resources = true;
      break;
    case sched_level_kind::mc:
      p.imbalance_pct = 117;
      p.cache_nice_tries = 1;
      p.share_pkg_resources = true;
      break;
    case sched_level_kind::numa:
      p.cache_nice_tries = 2;
      p.numa = true;
      p.prefer_sibling = false;
      break;
  }
  return p;
}

/// One NUMA level that some node keeps.
struct numa_domain_level {
  static constexpr std::uint32_t no_span = ~std::uint32_t{0};
  distance_t distance = 0;                       ///< sched_domains_numa_distance[k]
  std::vector<std::vector<node_index>> spans;    ///< the distinct kept spans, each in node order
  std::vector<std::uint32_t> span_of;            ///< per node: its span here, no_span where degenerate
  std::vector<std::vector<std::vector<node_index>>> groups;  ///< per span: its groups' nodes
};

/// The NUMA levels above the nodes, bottom-up; a level degenerate for every node is absent.
struct numa_domains {
  std::vector<numa_domain_level> levels;
};

/// sched_init_numa() and the degenerate-level pruning of build_sched_domains(), over the nodes
/// that have CPUs.
template <class T>
numa_domains build_numa_domains(const T& t) {
  const auto n = static_cast<node_index>(t.node_count());
  std::vector<node_index> cpu_nodes;
  for (node_index a = 0; a < n; ++a) {
    if (node_has_cpu(t, a)) cpu_nodes.push_back(a);
  }
  std::vector<distance_t> distances;
  for (auto a : cpu_nodes) {
    for (auto b : cpu_nodes) distances.push_back(static_cast<distance_t>(t.distance(a, b)));
  }
  std::sort(distances.begin(), distances.end());
  distances.erase(std::unique(distances.begin(), distances.end()), distances.end());

  // The span each node has below the level being built (its child's): the node itself first.
  std::vector<std::vector<node_index>> below(n);
  for (auto a : cpu_nodes) below[a] = {a};
  numa_domains out;
  for (const distance_t d : distances) {
    numa_domain_level level;
    level.distance = d;
    level.span_of.assign(n, numa_domain_level::no_span);
    std::map<std::vector<node_index>, std::uint32_t> ids;
    std::vector<std::vector<node_index>> next = below;
    for (auto a : cpu_nodes) {
      std::vector<node_index> span;
      for (auto b : cpu_nodes) {
        if (t.distance(a, b) <= d) span.push_back(b);
      }
      if (span == below[a]) continue;  // degenerate for a: the same CPUs as its child
      const auto [it, fresh] = ids.emplace(span, static_cast<std::uint32_t>(level.spans.size()));
      if (fresh) level.spans.push_back(span);
      level.span_of[a] = it->second;
      next[a] = std::move(span);
    }
    if (level.spans.empty()) continue;
    // Groups: each span node's child span, unless an earlier group covers that node.
    for (const auto& span : level.spans) {
      std::vector<std::vector<node_index>> groups;
      std::vector<bool> covered(n, false);
      for (auto b : span) {
        if (covered[b]) continue;
        groups.push_back(below[b]);
        for (auto c : below[b]) covered[c] = true;
      }
      level.groups.push_back(std::move(groups));
    }
    below = std::move(next);
    out.levels.push_back(std::move(level));
  }
  return out;
}

}  // namespace numaplace
