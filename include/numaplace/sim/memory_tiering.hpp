#pragma once
// Memory tiering in the simulated kernel (numa_balancing=2 or 3, from 6.0): which nodes are the
// fast tier, where a fast node's cold memory goes when it runs out (demotion), and the run's
// promotion settings. The promotion decision itself is the library's (policy/tier_promotion.hpp);
// the scanner (numa_scan.hpp) asks it on every hinting fault on a slower tier's chunk.
//
// Tiers come from the machine's costs the way the kernel takes them from HMAT: a node with CPUs
// is DRAM (MEMTIER_ADISTANCE_DRAM); a CPU-less node's abstract distance is DRAM's scaled by its
// latency from the nearest CPUs and by its bandwidth, against the first DRAM node's
// (mt_perf_to_adistance, 6.7). Every tier up to the fastest one holding a CPU node is the top
// tier (node_is_toptier). A node's demotion targets are the nodes of slower tiers, nearest first
// by SLIT (establish_demotion_targets; the kernel prefers the nearest of the next tier and
// falls back within every slower one).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../policy/tier_promotion.hpp"
#include "../stats/fault_view.hpp"
#include "../topology/dynamic_topology.hpp"
#include "../topology/memory_tiers.hpp"
#include "machine_costs.hpp"
#include "result.hpp"

namespace numaplace::sim {

/// sysctl kernel.numa_balancing's bits.
enum numa_balancing_bits : unsigned {
  numa_balancing_normal = 1,          ///< NUMA_BALANCING_NORMAL: tasks and pages follow each other
  numa_balancing_memory_tiering = 2,  ///< NUMA_BALANCING_MEMORY_TIERING: hot pages move up a tier
};

/// How a run's kernel balances memory across tiers.
struct tiering_options {
  /// kernel.numa_balancing: 1 (the default), 2 (tiering only) or 3 (both).
  unsigned numa_balancing = numa_balancing_normal;
  /// /sys/kernel/mm/numa/demotion_enabled (off by default): kswapd moves a full fast node's
  /// cold memory down a tier instead of leaving it (the simulator has no swap or page cache).
  bool demotion = false;
  promotion_tunables promotion{};

  bool tiering() const noexcept { return (numa_balancing & numa_balancing_memory_tiering) != 0; }
  bool normal() const noexcept { return (numa_balancing & numa_balancing_normal) != 0; }
};

/// The machine's memory tiers as the simulated kernel sees them.
class memory_tiering {
 public:
  memory_tiering() = default;

  /// Tiers of `topo`'s nodes from the run's costs; `cpus[n]`: node n's CPU count.
  memory_tiering(const dynamic_topology& topo, const machine_costs& hw, const std::vector<std::size_t>& cpus) {
    const std::size_t n = topo.node_count();
    tier_.assign(n, 0);
    top_.assign(n, 1);
    node_index dram = no_node;
    for (node_index i = 0; i < n; ++i) {
      if (cpus[i] != 0 && topo.has_memory(i)) {
        dram = i;
        break;
      }
    }
    std::vector<std::pair<unsigned, unsigned>> node_tier;  // (dense index, tier) of memory nodes
    for (node_index i = 0; i < n; ++i) {
      long adistance = memtier_adistance_dram;
      if (cpus[i] == 0 && dram != no_node) adistance = abstract_distance(performance(hw, cpus, i), performance(hw, cpus, dram));
      if (adistance < 0) adistance = memtier_adistance_dram;  // no figures: the kernel's default tier
      tier_[i] = memory_tier_id(adistance);
      if (topo.has_memory(i)) node_tier.emplace_back(static_cast<unsigned>(i), tier_[i]);
    }
    const auto has_cpus = [&](unsigned i) { return cpus[i] != 0; };
    for (const unsigned i : lower_tier_nodes(group_memory_tiers(node_tier), has_cpus)) top_[i] = 0;
    targets_.resize(n);
    for (node_index i = 0; i < n; ++i) {
      for (node_index j = 0; j < n; ++j) {
        if (topo.has_memory(j) && tier_[j] > tier_[i]) targets_[i].push_back(j);
      }
      std::stable_sort(targets_[i].begin(), targets_[i].end(),
                       [&](node_index a, node_index b) { return topo.distance(i, a) < topo.distance(i, b); });
    }
  }

  /// memory_tierN's N of node n (lower is faster).
  unsigned tier(node_index n) const { return tier_[n]; }
  /// node_is_toptier(): a node without tiers (or of a machine without them) is.
  bool toptier(node_index n) const { return top_.empty() || top_[n] != 0; }
  /// Whether any node is below the top tier.
  bool has_lower_tier() const { return std::find(top_.begin(), top_.end(), 0) != top_.end(); }
  /// The nodes node n demotes to, nearest first.
  const std::vector<node_index>& demotion_targets(node_index n) const { return targets_[n]; }

  /// A node's performance as HMAT would give it: its latency from the nearest CPUs and the
  /// bandwidth of its memory, read and write alike.
  static memory_performance performance(const machine_costs& hw, const std::vector<std::size_t>& cpus, node_index n) {
    double ratio = 0;
    for (node_index c = 0; c < cpus.size(); ++c) {
      if (cpus[c] != 0 && (ratio == 0 || hw.ratio(c, n) < ratio)) ratio = hw.ratio(c, n);
    }
    memory_performance p;
    p.read_latency = p.write_latency = static_cast<unsigned>(std::lround(hw.local_latency_ns * ratio));
    p.read_bandwidth = p.write_bandwidth = static_cast<unsigned>(std::lround(hw.node_bandwidth_gbs[n] * 1000));
    return p;
  }

 private:
  std::vector<unsigned> tier_;
  std::vector<std::uint8_t> top_;
  std::vector<std::vector<node_index>> targets_;
};

/// pgdat_free_space_enough(): a node whose free memory clears max(1 GiB, 1/16 of it) promotes
/// any page, hot or not (the high watermark it also clears is left out, as the simulator keeps
/// no reserve). A node of unknown size always has room.
inline bool plenty_free(std::uint64_t capacity_bytes, std::uint64_t used_bytes, bool unlimited) {
  if (unlimited) return true;
  const std::uint64_t enough = std::max<std::uint64_t>(std::uint64_t{1} << 30, capacity_bytes / 16);
  return capacity_bytes > used_bytes && capacity_bytes - used_bytes > enough;
}

/// What kswapd frees on a fast node it was woken for in tiering mode: up to WMARK_PROMO
/// (balance_pgdat()), three watermark steps above the min watermark (__setup_per_zone_wmarks()
/// in 6.12). At watermark_scale_factor's default a step is 0.1 % of the node, so 0.3 %; the min
/// watermark's own share of min_free_kbytes is left out. At least one chunk.
inline std::uint64_t promotion_watermark_chunks(std::uint64_t capacity_chunks) {
  return std::max<std::uint64_t>(1, capacity_chunks * 3 / 1000);
}

}  // namespace numaplace::sim
