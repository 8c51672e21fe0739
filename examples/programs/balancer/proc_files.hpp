#pragma once
// What numaplace-balance reads from /proc, as small strict parsers and a reader that copes with
// processes and threads exiting under it.
//
//   /proc/PID/numa_maps        one line per mapping: "ADDR POLICY [file=PATH|heap|stack|huge]
//                              key=value...", pages per node as N<id>=<pages>, in units of
//                              kernelpagesize_kB (4 unless huge pages)
//   /proc/PID/status           "Key:\tvalue" lines; Name, Pid, Threads, Cpus_allowed_list and
//                              Mems_allowed_list are used
//   /proc/PID/task/TID/stat    "TID (COMM) STATE ..."; field 9 holds the task's flags (PF_KTHREAD
//                              for a kernel thread), field 39 the CPU the thread last ran on
//
// Parse errors throw proc_error, whose message names the file and line. The root of /proc is
// a parameter, so tests read fixture trees recorded from real processes; since a tree may be
// anything, every file must be a regular file (as /proc's are) of bounded size, and the
// pages of a numa_maps must add up to less than 2^64 bytes.

#include <numaplace/linux/proc_status.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace balancer {

/// A file that is not what the kernel writes: "FILE:LINE: what".
class proc_error : public std::runtime_error {
 public:
  proc_error(const std::string& file, std::size_t line, const std::string& what)
      : std::runtime_error(file + (line != 0 ? ":" + std::to_string(line) : std::string()) + ": " + what) {}
};

/// Reading was refused (EACCES/EPERM): another user's process without the capability.
class proc_permission_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Resident memory by node id, in bytes.
struct numa_maps_summary {
  std::map<unsigned, std::uint64_t> bytes;       ///< every page, by node id
  std::map<unsigned, std::uint64_t> anon_bytes;  ///< pages of anonymous mappings (no file=)
  std::uint64_t total_bytes() const noexcept;  ///< never wraps: parse_numa_maps bounds the sum
};

/// The most a numa_maps may hold: vm.max_map_count is 65,530 mappings by default (262,144 on
/// hosts tuned for Elasticsearch) and a line is under 200 bytes, so about 52 MB at the most.
inline constexpr std::size_t max_numa_maps_bytes = std::size_t{128} << 20;
/// The most a status or stat file may hold (a status is 1-2 KB, 20 KB with 8,192 CPUs listed).
inline constexpr std::size_t max_small_proc_file_bytes = std::size_t{1} << 20;

numa_maps_summary parse_numa_maps(std::string_view text, const std::string& source);

/// The status file is parsed by the library (numaplace::os::parse_status, which throws
/// topology_error); read_process reports its errors as proc_error like the others.
using status_info = numaplace::os::process_status;

struct task_stat {
  int tid = 0;
  std::string comm;
  char state = '?';
  std::uint64_t flags = 0;  ///< field 9, the kernel's PF_* task flags
  int processor = -1;       ///< the CPU it last ran on

  /// PF_KTHREAD (include/linux/sched.h, unchanged from 2.6 to 6.12): the task is a kernel thread.
  bool kernel_thread() const noexcept { return (flags & 0x00200000u) != 0; }
};

task_stat parse_task_stat(std::string_view text, const std::string& source);

/// One process as read from a /proc tree.
struct process_snapshot {
  int pid = 0;
  status_info status;
  numa_maps_summary memory;
  std::vector<task_stat> threads;  ///< those still there when read
  unsigned threads_gone = 0;       ///< listed in task/ but gone before their stat was read
};

/// Reads process `pid` under `proc_root`. nullopt (and `why_gone` set) when the process does
/// not exist or exits while it is read (ENOENT, ESRCH, or an empty numa_maps of a zombie).
/// Throws proc_error for malformed files and proc_permission_error when reading is refused.
std::optional<process_snapshot> read_process(const std::filesystem::path& proc_root, int pid,
                                             std::string* why_gone = nullptr);

/// The thread ids listed in /proc/PID/task (empty when the process is gone).
std::vector<int> list_threads(const std::filesystem::path& proc_root, int pid);

}  // namespace balancer
