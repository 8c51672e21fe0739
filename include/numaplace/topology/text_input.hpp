#pragma once
// What every text loader shares: reading a file safely, splitting lines and words, strict
// numbers, and turning a validated matrix into a topology with errors located in the input.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "cpulist.hpp"
#include "dynamic_topology.hpp"
#include "error.hpp"
#include "types.hpp"
#include "validate.hpp"

namespace numaplace::load::detail {

/// No topology description comes near this (a 1024-node matrix is about 4 MiB); the bound
/// keeps "/dev/zero" or a wrong path from eating memory.
inline constexpr std::uintmax_t max_input_bytes = 16u << 20;

[[noreturn]] inline void fail(const std::string& source, std::size_t line, const std::string& what) {
  throw topology_error({source, line, std::nullopt, std::nullopt}, what);
}

/// The whole of `in` (at most max_input_bytes), e.g. standard input; `source` names it in errors.
inline std::string read_stream(std::istream& in, const std::string& source) {
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_input_bytes) {
      fail(source, 0, "is larger than " + std::to_string(max_input_bytes >> 20) + " MiB: not a topology description");
    }
  }
  if (in.bad()) fail(source, 0, "could not be read");
  return text;
}

/// The whole file: a regular file, or a device read to its end or to max_input_bytes. A FIFO
/// or a socket is refused by name: opening one blocks until something writes to it, and the
/// standard library cannot open it without waiting. A FIFO such as <(numactl --hardware) is
/// read by the caller and given to the loader's `_text` form (the CLI does so, with a timeout).
inline std::string read_text(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) fail(source, 0, "is a loop of symbolic links");
  if (ec == std::errc::permission_denied) fail(source, 0, "cannot be reached: permission denied");
  if (ec || !std::filesystem::exists(status)) fail(source, 0, "no such file");
  if (std::filesystem::is_directory(status)) fail(source, 0, "is a folder, not a file");
  if (std::filesystem::is_fifo(status) || std::filesystem::is_socket(status)) {
    fail(source, 0,
         std::string("is a ") + (std::filesystem::is_fifo(status) ? "FIFO" : "socket") +
             ", not a file: reading it could wait forever (read it yourself and pass the text to the loader's "
             "_text form)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(source, 0, "cannot be opened for reading");
  return read_stream(in, source);
}

struct text_line {
  std::string_view text;  ///< without the newline (and without a DOS carriage return)
  std::size_t number;     ///< 1-based
};

inline std::vector<text_line> split_lines(std::string_view text) {
  std::vector<text_line> lines;
  std::size_t start = 0;
  std::size_t number = 1;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, number++});
    start = end + 1;
  }
  return lines;
}

using numaplace::detail::trim_blank;

inline std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    i = text.find_first_not_of(" \t\r\n", i);
    if (i == std::string_view::npos) break;
    auto end = text.find_first_of(" \t\r\n", i);
    if (end == std::string_view::npos) end = text.size();
    words.push_back(text.substr(i, end - i));
    i = end;
  }
  return words;
}

/// Whether `text` is only decimal digits (and at least one).
inline bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

/// A signed decimal integer, nothing else: "12abc", "1e3", "+5" and "0x10" are errors, and a
/// number beyond long long is an error rather than a wrapped value. `what` names the field.
inline long long parse_integer(std::string_view word, const std::string& what, const std::string& source,
                               std::size_t line) {
  const std::string_view digits = (!word.empty() && word[0] == '-') ? word.substr(1) : word;
  if (!all_digits(digits)) fail(source, line, what + " '" + numaplace::detail::excerpt(word) + "' is not a whole number");
  long long value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec == std::errc::result_out_of_range) fail(source, line, what + " " + numaplace::detail::excerpt(word) + " is too large");
  if (ec != std::errc{} || end != word.data() + word.size()) {
    fail(source, line, what + " '" + numaplace::detail::excerpt(word) + "' is not a whole number");
  }
  return value;
}

/// A non-negative integer that fits `limit`.
inline std::uint64_t parse_unsigned(std::string_view word, const std::string& what, std::uint64_t limit,
                                    const std::string& source, std::size_t line) {
  if (!word.empty() && word[0] == '-' && all_digits(word.substr(1))) {
    // "-0" is no negative number, but a sign is still not what the kernel writes here.
    const bool zero = word.find_first_not_of('0', 1) == std::string_view::npos;
    fail(source, line, what + " " + numaplace::detail::excerpt(word) + (zero ? " has a sign; expected a whole number from 0" : " is negative"));
  }
  if (!all_digits(word)) fail(source, line, what + " '" + numaplace::detail::excerpt(word) + "' is not a whole number");
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec == std::errc::result_out_of_range || value > limit) {
    fail(source, line, what + " " + numaplace::detail::excerpt(word) + " is larger than " + std::to_string(limit));
  }
  return value;
}

