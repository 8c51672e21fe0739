#pragma once
// The machine itself, from Linux's /sys/devices/system/node:
//   online, has_cpu, has_memory   node lists such as "0-1,3"
//   nodeN/distance                one line: N's distance to every *online* node, in id order
//                                 (drivers/base/node.c, node_read_distance: for_each_online_node)
//   nodeN/cpulist                 "0-3,8-11", empty for a CPU-less node
//   nodeN/meminfo                 "Node N MemTotal:   16384 kB" among other lines
// A tree copied elsewhere (hwloc's test tarballs, our fixtures) loads the same way.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cpulist.hpp"
#include "dynamic_topology.hpp"
#include "node_meminfo.hpp"
#include "text_input.hpp"
#include "types.hpp"

namespace numaplace::load {

namespace detail {

// A node list file (online, has_cpu, has_memory); nullopt when the file is absent.
inline std::optional<std::vector<unsigned>> sysfs_node_list(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return std::nullopt;
  return parse_node_list(read_text(file), file.string(), 1);
}

// Without an `online` file (some copied trees lack it), every nodeN folder counts as online.
inline std::vector<unsigned> sysfs_node_folders(const std::filesystem::path& root) {
  std::vector<unsigned> ids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("node") || !all_digits(std::string_view(name).substr(4))) continue;
    if (!entry.is_directory(ec)) continue;
    ids.push_back(static_cast<unsigned>(parse_node_id(std::string_view(name).substr(4), entry.path().string(), 0)));
  }
  if (ec) fail(root.string(), 0, "cannot list the folder: " + ec.message());
  std::sort(ids.begin(), ids.end());
  return ids;
}

// A nodeN/distance file's text: one line of `online_count` distances (blank lines aside), the
// row'th row of the matrix. Returns the row and its 1-based line number. Split out of sysfs()
// so that the parsing can be tested (and fuzzed) without a tree on disk.
inline std::pair<std::vector<long long>, std::size_t> sysfs_distance_row(std::string_view text,
                                                                         const std::string& source,
                                                                         std::size_t online_count, std::size_t row) {
  std::vector<long long> distances;
  std::size_t data_line = 0;
  for (const auto& [line, number] : split_lines(text)) {
    const auto words = split_words(line);
    if (words.empty()) continue;
    if (data_line != 0) fail(source, number, "more than one line of distances");
    data_line = number;
    if (words.size() != online_count) {
      fail(source, number,
           "has " + std::to_string(words.size()) + " distances but " + std::to_string(online_count) +
               " nodes are online (the kernel lists one per online node)");
    }
    for (std::size_t c = 0; c < words.size(); ++c) {
      try {
        distances.push_back(parse_integer(words[c], "distance", source, number));
      } catch (const topology_error& e) {
        throw topology_error({source, number, row, c}, e.reason());
      }
    }
  }
  if (data_line == 0) fail(source, 0, "is empty");
  return {std::move(distances), data_line};
}

inline bool contains(const std::optional<std::vector<unsigned>>& list, unsigned id) {
  return !list || std::binary_search(list->begin(), list->end(), id);
}

}  // namespace detail

/// Reads a sysfs node tree (the running machine's by default). Offline node folders are
/// skipped; without has_cpu / has_memory every online node is taken to have CPUs / memory.
/// Throws topology_error naming the file (and line, row, column) and what was wrong.
inline dynamic_topology sysfs(const std::filesystem::path& root = "/sys/devices/system/node") {
  using detail::fail;
  std::error_code ec;
  if (!std::filesystem::exists(root, ec)) fail(root.string(), 0, "no such folder");
  if (!std::filesystem::is_directory(root, ec)) fail(root.string(), 0, "is not a folder");

  const auto listed_online = detail::sysfs_node_list(root / "online");
  const std::vector<unsigned> online = listed_online ? *listed_online : detail::sysfs_node_folders(root);
  if (online.empty()) {
    fail(listed_online ? (root / "online").string() : root.string(), listed_online ? 1 : 0, "no online nodes");
  }
  const auto with_cpu = detail::sysfs_node_list(root / "has_cpu");
  const auto with_memory = detail::sysfs_node_list(root / "has_memory");

  std::vector<std::vector<long long>> rows;
  std::vector<node_attributes> nodes;
  std::vector<detail::row_origin> row_origins;
  std::vector<detail::row_origin> node_origins;
  for (const unsigned id : online) {
    const auto folder = root / ("node" + std::to_string(id));
    if (!std::filesystem::is_directory(folder, ec))
      fail(folder.string(), 0, "node " + std::to_string(id) + " is online but its folder is missing");

    const auto distance_file = folder / "distance";
    const std::string distance_source = distance_file.string();
    auto [row, data_line] =
        detail::sysfs_distance_row(detail::read_text(distance_file), distance_source, online.size(), rows.size());
    rows.push_back(std::move(row));
    row_origins.push_back({distance_source, data_line});

    node_attributes node;
    node.id = static_cast<node_id>(id);
    node.has_cpu = detail::contains(with_cpu, id);
    node.has_memory = detail::contains(with_memory, id);
    const auto cpulist_file = folder / "cpulist";
    if (std::filesystem::exists(cpulist_file, ec)) {
      node.cpus = parse_cpulist(detail::read_text(cpulist_file), cpulist_file.string(), 1);
    }
    const auto meminfo_file = folder / "meminfo";
    if (std::filesystem::exists(meminfo_file, ec)) {
      node.memory_bytes =
          node_meminfo_bytes(detail::read_text(meminfo_file), static_cast<node_id>(id), "MemTotal", meminfo_file.string());
    }
    nodes.push_back(std::move(node));
    node_origins.push_back({cpulist_file.string(), 1});
  }
  return detail::build(rows, std::move(nodes), root.string(), row_origins, node_origins);
}

}  // namespace numaplace::load
