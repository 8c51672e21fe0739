#pragma once
// Memory tiers, as Linux groups memory nodes for NUMA balancing's tiering mode
// (numa_balancing=2, mm/memory-tiers.c since 6.1): each node has an abstract distance, from its
// latency and bandwidth against the DRAM nodes' (mt_perf_to_adistance(), 6.7) or a driver's
// default, and nodes whose distances fall in one 128-wide chunk form a tier. Hot pages on a
// slower tier are promoted to a faster one; the fastest tiers are the "top tier" whose pages
// are never promoted. Without performance data (no HMAT, no CXL CDAT) every memory node sits in
// the DRAM tier, CPU-less or not.
//
// The kernel publishes its tiers in /sys/devices/virtual/memory_tiering/memory_tierN/nodelist,
// N being the tier's first abstract distance over 128; load::sysfs_memory_tiers reads them.
// lower_tier_nodes() says which nodes are below the top tier: memory to spill into, not a
// job's own.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "dynamic_topology.hpp"
#include "text_input.hpp"
#include "types.hpp"

namespace numaplace {

/// MEMTIER_CHUNK_BITS: a tier spans 128 abstract-distance units.
inline constexpr unsigned memtier_chunk_bits = 7;
/// MEMTIER_ADISTANCE_DRAM: where the DRAM nodes sit (4.5 chunks: tier 4).
inline constexpr long memtier_adistance_dram = 4L * (1L << memtier_chunk_bits) + (1L << memtier_chunk_bits) / 2;

/// A memory node's performance as HMAT (or CXL CDAT) reports it to the kernel
/// (struct access_coordinate): latencies in ns, bandwidths in MB/s.
struct memory_performance {
  unsigned read_latency = 0, write_latency = 0;
  unsigned read_bandwidth = 0, write_bandwidth = 0;
};

/// mt_perf_to_adistance() (6.7): DRAM's distance scaled by the latency over DRAM's and by DRAM's
/// bandwidth over the node's, in the kernel's integer arithmetic and order; -1 when either
/// side has no latency or no bandwidth (the kernel's -EINVAL: the node keeps its default).
constexpr long abstract_distance(const memory_performance& node, const memory_performance& dram) noexcept {
  const long latency = long{node.read_latency} + node.write_latency;
  const long bandwidth = long{node.read_bandwidth} + node.write_bandwidth;
  const long dram_latency = long{dram.read_latency} + dram.write_latency;
  const long dram_bandwidth = long{dram.read_bandwidth} + dram.write_bandwidth;
  if (latency == 0 || bandwidth == 0 || dram_latency == 0 || dram_bandwidth == 0) return -1;
  return memtier_adistance_dram * latency / dram_latency * dram_bandwidth / bandwidth;
}

/// The tier an abstract distance falls in: memory_tierN's N (find_create_memory_tier()).
constexpr unsigned memory_tier_id(long adistance) noexcept {
  return adistance <= 0 ? 0u : static_cast<unsigned>(adistance >> memtier_chunk_bits);
}

/// One of the kernel's memory tiers: its id (lower is faster) and its nodes.
struct memory_tier {
  unsigned id = 0;
  std::vector<unsigned> nodes;
};

/// The nodes below the top tier, ascending. The top tier is the slowest tier holding a node
/// with CPUs and every faster one (establish_demotion_targets() sets it, node_is_toptier()
/// asks it; mm/memory-tiers.c, 6.1 to 7.3): hot pages below it are promoted, and a runtime
/// should not count its nodes' memory as the job's own. `tiers` fastest first (as the
/// readers give them); `has_cpus(node id)`. None when no tier holds a node with CPUs (a
/// machine that could not run anything).
template <class HasCpus>
std::vector<unsigned> lower_tier_nodes(const std::vector<memory_tier>& tiers, HasCpus&& has_cpus) {
  std::size_t top = tiers.size();  // the index of the slowest tier with CPUs
  for (std::size_t k = 0; k < tiers.size(); ++k) {
    if (std::any_of(tiers[k].nodes.begin(), tiers[k].nodes.end(), has_cpus)) top = k;
  }
  std::vector<unsigned> below;
  if (top == tiers.size()) return below;
  for (std::size_t k = top + 1; k < tiers.size(); ++k) below.insert(below.end(), tiers[k].nodes.begin(), tiers[k].nodes.end());
  std::sort(below.begin(), below.end());
  return below;
}

/// Per dense index of `t`, whether the node is below the top tier of `tiers` (ids as `t`'s);
/// all false when `tiers` is empty. A node has CPUs as `t` says (has_cpu: N_CPU).
inline std::vector<bool> lower_tier_flags(const dynamic_topology& t, const std::vector<memory_tier>& tiers) {
  std::vector<bool> flags(t.node_count(), false);
  const auto has_cpus = [&](unsigned id) {
    const std::optional<node_index> n = t.index_of(static_cast<node_id>(id));
    return n && t.has_cpu(*n);
  };
  for (const unsigned id : lower_tier_nodes(tiers, has_cpus)) {
    if (const std::optional<node_index> n = t.index_of(static_cast<node_id>(id))) flags[*n] = true;
  }
  return flags;
}

/// Tiers from each node's tier id (memory_tier_id()), fastest first, their nodes ascending:
/// the list the kernel keeps, for a machine whose tiers are computed rather than read.
inline std::vector<memory_tier> group_memory_tiers(const std::vector<std::pair<unsigned, unsigned>>& node_and_tier) {
  std::vector<memory_tier> tiers;
  for (const auto& [node, id] : node_and_tier) {
    auto it = std::lower_bound(tiers.begin(), tiers.end(), id, [](const memory_tier& t, unsigned v) { return t.id < v; });
    if (it == tiers.end() || it->id != id) it = tiers.insert(it, memory_tier{id, {}});
    it->nodes.push_back(node);
  }
  for (memory_tier& t : tiers) std::sort(t.nodes.begin(), t.nodes.end());
  return tiers;
}

namespace load {

namespace detail {
/// N of a folder named memory_tierN; empty for anything else the folder holds (uevent, power).
inline std::string_view memory_tier_number(std::string_view folder_name) {
  constexpr std::string_view prefix = "memory_tier";
  if (!folder_name.starts_with(prefix) || !all_digits(folder_name.substr(prefix.size()))) return {};
  return folder_name.substr(prefix.size());
}

/// One memory_tierN folder: its name and its nodelist file's text; nullopt when the name is not
/// a tier's. Split out so it can be fuzzed.
inline std::optional<memory_tier> parse_memory_tier(std::string_view folder_name, std::string_view nodelist,
                                                    const std::string& source) {
  const std::string_view number = memory_tier_number(folder_name);
  if (number.empty()) return std::nullopt;
  memory_tier t;
  t.id = static_cast<unsigned>(parse_integer(number, "tier number", source, 0));
  t.nodes = parse_node_list(nodelist, source, 1);
  return t;
}
}  // namespace detail

/// The running kernel's memory tiers, fastest first, from `root`'s memory_tierN/nodelist files
/// (a tree copied elsewhere reads the same). Empty when the folder is absent (a kernel before
/// 6.1 or without NUMA). Throws topology_error naming the file and what was wrong.
inline std::vector<memory_tier> sysfs_memory_tiers(const std::filesystem::path& root = "/sys/devices/virtual/memory_tiering") {
  std::vector<memory_tier> tiers;
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return tiers;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (detail::memory_tier_number(name).empty()) continue;
    const auto nodelist = entry.path() / "nodelist";
    if (auto t = detail::parse_memory_tier(name, detail::read_text(nodelist), nodelist.string())) tiers.push_back(std::move(*t));
  }
  if (ec) detail::fail(root.string(), 0, "cannot list the folder: " + ec.message());
  std::sort(tiers.begin(), tiers.end(), [](const memory_tier& a, const memory_tier& b) { return a.id < b.id; });
  return tiers;
}

/// The memory tiers beside a sysfs node folder: ROOT/../../virtual/memory_tiering for a ROOT
/// that ends in devices/system/node, as /sys's does and a copied tree may; none for a bare
/// node tree, whose kernel's tiers were not kept.
inline std::vector<memory_tier> sysfs_memory_tiers_beside(const std::filesystem::path& nodes_root) {
  const std::filesystem::path node = nodes_root.lexically_normal();
  const std::filesystem::path tail = node.has_filename() ? node : node.parent_path();
  if (tail.filename() != "node" || tail.parent_path().filename() != "system" ||
      tail.parent_path().parent_path().filename() != "devices") {
    return {};
  }
  return sysfs_memory_tiers(tail.parent_path().parent_path() / "virtual" / "memory_tiering");
}

}  // namespace load
}  // namespace numaplace
