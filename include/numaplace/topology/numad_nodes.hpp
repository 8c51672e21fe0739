#pragma once
// numad's answer to `numad -w NCPUS[:MB]`, restated: the nodes numad 0.5 (Debian's
// 0.5+20150602, numad.c) advises for a new job, from what it counts on each node. numaplace's
// own answer, in whole distance circles, is job_nodes.hpp; `numaplace advise --numad` gives
// this one.
//
// What numad counts (update_nodes):
//  - memory: MBs_total is MemTotal of nodeN/meminfo in MiB; MBs_free is MemFree plus
//    Inactive(file) (numad -C 1, the default; -C 0 counts MemFree only), each kB figure divided
//    by 1024 on its own. A node of 0 MiB is no "resource node" (it never ends the search).
//  - CPUs, in hundredths: threads_per_core is the number of SMT siblings of CPU 0
//    (cpu0/topology/thread_siblings), for the whole machine. With one thread per core, or
//    -t 100, every logical CPU counts 100. Otherwise a node of n logical CPUs has
//    c = n / threads_per_core cores (integer division), and counts c * 100 for the cores plus
//    c * (threads_per_core - 1) * t for the siblings, t being -t (default 20 %): 20 logical
//    CPUs of 10 two-thread cores are 1200, twelve CPUs.
//  - free CPU: the idle time of the node's CPUs between two /proc/stat samples 2 s apart, less
//    (n - n / threads_per_core) * (100 - t), at most the total and at least 1. The caller gives
//    the idle time it sampled (proc_stat_idle.hpp; `advise --numad` samples this machine's as
//    numad does), or none: every CPU idle, the free CPU equal to the total, what numad finds on
//    an idle machine (a machine file has no idle time).
//
// How numad picks (pick_numa_nodes with no process, combined_value_of_weighted_resources), for
// C hundredths of CPU and M MiB:
//  - each node's magnitude is (10 * memory needed + 4 * memory in excess) *
//    (6 * CPU needed + 1 * CPU in excess), "needed" being min(free, demand), "excess" the rest.
//  - the nodes wanted at least: max(ceil(M / MBs_total), ceil(C / CPUs_total)) of the first
//    node numad lists, at most every node.
//  - every node is tried as a centre: all nodes sorted by distance from it (a selection sort
//    over numad's list order; equal distances go to the larger magnitude, equal magnitudes keep
//    the list order as that sort leaves it); its score is the sum over the first "at least"
//    nodes of magnitude / distance^2 (integer division). The highest score wins, the first
//    centre on a tie.
//  - from the winner, in that order, nodes are taken one by one until "at least", M and C are
//    all met: a node whose free memory covers what is left plus a 100 MB margin meets the
//    memory, otherwise it gives its free memory less 100 MB (a node with under 100 MB free
//    raises what is left); its free CPU is taken up to what is left. Taking every node with
//    memory ends the search whatever is left (numad then answers every node).
//  - -u (target utilisation, default 85 %) sizes the processes numad manages (manage_loads
//    asks for their use * 100 / u) and lets it fall short by (100 - u) / 200 of a node's CPUs
//    (pick_numa_nodes, for a process only): it never changes a -w answer.
//
// Where numaplace cannot follow numad to the letter:
//  - numad lists nodes in the order readdir gives /sys/devices/system/node (hash order on
//    kernfs) and reads each distance file by position; `scan_order` gives that order (the CLI
//    reads it from the sysfs tree), and a centre is the node at that position in dense-index
//    order. The two agree where ids are 0..n-1, as on every machine numad was written for.
//  - where numad's arithmetic is undefined (a first node of 0 MiB, products past 2^63, taking a
//    node without memory and never reaching "every resource node"), numaplace saturates, counts
//    every node as wanted, and stops at the last node.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynamic_topology.hpp"
#include "types.hpp"