/// A node id as Linux allows it: 0..max_nodes-1.
inline node_id parse_node_id(std::string_view word, const std::string& source, std::size_t line) {
  return static_cast<node_id>(parse_unsigned(word, "node id", max_nodes - 1, source, line));
}

/// A node list ("0-1,3", as sysfs `online` and /proc/PID/status Mems_allowed_list write it):
/// a cpulist whose numbers are node ids, so each must be below max_nodes.
inline std::vector<unsigned> parse_node_list(std::string_view text, const std::string& source, std::size_t line) {
  auto ids = parse_cpulist(text, source, line);
  for (const unsigned id : ids) {
    if (id >= max_nodes) {
      fail(source, line, "node id " + std::to_string(id) + " is outside 0.." + std::to_string(max_nodes - 1));
    }
  }
  return ids;
}

/// Memory given as a count of `unit` bytes, refusing a product that overflows 64 bits.
inline std::uint64_t bytes_of(std::uint64_t count, std::uint64_t unit, const std::string& source, std::size_t line) {
  if (count > std::numeric_limits<std::uint64_t>::max() / unit) fail(source, line, "memory size is too large");
  return count * unit;
}

/// A memory size: bytes, or a count with a K, M, G or T suffix in binary multiples ("16G"), as
/// numactl and the kernel print sizes. `what` names the field in errors.
inline std::uint64_t parse_memory_size(std::string_view word, const std::string& what, const std::string& source,
                                       std::size_t line) {
  std::uint64_t unit = 1;
  if (!word.empty()) {
    const std::string_view suffixes = "KMGT";
    if (const auto at = suffixes.find(word.back()); at != std::string_view::npos) {
      unit = std::uint64_t{1} << (10 * (at + 1));
      word.remove_suffix(1);
    }
  }
  return parse_unsigned(word, what, std::numeric_limits<std::uint64_t>::max() / unit, source, line) * unit;
}

/// Where one matrix row came from, so a validation error can name the file and line.
struct row_origin {
  std::string source;
  std::size_t line = 0;
};

/// Validates, checks ids and CPUs, then builds. Errors about a row point at `row_origins`,
/// about a node's id or CPUs at `node_origins` (where that node was described), about the
/// whole matrix at `source`.
inline dynamic_topology build(const std::vector<std::vector<long long>>& rows, std::vector<node_attributes> nodes,
                              const std::string& source, const std::vector<row_origin>& row_origins,
                              const std::vector<row_origin>& node_origins) {
  const matrix_problem p = find_matrix_problem(
      rows.size(), [&](std::size_t r) { return rows[r].size(); },
      [&](std::size_t r, std::size_t c) { return rows[r][c]; });
  if (p) {
    const topology_error e = to_error(p);
    if (p.kind == matrix_problem_kind::empty || p.kind == matrix_problem_kind::too_many_nodes) {
      throw e.located(source, 0);
    }
    throw e.located(row_origins[p.row].source, row_origins[p.row].line);
  }
  // Duplicate ids and CPUs claimed by two nodes: dynamic_topology would report the former
  // without a file; the latter it cannot see at all.
  std::vector<int> owner_of_id(max_nodes, -1);
  std::vector<int> owner_of_cpu(std::size_t{max_cpu_number} + 1, -1);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const node_id id = nodes[i].id;
    const row_origin& at = node_origins[i];
    if (id < 0 || static_cast<std::size_t>(id) >= max_nodes) {
      fail(at.source, at.line, "node id " + std::to_string(id) + " is outside 0.." + std::to_string(max_nodes - 1));
    }
    if (owner_of_id[static_cast<std::size_t>(id)] >= 0) {
      fail(at.source, at.line, "node " + std::to_string(id) + " appears twice");
    }
    owner_of_id[static_cast<std::size_t>(id)] = id;
    for (const unsigned cpu : nodes[i].cpus) {
      int& owner = owner_of_cpu[cpu];
      if (owner >= 0) {
        fail(at.source, at.line,
             "CPU " + std::to_string(cpu) + " is listed for both node " + std::to_string(owner) + " and node " +
                 std::to_string(id));
      }
      owner = id;
    }
  }
  return dynamic_topology(rows, std::move(nodes));
}

}  // namespace numaplace::load::detail
