#pragma once
// numaplace-balance --interval: numad's habit of looking again every few seconds. Each scan
// re-reads the topology from --sys and every watched process from --proc, prints the advice
// (and applies it with --apply). Nothing that happens to the machine or the processes between
// scans stops it:
//  - a named process that exits is reported once and dropped (numad drops it from its include
//    list the same way);
//  - a process it may not read or move (EACCES/EPERM) is reported once, then skipped quietly;
//  - a node that goes offline (or comes back) is reported, and the scan uses the nodes there
//    are; an unreadable topology skips that scan only;
//  - a process it must never touch (exclusions.hpp) is reported: a named one once, then
//    dropped; those --all finds as counts on one line, printed when the counts change;
//  - SIGTERM, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU or SIGPWR stop it after the
//    scan in progress, with exit status 0 and a last line naming the signal; one during the
//    wait ends the wait at once (sigtimedwait). SIGHUP, which asks a daemon to read its
//    configuration again, is ignored with a line saying so: all of it is on the command line.

#include <filesystem>
#include <optional>
#include <vector>

#include "examine.hpp"

namespace balancer {

struct daemon_options {
  examine_options examine;
  std::filesystem::path sys = "/sys/devices/system/node";
  std::vector<int> pids;  ///< the processes to watch
  bool all = false;       ///< also every process with resident pages, listed again each scan
  double interval_seconds = 15;
  std::optional<unsigned> scans;  ///< --count: stop after this many
};

/// Runs scans until a signal, --count, or no process left to watch. Returns the exit status (0).
int run_daemon(const daemon_options& o);

}  // namespace balancer
