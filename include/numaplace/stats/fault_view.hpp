#pragma once
// What a placement decision reads: per-node fault counts, already decayed, as plain spans.
// Decisions never touch the recording buffers, so they need no locks or atomics.

#include <cstddef>
#include <cstdint>
#include <span>

#include "../topology/types.hpp"

namespace numaplace {

/// A node index meaning "none": no preferred node, or no change.
inline constexpr node_index no_node = ~node_index{0};

/// Private faults are by the task that touched the page last; shared ones by another.
enum class access : std::uint8_t { shared = 0, private_access = 1 };

/// One task's or one group's decayed faults (the kernel's NUMA_MEM and NUMA_CPU regions).
struct fault_view {
  /// Two counters per node, shared then private: memory faults by the node the page is on.
  std::span<const std::uint64_t> memory;
  /// Two counters per node, shared then private: faults by the node the task ran on.
  /// May be empty when the caller does not track it (it only feeds active-node counting).
  std::span<const std::uint64_t> cpu;
  /// The kernel's total_numa_faults / ng->total_faults: the denominator of weights.
  std::uint64_t total = 0;

  constexpr bool empty() const noexcept { return memory.empty(); }
  constexpr std::size_t node_count() const noexcept { return memory.size() / 2; }
  /// task_faults() / group_faults(): shared plus private memory faults on `n`.
  constexpr std::uint64_t faults(node_index n) const noexcept { return memory[2 * n] + memory[2 * n + 1]; }
  /// group_faults_cpu(): shared plus private faults raised while running on `n`.
  constexpr std::uint64_t cpu_faults(node_index n) const noexcept {
    return cpu.empty() ? 0 : cpu[2 * n] + cpu[2 * n + 1];
  }
};

/// Where a task and its buddies (the tasks that share its memory: its numa_group) run, for
/// placements that count them (numa/core's sched_update_ideal_cpu_shared(), v17, Nov 2012;
/// policy/numa_core.hpp). One entry per node; all empty when the caller does not count.
struct buddy_view {
  std::span<const std::uint32_t> running;  ///< CPUs running the task or one of its buddies
  std::span<const std::uint32_t> cpus;     ///< CPUs (a node is full when all run buddies)
  std::span<const std::uint32_t> idle;     ///< CPUs running nothing
  node_index current = no_node;            ///< the node the task runs on
  constexpr bool empty() const noexcept { return running.empty(); }
};

/// The input of a placement decision: a task's faults and, if it belongs to one, its group's.
struct decision_input {
  fault_view task;
  fault_view group;  ///< empty when the task has no numa_group
  /// Filled only for stacks that read it (placement::reads_buddies()); empty otherwise.
  buddy_view buddies = {};
  constexpr bool has_group() const noexcept { return !group.empty(); }
};

}  // namespace numaplace
