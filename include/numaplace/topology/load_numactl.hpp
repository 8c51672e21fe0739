#pragma once
// `numactl --hardware` output, as people paste it into bug reports and mails:
//
//   available: 2 nodes (0-1)
//   node 0 cpus: 0 1 2 3
//   node 0 size: 15975 MB
//   node 0 free: 10000 MB
//   ...
//   node distances:
//   node   0   1
//     0:  10  20
//     1:  20  10
//
// Mail clients wrap long cpu lists, so a line holding only numbers continues the "cpus:" line
// above it. Anything else unrecognised is an error: a guess would describe another machine.
// The "free:" lines are not topology; numactl_details keeps them for whoever wants them.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynamic_topology.hpp"
#include "text_input.hpp"
#include "types.hpp"

namespace numaplace::load {

namespace detail {

// What the lines before the table said about one node.
struct numactl_node {
  node_id id = 0;
  std::size_t first_line = 0;
  std::optional<std::vector<unsigned>> cpus;  // absent: no "cpus:" line
  std::size_t cpus_line = 0;
  std::optional<std::uint64_t> memory_bytes;  // absent: no "size:" line, or "<not available>"
  bool has_size_line = false;
  std::optional<std::uint64_t> free_bytes;  // absent: no "free:" line, or "<not available>"
  std::size_t free_line = 0;
};

// "64177 MB" (numactl prints MB; kB and GB are taken too) or numactl's "<not available>".
inline std::optional<std::uint64_t> numactl_size(std::string_view text, const std::string& source, std::size_t line) {
  text = trim_blank(text);
  if (text == "<not available>") return std::nullopt;
  const auto words = split_words(text);
  if (words.size() != 2) fail(source, line, "expected a size such as '64177 MB', found '" + numaplace::detail::excerpt(text) + "'");
  const std::uint64_t count = parse_unsigned(words[0], "size", std::numeric_limits<std::uint64_t>::max(), source, line);
  std::uint64_t unit = 0;
  if (words[1] == "kB" || words[1] == "KB") unit = std::uint64_t{1} << 10;
  if (words[1] == "MB") unit = std::uint64_t{1} << 20;
  if (words[1] == "GB") unit = std::uint64_t{1} << 30;
  if (unit == 0) fail(source, line, "unknown size unit '" + numaplace::detail::excerpt(words[1]) + "' (expected kB, MB or GB)");
  return bytes_of(count, unit, source, line);
}

inline void append_cpus(std::vector<unsigned>& cpus, const std::vector<std::string_view>& words,
                        const std::string& source, std::size_t line) {
  for (const auto word : words) {
    cpus.push_back(static_cast<unsigned>(parse_unsigned(word, "CPU number", max_cpu_number, source, line)));
  }
}

}  // namespace detail

/// What a numactl dump says besides the topology.
struct numactl_details {
  /// Each "node N free: X MB" line, by node id: the free memory when the dump was taken.
  std::map<node_id, std::uint64_t> free_bytes;
};

/// Parses `numactl --hardware` output. Nodes and their order come from the distance table's
/// header row (ids may have holes); a node whose "cpus:" list is empty has no CPU, one of size
/// 0 MB no memory. Throws topology_error naming `source`, the line and what was wrong.
inline dynamic_topology numactl_text(std::string_view text, const std::string& source = "numactl",
                                     numactl_details* details = nullptr) {
  using detail::fail;
  std::vector<detail::numactl_node> described;  // in order of first mention; ids < max_nodes bound its size
  const auto node_named = [&](node_id id, std::size_t line) -> std::size_t {
    for (std::size_t i = 0; i < described.size(); ++i) {
      if (described[i].id == id) return i;
    }
    described.push_back({});
    described.back().id = id;
    described.back().first_line = line;
    return described.size() - 1;
  };
  constexpr std::size_t none = static_cast<std::size_t>(-1);

  std::optional<std::size_t> available;
  std::size_t available_line = 0;
  std::vector<unsigned> available_ids;
  std::vector<node_id> header;
  std::size_t header_line = 0;
  std::size_t table_line = 0;
  std::vector<std::vector<long long>> rows;
  std::vector<detail::row_origin> row_origins;
  std::vector<bool> row_seen;
  std::size_t continuing = none;  // the node whose "cpus:" line a bare number line continues

  for (const auto& [raw, number] : detail::split_lines(text)) {
    const std::string_view line = detail::trim_blank(raw);
    const auto words = detail::split_words(line);
    if (words.empty()) {
      continuing = none;
      continue;
    }

    if (table_line != 0) {
      // Inside the table: the header row, then "  0:  10  20 ..." rows.
      if (header_line == 0) {
        if (words[0] != "node") fail(source, number, "expected the header row 'node 0 1 ...' after 'node distances:'");
        if (words.size() - 1 > max_nodes) {
          fail(source, number,
               "the header lists " + std::to_string(words.size() - 1) + " nodes, more than the " +
                   std::to_string(max_nodes) + " supported");
        }
        for (std::size_t i = 1; i < words.size(); ++i) {
          const node_id id = detail::parse_node_id(words[i], source, number);
          for (const node_id seen : header) {
            if (seen == id) fail(source, number, "node " + std::to_string(id) + " appears twice in the header row");
          }
          header.push_back(id);
        }
        if (header.empty()) fail(source, number, "the header row lists no nodes");
        header_line = number;
        rows.assign(header.size(), {});
        row_origins.assign(header.size(), {source, 0});
        row_seen.assign(header.size(), false);
        continue;
      }
      if (!words[0].ends_with(':')) {
        fail(source, number, "expected a distance row such as '0: 10 20', found '" + numaplace::detail::excerpt(line) + "'");
      }
      const node_id id = detail::parse_node_id(words[0].substr(0, words[0].size() - 1), source, number);
      std::size_t r = 0;
      while (r < header.size() && header[r] != id) ++r;
      if (r == header.size())
        fail(source, number, "row for node " + std::to_string(id) + ", which the header does not list");
      if (row_seen[r]) fail(source, number, "a second row for node " + std::to_string(id));
      row_seen[r] = true;
      row_origins[r].line = number;
      if (words.size() - 1 != header.size()) {
        fail(source, number,
             "the row for node " + std::to_string(id) + " has " + std::to_string(words.size() - 1) +
                 " distances but the header lists " + std::to_string(header.size()) + " nodes");
      }
      for (std::size_t c = 1; c < words.size(); ++c) {
        try {
          rows[r].push_back(detail::parse_integer(words[c], "distance", source, number));
        } catch (const topology_error& e) {
          throw topology_error({source, number, r, c - 1}, e.reason());
        }
      }
      continue;
    }

    if (line == "node distances:") {
      table_line = number;
      continuing = none;
      continue;
    }
    if (words[0] == "available:") {
      // "available: 8 nodes (0-7)"
      if (available) fail(source, number, "a second 'available:' line");
      if (words.size() != 4 || words[2] != "nodes" || !words[3].starts_with('(') || !words[3].ends_with(')')) {
        fail(source, number, "expected 'available: N nodes (list)'");
      }
      available = detail::parse_unsigned(words[1], "node count", max_nodes, source, number);
      available_ids = parse_cpulist(words[3].substr(1, words[3].size() - 2), source, number);
      available_line = number;
      continuing = none;
      continue;
    }
    if (words[0] == "node" && words.size() >= 3) {
      // "node 3 cpus: ...", "node 3 size: ...", "node 3 free: ..."
      const node_id id = detail::parse_node_id(words[1], source, number);
      const std::size_t index = node_named(id, number);
      auto& node = described[index];
      const auto rest = line.substr(line.find(words[2]) + words[2].size());
      continuing = none;
      if (words[2] == "cpus:") {
        if (node.cpus) fail(source, number, "a second 'cpus:' line for node " + std::to_string(id));
        node.cpus.emplace();
        node.cpus_line = number;
        detail::append_cpus(*node.cpus, {words.begin() + 3, words.end()}, source, number);
        continuing = index;
      } else if (words[2] == "size:") {
        if (node.has_size_line) fail(source, number, "a second 'size:' line for node " + std::to_string(id));
        node.has_size_line = true;
        node.memory_bytes = detail::numactl_size(rest, source, number);
      } else if (words[2] == "free:") {
        if (node.free_line != 0) fail(source, number, "a second 'free:' line for node " + std::to_string(id));
        node.free_line = number;
        node.free_bytes = detail::numactl_size(rest, source, number);
      } else {
        fail(source, number, "unknown line '" + numaplace::detail::excerpt(line) + "'");
      }
      continue;
    }
    if (continuing != none && detail::all_digits(words[0])) {
      // A wrapped cpu list: the rest of the previous "cpus:" line.
      detail::append_cpus(*described[continuing].cpus, words, source, number);
      continue;
    }
    if (line == "No distance information available.") {
      fail(source, number, "numactl found no distance information");
    }
    fail(source, number, "unknown line '" + numaplace::detail::excerpt(line) + "'");
  }

  if (table_line == 0) fail(source, 0, "no 'node distances:' table");
  if (header_line == 0) fail(source, table_line, "the 'node distances:' table has no header row");
  for (std::size_t r = 0; r < header.size(); ++r) {
    if (!row_seen[r]) fail(source, header_line, "no distance row for node " + std::to_string(header[r]));
  }
  if (available) {
    if (available_ids.size() != *available) {
      fail(source, available_line,
           "'available:' says " + std::to_string(*available) + " nodes but lists " +
               std::to_string(available_ids.size()));
    }
    if (*available != header.size()) {
      fail(source, available_line,
           "'available:' says " + std::to_string(*available) + " nodes but the table has " +
               std::to_string(header.size()));
    }
    for (const unsigned id : available_ids) {
      bool listed = false;
      for (const node_id h : header) listed = listed || h == static_cast<node_id>(id);
      if (!listed) fail(source, available_line, "node " + std::to_string(id) + " is available but not in the table");
    }
  }

  std::vector<node_attributes> nodes(header.size());
  std::vector<detail::row_origin> node_origins = row_origins;
  for (std::size_t i = 0; i < header.size(); ++i) nodes[i].id = header[i];
  for (const auto& d : described) {
    std::size_t i = 0;
    while (i < header.size() && header[i] != d.id) ++i;
    if (i == header.size()) {
      fail(source, d.first_line, "node " + std::to_string(d.id) + " is described but not in the distance table");
    }
    if (d.cpus) {
      nodes[i].cpus = *d.cpus;
      nodes[i].has_cpu = !d.cpus->empty();
      node_origins[i].line = d.cpus_line;
    }
    if (d.memory_bytes) {
      nodes[i].memory_bytes = *d.memory_bytes;
      nodes[i].has_memory = *d.memory_bytes != 0;
    }
    if (d.free_bytes) {
      // MemFree never exceeds MemTotal: a dump saying so was edited.
      if (d.memory_bytes && *d.free_bytes > *d.memory_bytes) {
        fail(source, d.free_line,
             "node " + std::to_string(d.id) + " has more memory free (" + std::to_string(*d.free_bytes >> 20) +
                 " MB) than its size (" + std::to_string(*d.memory_bytes >> 20) + " MB)");
      }
      if (details != nullptr) details->free_bytes[d.id] = *d.free_bytes;
    }
  }
  return detail::build(rows, std::move(nodes), source, row_origins, node_origins);
}

/// numactl_text on a file's contents; errors name the file.
inline dynamic_topology numactl_file(const std::filesystem::path& path, numactl_details* details = nullptr) {
  return numactl_text(detail::read_text(path), path.string(), details);
}

}  // namespace numaplace::load