namespace numaplace {

/// What numad counts on one node (update_nodes), by dense index.
struct numad_node {
  std::uint64_t total_mib = 0;     ///< MemTotal in MiB; 0: no memory
  std::uint64_t free_mib = 0;      ///< MemFree (+ Inactive(file)) in MiB
  std::uint64_t logical_cpus = 0;  ///< CPUs the node lists
  /// Idle CPU measured on the node, in hundredths of a CPU; none: every CPU idle.
  std::optional<std::uint64_t> idle_hundredths;
};

/// numad's -t and -u, and the SMT width it reads from CPU 0.
struct numad_settings {
  unsigned threads_per_core = 1;      ///< SMT siblings per core (cpu0's thread_siblings)
  unsigned htt_percent = 20;          ///< -t: what a sibling beyond a core's first counts, 0-100
  unsigned target_utilization = 85;   ///< -u, 10-130: numad 0.5 never uses it for -w (see above)
};

/// numad's answer and how it got there.
struct numad_choice {
  std::vector<node_index> nodes;  ///< ascending, as numad prints them
  std::vector<node_index> taken;  ///< in the order numad took them
  node_index centre = 0;          ///< the winning centre
  std::size_t wanted = 0;         ///< the nodes wanted at least
  bool met = false;               ///< false: every node taken with demand left (numad answers so anyway)
  std::uint64_t mib_left = 0;     ///< memory still wanted once every node taken is counted
  std::uint64_t cpu_left = 0;     ///< CPU still wanted so, in hundredths
};

namespace detail {

inline std::uint64_t numad_saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

inline std::uint64_t numad_saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

}  // namespace detail

/// Checks -t, -u and the SMT width as numad's options allow them; throws std::invalid_argument
/// naming the one out of range (numad ignores such a value silently; numaplace says so).
inline void check_numad_settings(const numad_settings& s) {
  if (s.htt_percent > 100) {
    throw std::invalid_argument("-t " + std::to_string(s.htt_percent) + ": numad takes 0 to 100 (percent of a CPU)");
  }
  if (s.target_utilization < 10 || s.target_utilization > 130) {
    throw std::invalid_argument("-u " + std::to_string(s.target_utilization) + ": numad takes 10 to 130 (percent)");
  }
  if (s.threads_per_core == 0) throw std::invalid_argument("threads per core: 0; a core has at least one");
}

/// A node's CPUs as numad counts them, in hundredths of a CPU (update_nodes' CPUs_total).
inline std::uint64_t numad_cpu_total(std::uint64_t logical_cpus, const numad_settings& s) noexcept {
  if (s.threads_per_core <= 1 || s.htt_percent >= 100) return detail::numad_saturating_mul(logical_cpus, 100);
  const std::uint64_t cores = logical_cpus / s.threads_per_core;
  return detail::numad_saturating_add(
      detail::numad_saturating_mul(cores, 100),
      detail::numad_saturating_mul(cores, std::uint64_t{s.threads_per_core - 1} * s.htt_percent));
}

/// A node's free CPU as numad counts it, in hundredths (update_nodes' CPUs_free, then
/// pick_numa_nodes' floor of 1).
inline std::uint64_t numad_cpu_free(const numad_node& n, const numad_settings& s) noexcept {
  const std::uint64_t total = numad_cpu_total(n.logical_cpus, s);
  std::uint64_t idle = n.idle_hundredths ? *n.idle_hundredths : detail::numad_saturating_mul(n.logical_cpus, 100);
  if (s.threads_per_core > 1 && s.htt_percent < 100) {
    const std::uint64_t discount =
        detail::numad_saturating_mul(n.logical_cpus - n.logical_cpus / s.threads_per_core, 100 - s.htt_percent);
    idle = idle > discount ? idle - discount : 0;
  }
  return std::max<std::uint64_t>(std::min(idle, total), 1);
}

/// combined_value_of_weighted_resources: what a node with `free_mib` and `free_cpu` offers a
/// demand of `mib` and `cpu` (hundredths).
inline std::uint64_t numad_magnitude(std::uint64_t mib, std::uint64_t cpu, std::uint64_t free_mib,
                                     std::uint64_t free_cpu) noexcept {
  using detail::numad_saturating_add;
  using detail::numad_saturating_mul;
  const std::uint64_t needed_mem = std::min(free_mib, mib);
  const std::uint64_t needed_cpu = std::min(free_cpu, cpu);
  const std::uint64_t memory = numad_saturating_add(numad_saturating_mul(needed_mem, 10),
                                                    numad_saturating_mul(free_mib - needed_mem, 4));
  const std::uint64_t cpus = numad_saturating_add(numad_saturating_mul(needed_cpu, 6), free_cpu - needed_cpu);
  return numad_saturating_mul(memory, cpus);
}

/// The nodes numad 0.5 advises for `cpu_hundredths` of CPU and `mib` MiB (the rule above).
/// `nodes` has one record per node of `t`, by dense index; `scan_order` lists the dense indices
/// in numad's order (empty: index order). Throws std::invalid_argument for records that do not
/// match `t`, a scan order that is no permutation, or settings out of numad's ranges.
inline numad_choice numad_pick_nodes(const dynamic_topology& t, const std::vector<numad_node>& nodes,
                                     std::uint64_t cpu_hundredths, std::uint64_t mib, const numad_settings& s,
                                     std::vector<node_index> scan_order = {}) {
  const std::size_t n = t.node_count();
  if (n == 0) throw std::invalid_argument("numad_pick_nodes: a machine without nodes");
  if (nodes.size() != n) {
    throw std::invalid_argument("numad_pick_nodes: " + std::to_string(nodes.size()) + " node records for " +
                                std::to_string(n) + " nodes");
  }
  check_numad_settings(s);
  if (scan_order.empty()) {
    scan_order.resize(n);
    std::iota(scan_order.begin(), scan_order.end(), node_index{0});
  }
  {
    std::vector<node_index> sorted = scan_order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (sorted.size() != n || sorted[i] != i) throw std::invalid_argument("numad_pick_nodes: the scan order is no permutation of the nodes");
    }
  }

