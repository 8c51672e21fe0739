#pragma once
// One field of a node's /sys/devices/system/node/nodeN/meminfo, whose lines the kernel writes
// as "Node N Field:   value kB" (drivers/base/node.c, node_read_meminfo). numaplace-style
// advice reads MemFree from here: what a new job could get on the node without reclaim.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include "text_input.hpp"
#include "types.hpp"

namespace numaplace::load {

/// The value of `field` (e.g. "MemFree") in the meminfo text of node `id`, in bytes. Throws
/// topology_error naming `source` and the line when the field is missing, repeated, written for
/// another node, or not "<number> kB".
inline std::uint64_t node_meminfo_bytes(std::string_view text, node_id id, std::string_view field,
                                        const std::string& source) {
  using detail::fail;
  const std::string key = std::string(field) + ":";
  std::size_t found_on = 0;
  std::uint64_t bytes = 0;
  for (const auto& [line, number] : detail::split_lines(text)) {
    const auto words = detail::split_words(line);
    if (words.size() < 3 || words[2] != key) continue;
    if (found_on != 0) {
      fail(source, number, key + " appears again (first on line " + std::to_string(found_on) + ")");
    }
    if (words.size() != 5 || words[0] != "Node" || words[4] != "kB") {
      fail(source, number, "expected 'Node " + std::to_string(id) + " " + key + " <number> kB'");
    }
    if (detail::parse_node_id(words[1], source, number) != id) {
      fail(source, number,
           "the " + key + " line is for node " + numaplace::detail::excerpt(words[1]) + ", not node " + std::to_string(id));
    }
    const auto kib =
        detail::parse_unsigned(words[3], std::string(field), std::numeric_limits<std::uint64_t>::max(), source, number);
    bytes = detail::bytes_of(kib, 1024, source, number);
    found_on = number;
  }
  if (found_on == 0) fail(source, 0, "no " + key + " line");
  return bytes;
}

/// The same, read from `root`/nodeN/meminfo.
inline std::uint64_t node_meminfo_bytes(const std::filesystem::path& root, node_id id, std::string_view field) {
  const auto file = root / ("node" + std::to_string(id)) / "meminfo";
  return node_meminfo_bytes(detail::read_text(file), id, field, file.string());
}

}  // namespace numaplace::load
