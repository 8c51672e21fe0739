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

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "text_input.hpp"

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

}  // namespace load
}  // namespace numaplace