  std::vector<std::uint64_t> free_mib(n), free_cpu(n), magnitude(n);
  for (node_index i = 0; i < n; ++i) {
    free_mib[i] = nodes[i].free_mib;
    free_cpu[i] = numad_cpu_free(nodes[i], s);
    magnitude[i] = numad_magnitude(mib, cpu_hundredths, free_mib[i], free_cpu[i]);
  }

  // The nodes wanted at least, measured by the first node numad lists.
  const numad_node& first = nodes[scan_order.front()];
  const auto ceil_div = [n](std::uint64_t a, std::uint64_t b) -> std::uint64_t {
    if (a == 0) return 0;
    if (b == 0) return n;  // numad divides by zero here; every node is the most it could want
    return a / b + (a % b != 0);
  };
  numad_choice choice;
  choice.wanted = static_cast<std::size_t>(std::min<std::uint64_t>(
      std::max(ceil_div(mib, first.total_mib), ceil_div(cpu_hundredths, numad_cpu_total(first.logical_cpus, s))), n));

  // All nodes by distance from `centre`: numad's selection sort, ties to the larger magnitude.
  const auto order_from = [&](node_index centre) {
    std::vector<node_index> order = scan_order;
    for (std::size_t a = 0; a < n; ++a) {
      std::size_t best = a;
      for (std::size_t b = a + 1; b < n; ++b) {
        const distance_t db = t.distance(order[b], centre);
        const distance_t dbest = t.distance(order[best], centre);
        if (db < dbest || (db == dbest && magnitude[order[best]] < magnitude[order[b]])) best = b;
      }
      std::swap(order[a], order[best]);
    }
    return order;
  };

  std::uint64_t best_score = 0;
  for (node_index centre = 0; centre < n; ++centre) {
    const std::vector<node_index> order = order_from(centre);
    std::uint64_t score = 0;
    for (std::size_t k = 0; k < choice.wanted; ++k) {
      const std::uint64_t d = t.distance(order[k], centre);
      score = detail::numad_saturating_add(score, magnitude[order[k]] / (d * d));
    }
    if (centre == 0 || best_score < score) {
      best_score = score;
      choice.centre = centre;
    }
  }

  // Take nodes from the winner outwards until the demand is met.
  const std::vector<node_index> order = order_from(choice.centre);
  std::size_t resource_nodes = 0;  // nodes with memory: taking them all ends the search
  for (const numad_node& node : nodes) resource_nodes += node.total_mib >= 1;
  constexpr std::int64_t margin_mib = 100;  // numad's MBS_MARGIN
  // Signed: a node with under 100 MB free raises what is left. Demands past 2^62 are clamped.
  constexpr std::uint64_t clamp = std::uint64_t{1} << 62;
  std::int64_t mib_left = static_cast<std::int64_t>(std::min(mib, clamp));
  std::uint64_t cpu_left = cpu_hundredths;
  std::size_t wanted_left = choice.wanted;
  std::size_t taken_resources = 0;
  for (std::size_t k = 0; k < n && (wanted_left > 0 || mib_left > 0 || cpu_left > 0); ++k) {
    const node_index i = order[k];
    choice.taken.push_back(i);
    if (wanted_left > 0) --wanted_left;
    taken_resources += nodes[i].total_mib >= 1;
    const auto node_free = static_cast<std::int64_t>(std::min(free_mib[i], clamp));
    if (node_free >= mib_left + margin_mib) {
      mib_left = 0;
    } else {
      mib_left -= node_free - margin_mib;
    }
    cpu_left -= std::min(cpu_left, free_cpu[i]);
    // numad stops here before counting the node; counting it first changes no answer and
    // says whether the demand was met.
    if (taken_resources == resource_nodes && choice.taken.size() == taken_resources) break;
  }
  choice.met = wanted_left == 0 && mib_left <= 0 && cpu_left == 0;
  choice.mib_left = mib_left > 0 ? static_cast<std::uint64_t>(mib_left) : 0;
  choice.cpu_left = cpu_left;
  choice.nodes = choice.taken;
  std::sort(choice.nodes.begin(), choice.nodes.end());
  return choice;
}

}  // namespace numaplace
