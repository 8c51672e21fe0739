#pragma once
// Vocabulary types shared by every numaplace header.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace numaplace {

/// A node's id as the operating system names it (sysfs `nodeN`); ids may have holes.
using node_id = int;

/// A node's dense position, 0..node_count()-1, in the order the topology lists nodes.
/// Decisions work on indices; ids are for people and for the kernel's interfaces.
using node_index = std::uint32_t;

/// A SLIT-style relative distance: 10 is local by convention, larger is farther.
using distance_t = std::uint16_t;

/// The local distance the ACPI SLIT and Linux both use.
inline constexpr distance_t slit_local_distance = 10;

/// Linux stores distances in a byte-wide bitmap and rejects anything outside 10..255.
inline constexpr distance_t max_valid_distance = 255;

/// Linux's largest MAX_NUMNODES (NODES_SHIFT = 10).
inline constexpr std::size_t max_nodes = 1024;

/// A CPU's dense index, 0..cpu_count()-1, as the caller (a runtime, the simulator) numbers them.
using cpu_index = std::uint32_t;
/// A task's dense index as the caller numbers them.
using task_index = std::uint32_t;
/// A numa_group's identity; the tasks of one group share it.
using group_index = std::uint32_t;

inline constexpr cpu_index no_cpu = ~cpu_index{0};
inline constexpr task_index no_task = ~task_index{0};
inline constexpr group_index no_group = ~group_index{0};

/// How the kernel's scheduler types a NUMA machine (kernel enum numa_topology_type).
enum class numa_kind : std::uint8_t {
  direct,         ///< every node one hop from every other
  glueless_mesh,  ///< far nodes reached through intermediate nodes
  backplane,      ///< groups of nodes joined by a backplane or node controllers
};

constexpr std::string_view to_string(numa_kind kind) noexcept {
  switch (kind) {
    case numa_kind::direct: return "direct";
    case numa_kind::glueless_mesh: return "glueless_mesh";
    case numa_kind::backplane: return "backplane";
  }
  return "unknown";
}

/// Which kernel's sched_init_numa() and init_numa_topology_type() to follow where they differ.
enum class kernel_era : std::uint8_t {
  v3_19,   ///< levels from node 0's row, identity excluded; DIRECT when <= 1 level
  v4_16,   ///< identity stored as level 0 but still DIRECT only when <= 1: 10/20 boxes read as backplane
  v5_10,   ///< node 0's row with the identity level, DIRECT when <= 2 (the v4.16 slip fixed)
  modern,  ///< all pairs of CPU-bearing nodes; DIRECT when <= 2 levels (v5.18+)
};

}  // namespace numaplace
