#pragma once
// The simulated machine's scheduling domains: SMT over each core's siblings, MC over each
// node, then the NUMA levels of topology/sched_domains.hpp, each domain with its groups and the
// state the balancing CPU of each group keeps (balance_interval, last_balance,
// nr_balance_failed). A domain with a single group spans what its child does and is left out
// (sd_degenerate, v2.6.17+), so a node of one core has no MC domain and a machine without SMT
// no SMT domains.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "../topology/sched_domains.hpp"
#include "machine.hpp"

namespace numaplace::sim {

/// One group of a domain and what its balancing CPU remembers about balancing that domain.
struct lb_group {
  std::vector<cpu_index> cpus;
  double last_ms = 0;       ///< sd->last_balance
  double interval_ms = 0;   ///< sd->balance_interval: min_interval, doubled while balanced
  unsigned failed = 0;      ///< sd->nr_balance_failed
};

struct lb_domain {
  sched_level_kind kind = sched_level_kind::mc;
  sched_domain_params p;
  unsigned weight = 0;          ///< CPUs in the span (sd_weight)
  bool prefer_sibling = false;  ///< the child has SD_PREFER_SIBLING (sds->prefer_sibling)
  std::vector<lb_group> groups;
  double next_check_ms = 0;     ///< the earliest any group may be due

  double min_interval() const noexcept { return double(weight); }      // sd_init(): sd_weight ms
  double max_interval() const noexcept { return 2.0 * double(weight); }  // sd_init(): 2 * sd_weight
};

/// Every domain of the machine, bottom-up, and each CPU's chain of (domain, local group).
struct lb_domains {
  std::vector<lb_domain> domains;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> chain;  // per CPU, bottom-up

  lb_domains() = default;
  lb_domains(const machine& m, sd_init_rule rule) {
    chain.resize(m.cpus.size());
    // SMT: a core's siblings, one group each.
    for (const auto& core : m.core_cpus) {
      if (core.size() < 2) continue;
      lb_domain d = make(sched_level_kind::smt, rule, unsigned(core.size()), false);
      for (auto c : core) d.groups.push_back(group({c}, d));
      add(std::move(d));
    }
    // MC: a node's cores, one group each; absent when the node has a single core.
    for (node_index n = 0; n < m.node_count(); ++n) {
      std::vector<std::vector<cpu_index>> cores;
      for (auto c : m.node_cpus[n]) {
        if (cores.empty() || m.cpus[cores.back().front()].core != m.cpus[c].core) cores.push_back({});
        cores.back().push_back(c);
      }
      if (cores.size() < 2) continue;
      const bool smt_below = cores.front().size() > 1;
      lb_domain d = make(sched_level_kind::mc, rule, unsigned(m.node_cpus[n].size()), smt_below);
      for (auto& core : cores) d.groups.push_back(group(std::move(core), d));
      add(std::move(d));
    }
    // NUMA: one domain per distinct span of each kept level; groups are the child spans.
    const numa_domains numa = build_numa_domains(m.topology());
    for (const auto& level : numa.levels) {
      const auto first = static_cast<std::uint32_t>(domains.size());
      for (std::size_t s = 0; s < level.spans.size(); ++s) {
        unsigned weight = 0;
        for (auto n : level.spans[s]) weight += unsigned(m.node_cpus[n].size());
        bool single_nodes = true;
        for (const auto& g : level.groups[s]) single_nodes = single_nodes && g.size() == 1;
        // The child of a one-node group is MC or SMT, which prefer siblings; of a wider one, NUMA.
        lb_domain d = make(sched_level_kind::numa, rule, weight, single_nodes);
        for (const auto& g : level.groups[s]) {
          std::vector<cpu_index> cpus;
          for (auto n : g) cpus.insert(cpus.end(), m.node_cpus[n].begin(), m.node_cpus[n].end());
          d.groups.push_back(group(std::move(cpus), d));
        }
        domains.push_back(std::move(d));
      }
      for (node_index n = 0; n < m.node_count(); ++n) {
        if (level.span_of[n] == numa_domain_level::no_span) continue;
        const std::uint32_t id = first + level.span_of[n];
        const auto& groups = level.groups[level.span_of[n]];
        std::uint32_t local = 0;  // the first group holding n: its child span
        while (local < groups.size() && std::find(groups[local].begin(), groups[local].end(), n) == groups[local].end())
          ++local;
        for (auto c : m.node_cpus[n]) chain[c].emplace_back(id, local);
      }
    }
  }

 private:
  static lb_domain make(sched_level_kind k, sd_init_rule rule, unsigned weight, bool prefer_sibling) {
    lb_domain d;
    d.kind = k;
    d.p = sd_init(k, rule);
    d.weight = weight;
    d.prefer_sibling = prefer_sibling;
    d.next_check_ms = d.min_interval();
    return d;
  }
  static lb_group group(std::vector<cpu_index> cpus, const lb_domain& d) {
    lb_group g;
    g.cpus = std::move(cpus);
    g.interval_ms = d.min_interval();
    return g;
  }
  // Adds a CPU-level domain and enters it in its CPUs' chains.
  void add(lb_domain d) {
    const auto id = static_cast<std::uint32_t>(domains.size());
    for (std::uint32_t g = 0; g < d.groups.size(); ++g) {
      for (auto c : d.groups[g].cpus) chain[c].emplace_back(id, g);
    }
    domains.push_back(std::move(d));
  }
};

}  // namespace numaplace::sim
