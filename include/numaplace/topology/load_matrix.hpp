#pragma once
// A distance matrix as plain text: one row per line, numbers separated by blanks, `#` comments
// (whole-line or trailing) and blank lines ignored. The form people paste and the form of the
// real machines in test/data/topologies.

#include <cstddef>
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

}  // namespace detail

/// Parses a matrix. Every node has CPUs (numbers unknown) and memory; ids are 0..n-1 unless a
/// "# node ids ...: 0 1 4 5" comment gives them. Throws topology_error naming `source`, the
/// line and what was wrong.
inline dynamic_topology matrix_text(std::string_view text, const std::string& source = "matrix") {
  std::vector<std::vector<long long>> rows;
  std::vector<detail::row_origin> origins;
  std::vector<node_id> ids;
  std::size_t ids_line = 0;

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
  return detail::build(rows, std::move(nodes), source, origins, node_origins);
}

/// matrix_text on a file's contents; errors name the file.
inline dynamic_topology matrix_file(const std::filesystem::path& path) {
  return matrix_text(detail::read_text(path), path.string());
}

}  // namespace numaplace::load
