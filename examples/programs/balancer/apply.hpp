#pragma once
// numaplace-balance --apply: moves one named process onto its recommended node set.
//   - every thread (each TID in /proc/PID/task, read again now): sched_setaffinity to the set's CPUs;
//   - its memory: migrate_pages(pid, nodes it has pages on outside the set, the set).
// Only the process named is touched. A thread that exits meanwhile is skipped; a process that
// exits ends the move quietly.

#include <numaplace/topology/dynamic_topology.hpp>

#include <filesystem>
#include <string>

#include "advice.hpp"

namespace balancer {

enum class apply_status {
  done,           ///< affinity set for every thread still there, memory moved
  gone,           ///< the process exited
  not_permitted,  ///< EPERM: another user's process, without CAP_SYS_NICE
  failed          ///< another error (message says which)
};

struct apply_report {
  apply_status status = apply_status::done;
  std::string message;
  unsigned threads_set = 0;
  unsigned threads_gone = 0;
  long pages_not_moved = 0;
  bool memory_moved = false;  ///< migrate_pages was called (some pages were outside the set)
};

apply_report apply_advice(const numaplace::dynamic_topology& t, const std::filesystem::path& proc_root,
                          const process_snapshot& p, const advice& a);

}  // namespace balancer
