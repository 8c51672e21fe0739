#pragma once
// The nodes for a new job of C CPUs and M MiB (job_demand.hpp): numad's question, answered in
// the scheduler's distance circles.
//
// numad's own rule (numad 0.5, numad.c: update_nodes, pick_numa_nodes) is restated in
// numad_nodes.hpp, which `numaplace advise --numad` follows. In short, numad scores every node
// as a centre by free memory and CPU over distance squared, then takes nodes one by one from
// the best, keeping a 100 MB margin on each, with MemFree + Inactive(file) as free memory and
// idle CPU sampled for 2 s.
//
// numaplace's rule: the same demand met circle by circle around the best centre, in the
// scheduler's distance circles (every node at one distance joins together, as the kernel's
// sched_init_numa levels do), never node by node:
//  - memory: what the caller says each node has free (MemFree of its meminfo on a live machine:
//    node_meminfo.hpp); a machine with no free figure counts its node sizes.
//  - CPUs: every CPU the node lists, idle or not; the caller may weigh SMT siblings as numad
//    does (numad_cpu_total), as `advise` does where the machine says how many threads a core
//    has. The advice says where a job of this shape fits; numad's 2-second idle sample makes
//    the answer depend on what else ran in those 2 s,
//    and a machine file has no idle time at all. Spreading around busy CPUs is the scheduler's
//    job once the job runs.
//  - best centre: the one whose circles meet the demand with the fewest nodes, then the nearest
//    outermost circle, then the most free memory, then the most CPUs, then the lowest node id.
//  - no margin is held back: MemFree is already what the kernel would hand out before reclaim.
//  - memory tiers (memory_tiers.hpp): a node below the top tier (a CXL expander, say) is memory
//    to spill into, never the job's home. It is never a centre, and it joins only when the
//    circles within reach have the CPUs but their top-tier memory falls short: then every
//    lower-tier node within reach joins, before a farther circle does. That is the order the
//    kernel's own allocation falls back in (find_next_best_node(), 6.1 to 7.3: by distance,
//    CPU-less nodes first on a tie), and what NUMA balancing's tiering mode expects: hot pages promoted from
//    the slow node to the job's, cold ones left there.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "dynamic_topology.hpp"
#include "job_demand.hpp"
#include "neighbour_circles.hpp"
#include "types.hpp"

namespace numaplace {

/// What each node offers a new job, by dense index.
struct node_supply {
  std::vector<std::size_t> cpus;
  std::vector<std::uint64_t> free_bytes;
  bool memory_known = false;  ///< false: the machine gives no memory sizes, memory does not decide
  /// By dense index, true for a node below the top memory tier (lower_tier_nodes()); empty
  /// when the machine's tiers are unknown, and then every node is top tier.
  std::vector<bool> lower_tier;

  bool is_lower_tier(node_index n) const { return n < lower_tier.size() && lower_tier[n]; }
};

/// The nodes around one centre that meet a demand, and how they rank.
struct job_nodes {
  std::vector<node_index> nodes;  ///< circle order from the centre
  distance_t reach = 0;           ///< the distance of the outermost circle taken
  std::uint64_t free_bytes = 0;   ///< saturating at 2^64 - 1
  std::size_t cpus = 0;
  bool enough = false;  ///< false: every node, and still short

  /// Smaller is better: enough, then fewest nodes, nearest reach, most memory, most CPUs,
  /// lowest centre.
  auto rank() const {
    return std::make_tuple(!enough, nodes.size(), reach, ~free_bytes, ~cpus, nodes.empty() ? node_index{0} : nodes.front());
  }
};

namespace detail {

// Memory sums saturate: two nodes of 2^64-1 bytes are "more than any demand", never a wrapped
// few MiB.
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

inline constexpr std::uint64_t bytes_per_mib = 1024 * 1024;

}  // namespace detail

/// Circle by circle from `centre` (a dense index) until `supply` meets `demand`, or every node.
/// Lower-tier nodes wait aside until the top tier's memory within reach falls short.
inline job_nodes widen_for_job(const dynamic_topology& t, const node_supply& supply, node_index centre,
                               const job_demand& demand) {
  job_nodes c;
  std::vector<node_index> reached;  // every node within reach, circle order, lower tiers too
  std::uint64_t fast_bytes = 0, slow_bytes = 0;
  // In MiB: *demand.mib * bytes_per_mib may wrap.
  const auto memory_met = [&](std::uint64_t bytes) {
    return !demand.mib || !supply.memory_known || bytes / detail::bytes_per_mib >= *demand.mib;
  };
  for (const neighbour_circle& ring : neighbour_circles(t, centre)) {
    for (const node_id id : ring.nodes) {
      const node_index i = *t.index_of(id);
      reached.push_back(i);
      if (!supply.is_lower_tier(i)) c.cpus += supply.cpus[i];  // a lower tier has none (node_is_toptier())
      std::uint64_t& bytes = supply.is_lower_tier(i) ? slow_bytes : fast_bytes;
      bytes = detail::saturating_add(bytes, supply.free_bytes[i]);
    }
    c.reach = ring.distance;
    if (c.cpus >= demand.cpus && memory_met(detail::saturating_add(fast_bytes, slow_bytes))) {
      c.enough = true;
      break;
    }
  }
  // Spill into the lower tier only when the top tier alone is short (or nothing is enough).
  const bool spill = !c.enough || !memory_met(fast_bytes);
  for (const node_index i : reached) {
    if (spill || !supply.is_lower_tier(i)) c.nodes.push_back(i);
  }
  c.free_bytes = spill ? detail::saturating_add(fast_bytes, slow_bytes) : fast_bytes;
  return c;
}

/// The best centre's circles for `demand` (rank()); every node, not enough, when even all of
/// them fall short. `t` has at least one node above the lower tiers.
inline job_nodes choose_job_nodes(const dynamic_topology& t, const node_supply& supply, const job_demand& demand) {
  std::optional<job_nodes> best;
  for (node_index centre = 0; centre < t.node_count(); ++centre) {
    if (supply.is_lower_tier(centre)) continue;
    job_nodes c = widen_for_job(t, supply, centre, demand);
    if (!best || c.rank() < best->rank()) best = std::move(c);
  }
  return best ? std::move(*best) : job_nodes{};
}

}  // namespace numaplace
