#pragma once
// fault_stats: one task's or one numa_group's NUMA fault statistics, kept as the kernel keeps
// them (spec 2.1, 2.2). Faults are recorded into buffers as they happen; at the end of each
// scan window the buffers are folded into decayed averages, which is what decisions read
// (through view(), a fault_view pointing straight at the counters).
//
// Layout: every region holds two counters per node, [node][kind], kind shared = 0 and
// private = 1 (the kernel's task_faults_idx within one region).

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

#include "../topology/types.hpp"
#include "fault_view.hpp"
#include "fault_window.hpp"

namespace numaplace {

/// Decayed fault counts of a task or a group, plus the buffers faults are recorded into.
///
/// Thread safety:
///  - record() may be called by any number of threads at once, also while end_window() runs.
///    It is wait-free (relaxed fetch_add) and never loses a page: a page recorded while a
///    window ends is counted in that window or in the next one, never in both, never in
///    neither. (The memory and CPU buffers are drained one counter at a time, so the two
///    halves of one record() may fall into different windows.)
///  - end_window() has a single writer: at most one call at a time per object. When a group
///    is passed, calls naming the same group must not overlap either (the kernel holds the
///    group's lock); a group's own record() buffers are not touched.
///  - view(), memory(), cpu() and total() read what end_window() writes: call them from the
///    thread that ends windows, or after synchronising with it.
///  - Moving a fault_stats is not safe while other threads use it. Nothing here allocates
///    after construction.
class fault_stats {
 public:
  /// Empty statistics for a machine of `node_count` nodes.
  explicit fault_stats(std::size_t node_count)
      : memory_(2 * node_count), cpu_(2 * node_count), memory_buffer_(2 * node_count),
        cpu_buffer_(2 * node_count), locality_(3) {}

  fault_stats(const fault_stats&) = delete;
  fault_stats& operator=(const fault_stats&) = delete;
  fault_stats(fault_stats&&) noexcept = default;
  fault_stats& operator=(fault_stats&&) noexcept = default;

  /// Statistics whose decayed counts are already known (for `explain` and tests): two counters
  /// per node, shared then private. `cpu_pairs` may be empty (all zero); total = sum of memory.
  static fault_stats from_counts(std::span<const std::uint64_t> memory_pairs,
                                 std::span<const std::uint64_t> cpu_pairs = {}) {
    if (memory_pairs.size() % 2 != 0) {
      throw std::invalid_argument("numaplace::fault_stats: memory counts come in (shared, private) pairs");
    }
    if (!cpu_pairs.empty() && cpu_pairs.size() != memory_pairs.size()) {
      throw std::invalid_argument("numaplace::fault_stats: cpu counts must match the memory counts");
    }
    fault_stats s(memory_pairs.size() / 2);
    std::copy(memory_pairs.begin(), memory_pairs.end(), s.memory_.begin());
    std::copy(cpu_pairs.begin(), cpu_pairs.end(), s.cpu_.begin());
    s.total_ = std::accumulate(memory_pairs.begin(), memory_pairs.end(), std::uint64_t{0});
    return s;
  }

  std::size_t node_count() const noexcept { return memory_.size() / 2; }

  /// A numa_group's statistics as task_numa_group() creates them (v3.13+): a copy of the
  /// creating task's decayed counts, so the group equals the sum of its one member from the
  /// start. The buffers start empty (a group records nothing itself; its members' windows add
  /// to it).
  static fault_stats seeded_from(const fault_stats& creator) {
    fault_stats g(creator.node_count());
    g.add_member(creator);
    return g;
  }

  /// A task joins this group: its decayed counts move in with it (task_numa_group, v3.13+).
  /// Unsigned arithmetic: adding then removing the same member restores the counts exactly.
  void add_member(const fault_stats& member) noexcept {
    if (&member == this || member.memory_.size() != memory_.size()) return;
    for (std::size_t i = 0; i < memory_.size(); ++i) {
      memory_[i] += member.memory_[i];
      cpu_[i] += member.cpu_[i];
    }
    total_ += member.total_;
  }

  /// A task leaves this group, for another or by exiting: its decayed counts go with it
  /// (task_numa_group's transfer and task_numa_free, v3.13+). Only a current member may leave;
  /// otherwise the counters would wrap, which numa_group_consistency() reports.
  void remove_member(const fault_stats& member) noexcept {
    if (&member == this || member.memory_.size() != memory_.size()) return;
    for (std::size_t i = 0; i < memory_.size(); ++i) {
      memory_[i] -= member.memory_[i];
      cpu_[i] -= member.cpu_[i];
    }
    total_ -= member.total_;
  }

  /// task_numa_fault(): `pages` faulted on memory of `mem_node` while the task ran on `cpu_node`.
  /// Both must be below node_count().
  ///
  /// A fault is local when both nodes are the same. The kernel also counts a shared fault as
  /// local when the task's group is active on several nodes and both nodes are active ones, so
  /// that a settled, spread-out group scans less often. That rule is not applied here: it only
  /// moves pages between the remote and local slots (the scan rate's input, never the decayed
  /// counts a placement reads), and it would make record() read the group's counters while
  /// another thread ends a window.
  void record(node_index mem_node, node_index cpu_node, access kind, std::uint64_t pages,
              bool migration_failed = false) noexcept {
    const auto k = static_cast<std::size_t>(kind);
    if (migration_failed) bump(locality_[slot(locality_slot::migration_failed)], pages);
    bump(memory_buffer_[2 * std::size_t{mem_node} + k], pages);
    bump(cpu_buffer_[2 * std::size_t{cpu_node} + k], pages);
    bump(locality_[slot(mem_node == cpu_node ? locality_slot::local : locality_slot::remote)], pages);
  }

