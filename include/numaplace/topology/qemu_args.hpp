#pragma once
// A topology as QEMU command-line arguments, to boot a real Linux kernel on a machine we
// only describe: `qemu-system-x86_64 <these> -kernel ...` gives the guest our nodes and SLIT.
//
// What QEMU (7.2, hw/core/numa.c) requires, and how it shapes the guest:
//  - node ids are dense, 0..n-1 (else "Node ID missing"): QEMU node i is our node *index* i.
//    Holes in OS ids (node 0 1 4 5 ...) cannot be reproduced; the guest numbers them densely.
//  - the local distance is 10 and remote ones 10..255; we give every ordered pair, so an
//    asymmetric matrix reaches the guest as written.
//  - the node memories must add up to -m. A CPU-less node gets memory and no cpus=, a
//    memory-less node cpus= and no memdev=; a node with neither would never come online.
//  - Linux numbers the guest's nodes in the order the SRAT first names them: QEMU lists
//    processors before memory, so CPU nodes come first. qemu_guest_node_ids says where each
//    of our nodes lands; it is the identity unless a CPU-less node precedes a CPU node.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynamic_topology.hpp"
#include "types.hpp"

namespace numaplace {

/// QEMU's MAX_NODES.
inline constexpr std::size_t qemu_max_nodes = 128;

namespace detail {

[[noreturn]] inline void qemu_cannot(const std::string& what) {
  throw std::invalid_argument("QEMU cannot boot this topology: " + what);
}

inline void check_qemu_can_boot(const dynamic_topology& t, unsigned cpus_per_node, std::uint64_t memory_mib_per_node) {
  if (cpus_per_node == 0) qemu_cannot("a node with CPUs needs at least one vCPU");
  if (memory_mib_per_node == 0) qemu_cannot("a node with memory needs at least 1 MiB");
  if (t.node_count() > qemu_max_nodes) {
    qemu_cannot(std::to_string(t.node_count()) + " nodes, QEMU supports " + std::to_string(qemu_max_nodes));
  }
  if (t.local_distance() != slit_local_distance) {
    qemu_cannot("local distance " + std::to_string(t.local_distance()) + ", QEMU and Linux require 10");
  }
  bool any_cpu = false;
  bool any_memory = false;
  for (node_index i = 0; i < t.node_count(); ++i) {
    if (!t.has_cpu(i) && !t.has_memory(i)) {
      qemu_cannot("node " + std::to_string(t.id_of(i)) + " has neither CPUs nor memory");
    }
    any_cpu = any_cpu || t.has_cpu(i);
    any_memory = any_memory || t.has_memory(i);
  }
  if (!any_cpu) qemu_cannot("no node has CPUs");
  if (!any_memory) qemu_cannot("no node has memory");
}

}  // namespace detail

/// The -smp, -m, -object and -numa arguments (each option and its value as separate words)
/// for a guest with `cpus_per_node` vCPUs on every node that has CPUs and
/// `memory_mib_per_node` MiB on every node that has memory. Each CPU node is one socket.
/// Throws std::invalid_argument for a topology QEMU cannot reproduce.
inline std::vector<std::string> qemu_numa_args(const dynamic_topology& t, unsigned cpus_per_node,
                                               std::uint64_t memory_mib_per_node) {
  detail::check_qemu_can_boot(t, cpus_per_node, memory_mib_per_node);
  const std::size_t n = t.node_count();
  std::size_t cpu_nodes = 0;
  std::size_t memory_nodes = 0;
  for (node_index i = 0; i < n; ++i) {
    cpu_nodes += t.has_cpu(i) ? 1 : 0;
    memory_nodes += t.has_memory(i) ? 1 : 0;
  }
  const std::string mib = std::to_string(memory_mib_per_node) + "M";

  std::vector<std::string> args{"-smp",
                                std::to_string(cpu_nodes * cpus_per_node) + ",sockets=" + std::to_string(cpu_nodes) +
                                    ",cores=" + std::to_string(cpus_per_node) + ",threads=1",
                                "-m", std::to_string(memory_nodes * memory_mib_per_node) + "M"};
  unsigned next_cpu = 0;
  for (node_index i = 0; i < n; ++i) {
    const std::string id = std::to_string(i);
    std::string node = "node,nodeid=" + id;
    if (t.has_cpu(i)) {
      node += ",cpus=" + std::to_string(next_cpu);
      if (cpus_per_node > 1) node += "-" + std::to_string(next_cpu + cpus_per_node - 1);
      next_cpu += cpus_per_node;
    }
    if (t.has_memory(i)) {
      args.insert(args.end(), {"-object", "memory-backend-ram,id=mem" + id + ",size=" + mib});
      node += ",memdev=mem" + id;
    }
    args.insert(args.end(), {"-numa", node});
  }
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = 0; b < n; ++b) {
      args.insert(args.end(), {"-numa", "dist,src=" + std::to_string(a) + ",dst=" + std::to_string(b) +
                                            ",val=" + std::to_string(t.distance(a, b))});
    }
  }
  return args;
}

/// The node id Linux gives each of our nodes (by index) in a guest booted with
/// qemu_numa_args: CPU nodes first, then CPU-less ones, each group in index order.
inline std::vector<node_id> qemu_guest_node_ids(const dynamic_topology& t) {
  std::vector<node_id> ids(t.node_count());
  node_id next = 0;
  for (const bool cpus : {true, false}) {
    for (node_index i = 0; i < t.node_count(); ++i) {
      if (t.has_cpu(i) == cpus) ids[i] = next++;
    }
  }
  return ids;
}

}  // namespace numaplace
