#pragma once
// fault_window: what one scan window of a task's faults drained, the input of the scan-period
// rules (update_task_scan_period()). Apart from fault_stats, which fills it, so that the rules
// and the hook table can name it without the recording side.

#include <array>
#include <cstdint>

namespace numaplace {

/// What one window drained, for the caller's scan-period logic (update_task_scan_period).
struct fault_window {
  /// Memory faults of the window by kind, [shared, private]: the kernel's fault_types[].
  std::array<std::uint64_t, 2> fault_types{};
  /// The window's numa_faults_locality[]: remote, local, failed migration.
  std::array<std::uint64_t, 3> locality{};
};

/// Indices into fault_stats::locality() and fault_window::locality.
enum class locality_slot : std::uint8_t { remote = 0, local = 1, migration_failed = 2 };

}  // namespace numaplace
