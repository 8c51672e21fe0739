#pragma once
// The machine as this process may use it: the sysfs topology (every node, every CPU), and per
// node the CPUs it may run on and whether it may allocate the node's memory.
//
//   usable CPUs of a node   its sysfs cpulist ∩ the affinity (sched_getaffinity) ∩ cpuset CPUs
//   memory allowed          the node has memory ∩ Mems_allowed ∩ cpuset mems
//
// The kernel already keeps the affinity within the cpuset (sched_setaffinity intersects with
// cpuset_cpus_allowed) and mems_allowed equal to the cpuset's mems, but a cpuset can change
// under a running task and its files are the authority, so both are read and intersected.
//
// The kernel's memory tiers (/sys/devices/virtual/memory_tiering, beside the node folder) say
// which nodes are slower memory: a CXL expander below the DRAM tier is memory to spill into,
// never a node to run on or a job's home (top_tier()).
//
// Node indexes are the topology's and never change: refresh() re-reads the restrictions only.
// A node going offline (or coming online) changes the topology itself, so refresh() throws
// nodes_changed instead, leaving the object as it was; read the machine again to go on.

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "../stats/fault_view.hpp"
#include "../topology/cpulist.hpp"
#include "../topology/dynamic_topology.hpp"
#include "../topology/error.hpp"
#include "../topology/load_sysfs.hpp"
#include "../topology/memory_tiers.hpp"
#include "../topology/types.hpp"
#include "cpuset.hpp"
#include "proc_status.hpp"

namespace numaplace::os {

/// Where a machine is read from: the live places by default, a fixture tree in tests.
struct roots {
  std::filesystem::path sysfs_nodes = "/sys/devices/system/node";
  std::filesystem::path process = "/proc/self";  ///< the /proc/PID folder: status and cgroup
  cgroup_mounts cgroups;
};

/// The CPUs the process may run on, ascending. The default for a fixture is its status file's
/// Cpus_allowed_list; for the live machine, the calling thread's sched_getaffinity.
using affinity_reader = std::function<std::vector<unsigned>()>;

/// sched_getaffinity(0): the calling thread's CPUs, ascending. Throws std::system_error.
inline std::vector<unsigned> calling_thread_affinity() {
  // A set for max_cpu_number + 1 CPUs (8 KiB) is never smaller than the kernel's nr_cpu_ids,
  // which sched_getaffinity needs (EINVAL otherwise).
  constexpr std::size_t count = std::size_t{max_cpu_number} + 1;
  cpu_set_t* set = CPU_ALLOC(count);
  if (set == nullptr) throw std::system_error(ENOMEM, std::generic_category(), "sched_getaffinity");
  const std::size_t bytes = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(bytes, set);
  if (sched_getaffinity(0, bytes, set) != 0) {
    const int error = errno;
    CPU_FREE(set);
    throw std::system_error(error, std::generic_category(), "sched_getaffinity");
  }
  std::vector<unsigned> cpus;
  // Stop at the last set CPU rather than test all 65536 bits.
  const auto total = static_cast<std::size_t>(CPU_COUNT_S(bytes, set));
  for (std::size_t cpu = 0; cpu < count && cpus.size() < total; ++cpu) {
    if (CPU_ISSET_S(cpu, bytes, set)) cpus.push_back(static_cast<unsigned>(cpu));
  }
  CPU_FREE(set);
  return cpus;
}

/// refresh() found the set of online nodes changed: the topology no longer describes the
/// machine. Names the nodes and the file that said so.
class nodes_changed : public topology_error {
 public:
  nodes_changed(const std::string& source, std::vector<node_id> offline, std::vector<node_id> online)
      : topology_error({source, 1, std::nullopt, std::nullopt}, describe(offline, online)),
        went_offline_(std::move(offline)),
        came_online_(std::move(online)) {}

  const std::vector<node_id>& went_offline() const noexcept { return went_offline_; }
  const std::vector<node_id>& came_online() const noexcept { return came_online_; }

