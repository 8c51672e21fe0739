#pragma once
// The machine a runtime example runs on: its topology (sysfs), and which of the CPUs this
// process may use (sched_getaffinity) are on which node.

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <sched.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace numa_runtime {

using numaplace::node_index;

/// The machine: its topology, and which of the CPUs this process may use
/// (sched_getaffinity) are on which node.
struct machine {
  numaplace::dynamic_topology topology;
  std::vector<std::vector<unsigned>> cpus;  ///< per node index: the usable CPUs

  static machine from_sysfs(const std::filesystem::path& root = "/sys/devices/system/node") {
    return from_topology(numaplace::load::sysfs(root));
  }

  /// Any topology whose nodes list their CPUs (load::sysfs, load::hwloc_this_machine).
  static machine from_topology(numaplace::dynamic_topology t) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
      throw std::runtime_error(std::string("sched_getaffinity: ") + std::strerror(errno));
    }
    machine m{std::move(t), {}};
    m.cpus.resize(m.topology.node_count());
    for (node_index n = 0; n < m.topology.node_count(); ++n) {
      for (const unsigned cpu : m.topology.cpus(n)) {
        if (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed)) m.cpus[n].push_back(cpu);
      }
    }
    return m;
  }

  std::size_t cpu_count() const noexcept {
    std::size_t c = 0;
    for (const auto& v : cpus) c += v.size();
    return c;
  }
};

}  // namespace numa_runtime
