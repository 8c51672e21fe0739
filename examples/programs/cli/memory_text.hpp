#pragma once
// A node's memory size as people write it: "64 GiB", "4.6 GiB", "none", "unknown".

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

/// Binary units, one decimal where it matters.
inline std::string memory_text(const numaplace::node_attributes& node) {
  if (!node.has_memory) return "none";
  if (node.memory_bytes == 0) return "unknown";
  static constexpr std::array<const char*, 6> units{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(node.memory_bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < units.size()) {
    value /= 1024.0;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<std::uint64_t>(value))) return fmt::format("{} {}", value, units[unit]);
  return fmt::format("{:.1f} {}", value, units[unit]);
}

}  // namespace numaplace_cli