 private:
  static std::string describe(const std::vector<node_id>& offline, const std::vector<node_id>& online) {
    const auto ids = [](const std::vector<node_id>& v) {
      std::string s;
      for (const node_id id : v) s += (s.empty() ? "" : ", ") + std::to_string(id);
      return s;
    };
    std::string s;
    if (!offline.empty()) s += (offline.size() == 1 ? "node " : "nodes ") + ids(offline) + " went offline";
    if (!online.empty()) {
      s += (s.empty() ? "" : " and ") + std::string(online.size() == 1 ? "node " : "nodes ") + ids(online) +
           " came online";
    }
    return s + "; the topology is out of date: read the machine again";
  }

  std::vector<node_id> went_offline_;
  std::vector<node_id> came_online_;
};

class usable_machine {
 public:
  /// This process as the calling thread sees it: live /sys, /proc/thread-self (affinity and
  /// cpusets are per thread; /proc/self where the kernel predates thread-self, Linux 3.17),
  /// the usual cgroup mounts and sched_getaffinity. refresh() then reads the thread calling it.
  static usable_machine this_process() {
    roots live;
    std::error_code ec;
    if (std::filesystem::is_directory("/proc/thread-self", ec)) live.process = "/proc/thread-self";
    return read(live, calling_thread_affinity);
  }

  /// Process `pid` as /proc shows it: its main thread's Cpus_allowed_list, Mems_allowed_list
  /// and cpuset. One that has exited is a topology_error: "/proc/PID: no such process ...".
  static usable_machine of_process(int pid) {
    roots other;
    other.process = "/proc/" + std::to_string(pid);
    return read(other);
  }

  /// The machine under `where`; `affinity` empty: Cpus_allowed_list of its status file.
  /// Throws topology_error for any malformed or missing file, naming it (and the line).
  static usable_machine read(const roots& where, affinity_reader affinity = {}) {
    usable_machine m(where, std::move(affinity), load::sysfs(where.sysfs_nodes));
    m.allowed_ = m.read_allowed();
    m.read_tiers();
    return m;
  }

  const dynamic_topology& topology() const noexcept { return topology_; }
  std::size_t node_count() const noexcept { return topology_.node_count(); }

  /// The CPUs of node `n` this process may run on, ascending.
  std::span<const unsigned> cpus(node_index n) const noexcept { return allowed_.cpus[n]; }
  /// Whether this process may allocate memory on node `n` (a memoryless node: never).
  bool memory_allowed(node_index n) const noexcept { return allowed_.memory[n]; }

  /// The kernel's memory tiers, fastest first; empty for a kernel without them (before 6.1)
  /// and for a node tree not read from its /sys place.
  const std::vector<memory_tier>& memory_tiers() const noexcept { return tiers_; }
  /// node_is_toptier(): node `n`'s memory is as fast as the fastest CPUs' own. False for a node
  /// below the top tier (lower_tier_nodes()), whose memory a job should spill into, not start
  /// on; with numa_balancing=2 the kernel promotes its hot pages. Every node is top tier when
  /// the kernel has no tiers.
  bool top_tier(node_index n) const noexcept { return n >= lower_tier_.size() || !lower_tier_[n]; }

  /// The nodes with a usable CPU or allowed memory, ascending.
  std::vector<node_index> usable_nodes() const {
    std::vector<node_index> out;
    for (node_index n = 0; n < node_count(); ++n) {
      if (!allowed_.cpus[n].empty() || allowed_.memory[n]) out.push_back(n);
    }
    return out;
  }

  /// The node whose sysfs cpulist has `cpu` (usable or not); no_node when none does.
  node_index node_of_cpu(unsigned cpu) const noexcept {
    const auto it = std::lower_bound(cpu_home_.begin(), cpu_home_.end(), cpu,
                                     [](const std::pair<unsigned, node_index>& e, unsigned c) { return e.first < c; });
    return it != cpu_home_.end() && it->first == cpu ? it->second : no_node;
  }

