#pragma once
// The SMT width of a machine from sysfs, as numad 0.5 reads it (numad.c, update_nodes): the
// number of CPUs in /sys/devices/system/cpu/cpu0/topology/thread_siblings, for the whole
// machine. Found beside a node folder: `root` is a nodes folder (/sys/devices/system/node),
// and the CPUs live in its sibling cpu/ (drivers/base/topology.c, thread_siblings_list).

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "cpulist.hpp"
#include "text_input.hpp"

namespace numaplace::load {

/// The siblings file of CPU 0 for the nodes folder `root` (root/../cpu/cpu0/topology/...).
inline std::filesystem::path sysfs_thread_siblings_file(const std::filesystem::path& root) {
  return root.parent_path() / "cpu" / "cpu0" / "topology" / "thread_siblings_list";
}

/// Threads per core: the CPUs CPU 0 shares its core with, itself included. None when the tree
/// has no such file (a recorded nodes folder, a kernel without CONFIG_SCHED_SMT's topology
/// files). Throws topology_error naming the file for a bad list or an empty one.
inline std::optional<unsigned> sysfs_threads_per_core(const std::filesystem::path& root) {
  const std::filesystem::path file = sysfs_thread_siblings_file(root);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  const auto cpus = parse_cpulist(detail::read_text(file), file.string(), 1);
  if (cpus.empty()) detail::fail(file.string(), 1, "lists no CPU (CPU 0 is its own sibling at least)");
  return static_cast<unsigned>(cpus.size());
}

}  // namespace numaplace::load
