#pragma once
// A distance matrix as plain text: one row per line, numbers separated by blanks, `#` comments
// (whole-line or trailing) and blank lines ignored. The form people paste and the form of the
// real machines in test/data/topologies.
//
// Optional node lines, before, between or after the rows, say what a node holds:
//
//   node 0 cpus 0-15 memory 64G
//   node 2 cpus none memory 256G     # a CPU-less (CXL) memory node
//
// `cpus` takes a cpulist or `none`, `memory` a size (bytes, or K, M, G, T) or `none`; either
// may be left out (then unknown, as for a node without a line). The id is the node's OS id
// (from the "# node ids" comment, else its row index).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dynamic_topology.hpp"
#include "text_input.hpp"
#include "types.hpp"

namespace numaplace::load {

namespace detail {

// "# node ids (OS numbering, row/column order): 0 1 4 5": the comment that gives sparse OS
// ids. Returns the text after the colon when `comment` (without its '#') is of that form.
inline std::optional<std::string_view> node_ids_comment(std::string_view comment) {
  comment = trim_blank(comment);
  if (!comment.starts_with("node ids")) return std::nullopt;
  const auto colon = comment.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return comment.substr(colon + 1);
}

// One "node ID cpus LIST memory SIZE" line, before the matrix says which nodes exist.
struct node_line {
  node_id id = 0;
  std::size_t line = 0;
  std::optional<std::vector<unsigned>> cpus;  ///< set when given; empty for `none`
  std::optional<std::uint64_t> memory_bytes;  ///< set when given; 0 for `none`
};

// `words` is the line without its comment, starting with "node".
inline node_line parse_node_line(const std::vector<std::string_view>& words, const std::string& source,
                                 std::size_t number) {
  if (words.size() < 2) detail::fail(source, number, "a node line needs a node id: node ID cpus LIST memory SIZE");
  node_line n;
  n.id = parse_node_id(words[1], source, number);
  n.line = number;
  const std::string node = "node " + std::to_string(n.id);
  for (std::size_t w = 2; w < words.size(); w += 2) {
    const std::string_view key = words[w];
    if (key != "cpus" && key != "memory") {
      fail(source, number, node + ": expected 'cpus LIST' or 'memory SIZE', got '" + numaplace::detail::excerpt(key) + "'");
    }
    if (w + 1 == words.size()) fail(source, number, node + ": '" + numaplace::detail::excerpt(key) + "' needs a value (or none)");
    const std::string_view value = words[w + 1];
    if (key == "cpus") {
      if (n.cpus) fail(source, number, node + ": cpus are given twice");
      try {
        n.cpus = value == "none" ? std::vector<unsigned>{} : parse_cpulist(value, source, number);
      } catch (const topology_error& e) {
        fail(source, number, node + " cpus: " + e.reason());
      }
    } else {
      if (n.memory_bytes) fail(source, number, node + ": memory is given twice");
      n.memory_bytes = value == "none" ? 0 : parse_memory_size(value, node + " memory size", source, number);
      if (value != "none" && *n.memory_bytes == 0) {
        fail(source, number, node + ": memory size 0: write 'memory none' for a node without memory");
      }
    }
  }
  return n;
}

// Applies node lines to the nodes the matrix made; errors name the line of the node at fault.
inline void apply_node_lines(const std::vector<node_line>& lines, std::vector<node_attributes>& nodes,
                             std::vector<row_origin>& node_origins, const std::string& source) {
  std::vector<std::size_t> described_on(nodes.size(), 0);
  for (const node_line& l : lines) {
    std::size_t i = 0;
    while (i < nodes.size() && nodes[i].id != l.id) ++i;
    if (i == nodes.size()) {
      std::vector<unsigned> ids;
      for (const node_attributes& a : nodes) ids.push_back(static_cast<unsigned>(a.id));
      fail(source, l.line,
           "node " + std::to_string(l.id) + " is not in the matrix, whose nodes are " + format_cpulist(ids));
    }
    if (described_on[i] != 0) {
      fail(source, l.line,
           "node " + std::to_string(l.id) + " is described twice (first on line " + std::to_string(described_on[i]) +
               ")");
    }
    described_on[i] = l.line;
    node_origins[i].line = l.line;
    if (l.cpus) {
      nodes[i].cpus = *l.cpus;
      nodes[i].has_cpu = !l.cpus->empty();
    }
    if (l.memory_bytes) {
      nodes[i].memory_bytes = *l.memory_bytes;
      nodes[i].has_memory = *l.memory_bytes != 0;
    }
  }
}

}  // namespace detail

/// Parses a matrix and its node lines. A node without a line has CPUs (numbers unknown) and
/// memory (size unknown); ids are 0..n-1 unless a "# node ids ...: 0 1 4 5" comment gives them.
/// Throws topology_error naming `source`, the line, the node and what was wrong.
inline dynamic_topology matrix_text(std::string_view text, const std::string& source = "matrix") {
  std::vector<std::vector<long long>> rows;
  std::vector<detail::row_origin> origins;
  std::vector<node_id> ids;
  std::size_t ids_line = 0;
  std::vector<detail::node_line> node_lines;

  for (const auto& [line, number] : detail::split_lines(text)) {
    std::string_view data = line;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      data = line.substr(0, hash);
      if (const auto list = detail::node_ids_comment(line.substr(hash + 1))) {
        if (ids_line != 0) {
          detail::fail(source, number, "node ids are given twice (first on line " + std::to_string(ids_line) + ")");
        }
        ids_line = number;
        for (const auto word : detail::split_words(*list)) ids.push_back(detail::parse_node_id(word, source, number));
        if (ids.empty()) detail::fail(source, number, "the node ids comment lists no ids");
      }
    }
    const auto words = detail::split_words(data);
    if (words.empty()) continue;
    if (words[0] == "node") {
      if (node_lines.size() == max_nodes) detail::fail(source, number, "more node lines than nodes supported");
      node_lines.push_back(detail::parse_node_line(words, source, number));
      continue;
    }
    // Stop early: the validator would reject these anyway, after reading any amount of input.
    if (words.size() > max_nodes) {
      detail::fail(source, number,
                   "the row has " + std::to_string(words.size()) + " entries, more than the " +
                       std::to_string(max_nodes) + " nodes supported");
    }
    if (rows.size() == max_nodes) {
      detail::fail(source, number, "more than " + std::to_string(max_nodes) + " rows: too many nodes");
    }
    std::vector<long long> row;
    row.reserve(words.size());
    for (std::size_t c = 0; c < words.size(); ++c) {
      try {
        row.push_back(detail::parse_integer(words[c], "distance", source, number));
      } catch (const topology_error& e) {
        throw topology_error({source, number, rows.size(), c}, e.reason());
      }
    }
    rows.push_back(std::move(row));
    origins.push_back({source, number});
  }

  if (rows.empty()) detail::fail(source, 0, "no matrix rows: the input is empty or only comments");
  std::vector<detail::row_origin> node_origins = origins;
  if (ids_line != 0) {
    if (ids.size() != rows.size()) {
      detail::fail(source, ids_line,
                   "the node ids comment lists " + std::to_string(ids.size()) + " ids but the matrix has " +
                       std::to_string(rows.size()) + " rows");
    }
    for (auto& o : node_origins) o.line = ids_line;
  }
  std::vector<node_attributes> nodes(rows.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].id = ids_line != 0 ? ids[i] : static_cast<node_id>(i);
  detail::apply_node_lines(node_lines, nodes, node_origins, source);
  return detail::build(rows, std::move(nodes), source, origins, node_origins);
}

/// matrix_text on a file's contents; errors name the file.
inline dynamic_topology matrix_file(const std::filesystem::path& path) {
  return matrix_text(detail::read_text(path), path.string());
}

}  // namespace numaplace::load