  /// The decay of task_numa_placement(), run once per scan window (spec 2.2).
  ///
  /// Every counter halves (rounding the half taken away down, so 7 becomes 4 and 1 stays 1)
  /// and gains its buffer: MEM = MEM - MEM/2 + MEMBUF. CPU faults are first weighted by the
  /// share of the period the task ran (16-bit fixed point) over the window's faults:
  /// CPU = CPU - CPU/2 + ((runtime << 16) / (period + 1)) * CPUBUF / (remote + local + 1).
  /// All arithmetic is 64-bit unsigned and wraps, as the kernel's ulong. With a group, the
  /// same differences are added to the group's counters and total (a group of another node
  /// count, or this object itself, is left alone). Buffers and locality are drained by
  /// exchange, so faults recorded meanwhile go to the next window.
  ///
  /// `runtime_ns` and `period_ns` are the task's CPU time and the wall time since the previous
  /// window (numa_get_avg_runtime()).
  fault_window end_window(std::uint64_t runtime_ns, std::uint64_t period_ns, fault_stats* group = nullptr) noexcept {
    if (group == this || (group != nullptr && group->memory_.size() != memory_.size())) group = nullptr;
    fault_window w;
    for (std::size_t i = 0; i < w.locality.size(); ++i) w.locality[i] = locality_[i].exchange(0, std::memory_order_relaxed);
    const std::uint64_t window_faults = w.locality[slot(locality_slot::remote)] + w.locality[slot(locality_slot::local)];
    // Where the kernel's divisor would wrap to 0, the true quotient (x / 2^64) is 0.
    const std::uint64_t run_share = period_ns + 1 == 0 ? 0 : (runtime_ns << 16) / (period_ns + 1);

    for (std::size_t i = 0; i < memory_.size(); ++i) {
      const std::uint64_t memory_faults = memory_buffer_[i].exchange(0, std::memory_order_relaxed);
      const std::uint64_t cpu_faults = cpu_buffer_[i].exchange(0, std::memory_order_relaxed);
      w.fault_types[i % 2] += memory_faults;

      const std::uint64_t cpu_weight = window_faults + 1 == 0 ? 0 : run_share * cpu_faults / (window_faults + 1);
      const std::uint64_t memory_diff = memory_faults - memory_[i] / 2;
      const std::uint64_t cpu_diff = cpu_weight - cpu_[i] / 2;
      memory_[i] += memory_diff;
      cpu_[i] += cpu_diff;
      total_ += memory_diff;
      if (group != nullptr) {
        group->memory_[i] += memory_diff;
        group->cpu_[i] += cpu_diff;
        group->total_ += memory_diff;
      }
    }
    last_window_ = w;
    return w;
  }

  /// The decayed counts as decisions read them. Valid as long as this object lives.
  fault_view view() const noexcept { return fault_view{memory_, cpu_, total_}; }

  /// Decayed memory faults (NUMA_MEM), two per node.
  std::span<const std::uint64_t> memory() const noexcept { return memory_; }
  /// Decayed, runtime-weighted faults by the node the task ran on (NUMA_CPU), two per node.
  std::span<const std::uint64_t> cpu() const noexcept { return cpu_; }
  /// total_numa_faults / ng->total_faults: the sum of memory() while it started at 0.
  std::uint64_t total() const noexcept { return total_; }
  /// What the most recent end_window() drained.
  const fault_window& last_window() const noexcept { return last_window_; }

  /// Pages recorded since the last window ended (a snapshot; records may be in flight).
  std::uint64_t buffered_memory(node_index n, access kind) const noexcept {
    return memory_buffer_[2 * std::size_t{n} + static_cast<std::size_t>(kind)].load(std::memory_order_relaxed);
  }
  std::uint64_t buffered_cpu(node_index n, access kind) const noexcept {
    return cpu_buffer_[2 * std::size_t{n} + static_cast<std::size_t>(kind)].load(std::memory_order_relaxed);
  }
  std::uint64_t locality(locality_slot s) const noexcept { return locality_[slot(s)].load(std::memory_order_relaxed); }

 private:
  using counter = std::atomic<std::uint64_t>;

  static constexpr std::size_t slot(locality_slot s) noexcept { return static_cast<std::size_t>(s); }
  static void bump(counter& c, std::uint64_t pages) noexcept { c.fetch_add(pages, std::memory_order_relaxed); }

  // Written only by end_window() (and from_counts): plain integers a fault_view can point at.
  std::vector<std::uint64_t> memory_;
  std::vector<std::uint64_t> cpu_;
  std::uint64_t total_ = 0;
  fault_window last_window_;

  // Written by record() from any thread, drained by end_window().
  std::vector<counter> memory_buffer_;
  std::vector<counter> cpu_buffer_;
  std::vector<counter> locality_;  // indexed by locality_slot
};

}  // namespace numaplace