  /// How many CPUs this process may run on, over all nodes.
  std::size_t cpu_count() const noexcept {
    std::size_t c = 0;
    for (const auto& v : allowed_.cpus) c += v.size();
    return c;
  }

  /// Re-reads the affinity, the cpuset and Mems_allowed; true when any node's usable CPUs or
  /// memory changed. Throws nodes_changed when sysfs `online` no longer lists the topology's
  /// nodes, and topology_error for a malformed file; either way the object is unchanged.
  bool refresh() {
    check_online();
    allowed now = read_allowed();
    if (now == allowed_) return false;
    allowed_ = std::move(now);
    return true;
  }

 private:
  struct allowed {
    std::vector<std::vector<unsigned>> cpus;  // per node index
    std::vector<bool> memory;                 // per node index
    bool operator==(const allowed&) const = default;
  };

  usable_machine(roots where, affinity_reader affinity, dynamic_topology topology)
      : where_(std::move(where)), affinity_(std::move(affinity)), topology_(std::move(topology)) {
    for (node_index n = 0; n < topology_.node_count(); ++n) {
      for (const unsigned cpu : topology_.cpus(n)) cpu_home_.emplace_back(cpu, n);
    }
    std::sort(cpu_home_.begin(), cpu_home_.end());
  }

  allowed read_allowed() const {
    const process_status status = read_status(where_.process);
    const std::vector<unsigned> affinity = affinity_ ? affinity_() : status.cpus_allowed;
    const cpuset_limits cpuset = read_cpuset_of(where_.process, where_.cgroups);
    const auto in = [](const std::vector<unsigned>& sorted, unsigned v) {
      return std::binary_search(sorted.begin(), sorted.end(), v);
    };
    allowed out;
    out.cpus.resize(node_count());
    out.memory.resize(node_count());
    for (node_index n = 0; n < node_count(); ++n) {
      for (const unsigned cpu : topology_.cpus(n)) {
        if (in(affinity, cpu) && (!cpuset.cpus || in(*cpuset.cpus, cpu))) out.cpus[n].push_back(cpu);
      }
      const auto id = static_cast<unsigned>(topology_.id_of(n));
      out.memory[n] = topology_.has_memory(n) && in(status.mems_allowed, id) && (!cpuset.mems || in(*cpuset.mems, id));
    }
    return out;
  }

  // Tiers change only when a node comes or goes (dax/kmem onlining one), which refresh()
  // reports as nodes_changed: read once.
  void read_tiers() {
    tiers_ = load::sysfs_memory_tiers_beside(where_.sysfs_nodes);
    lower_tier_ = lower_tier_flags(topology_, tiers_);
  }

  // Without an `online` file load::sysfs took every node folder; then nothing can be compared.
  void check_online() const {
    const auto file = where_.sysfs_nodes / "online";
    const auto online = load::detail::sysfs_node_list(file);
    if (!online) return;
    std::vector<node_id> known;
    for (node_index n = 0; n < node_count(); ++n) known.push_back(topology_.id_of(n));
    std::sort(known.begin(), known.end());
    std::vector<node_id> now(online->begin(), online->end());
    std::vector<node_id> offline, came;
    std::set_difference(known.begin(), known.end(), now.begin(), now.end(), std::back_inserter(offline));
    std::set_difference(now.begin(), now.end(), known.begin(), known.end(), std::back_inserter(came));
    if (!offline.empty() || !came.empty()) throw nodes_changed(file.string(), std::move(offline), std::move(came));
  }

  roots where_;
  affinity_reader affinity_;
  dynamic_topology topology_;
  std::vector<std::pair<unsigned, node_index>> cpu_home_;  // (CPU, its node), by CPU
  allowed allowed_;
  std::vector<memory_tier> tiers_;
  std::vector<bool> lower_tier_;  // per node index: below the top tier
};

}  // namespace numaplace::os
