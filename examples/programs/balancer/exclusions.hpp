#pragma once
// Processes numaplace-balance never advises on or moves, whatever it is asked: kernel threads,
// the init of the PID namespace its /proc shows (PID 1), itself, and what the user lists with
// --exclude; of the processes --all finds, also those with less resident memory than
// --min-memory. numad passes over the same kinds (kernel threads have no memory to place;
// its MEMORY_THRESHOLD skips processes under 300 MB, numad 20150602), and moving PID 1 or
// the balancer itself would pin what every other process depends on.

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "proc_files.hpp"

namespace balancer {

enum class exclusion_reason { none, init, self, kernel_thread, listed, small };

/// numad's default for --all: processes under 300 MB are not worth a move.
inline constexpr std::uint64_t default_min_memory_bytes = std::uint64_t{300} << 20;

struct exclusions {
  int self_pid = 0;             ///< this program, as the /proc tree numbers it (0: not in the tree)
  std::set<int> pids;           ///< --exclude PID
  std::set<std::string> names;  ///< --exclude NAME: a process's Name in its status (its comm)
  std::uint64_t min_bytes = default_min_memory_bytes;  ///< --min-memory, for what --all finds

  /// What the PID alone decides, before anything is read.
  exclusion_reason by_pid(int pid) const;
  /// What the process read decides; `named`: asked for by PID, so never too small.
  exclusion_reason by_process(const process_snapshot& p, bool named) const;
};

/// Why a process is passed over, as the reports say it.
std::string describe(exclusion_reason r, const exclusions& e);

/// This process's PID in the PID namespace of the /proc at `proc_root` (its `self` link),
/// which differs from getpid() when that /proc belongs to another namespace; 0 when the tree
/// has no `self` (a recorded copy).
int self_in(const std::filesystem::path& proc_root);

/// Adds one --exclude entry: a PID (digits) or a process name (at most 15 characters, as the
/// kernel keeps a command name). Throws std::invalid_argument saying what is wrong with it.
void add_exclusion(exclusions& e, std::string_view entry);

}  // namespace balancer
