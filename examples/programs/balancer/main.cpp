// numaplace-balance: a user-space NUMA balancer in the spirit of numad, deciding with numaplace.
//
//   numaplace-balance [--stack NAME] [--proc ROOT] [--sys ROOT] [--apply] [--all]
//                     [--exclude PID|NAME,...] [--min-memory MIB] [--interval S [--count N]] PID...
//
// For each named process (and with --all, every process with resident pages): reads
// /proc/PID/numa_maps (pages per node), /proc/PID/status (allowed CPUs and nodes) and
// /proc/PID/task/TID/stat (the CPU each thread last ran on), turns them into fault statistics
// (see advice.hpp for the approximation), runs the placement stack (default linux-modern) and
// prints the recommended node set and why.
//
// --apply (off by default) moves each process onto its set: sched_setaffinity for each of its
// threads, migrate_pages for its memory. No other process is ever touched. --apply works on
// the live /proc and /sys only.
//
// Some processes are never advised on or moved, named or not (exclusions.hpp): kernel threads,
// PID 1, numaplace-balance itself and those --exclude lists; --all also passes over processes
// with less than --min-memory resident (300 MiB, numad's threshold). Each is reported.
//
// --interval S runs as a daemon, numad's way: a scan every S seconds until a signal stops it
// (or N scans with --count); see daemon.hpp for what it survives and which signals it takes.
//
// Exit status of a single pass: 0 advice printed (and applied) for every process still there
// (processes that do not exist or exit while read are reported, not an error); 1 a file could
// not be parsed or a move failed; 2 bad usage; 3 not permitted (reading another user's
// numa_maps, or --apply on a process this user may not move: run as root or with CAP_SYS_NICE /
// CAP_SYS_PTRACE). The daemon exits 0 when stopped; it reports problems as they happen.
#include <numaplace/topology/load_sysfs.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdint>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "daemon.hpp"
#include "examine.hpp"
#include "exclusions.hpp"

namespace {

constexpr int exit_error = 1;
constexpr int exit_usage = 2;
constexpr int exit_not_permitted = 3;

constexpr const char* live_sys = "/sys/devices/system/node";

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int single_pass(const balancer::daemon_options& o) {
  const numaplace::dynamic_topology topo = numaplace::load::sysfs(o.sys);
  int status = 0;
  for (const int pid : o.pids) {
    const balancer::examined e = balancer::examine(topo, pid, o.examine, std::cout);
    switch (e.what) {
      case balancer::outcome::advised:
      case balancer::outcome::no_memory:
        break;
      case balancer::outcome::gone:
      case balancer::outcome::excluded:
        std::cout << "pid " << pid << ": " << e.message << "; skipped\n";
        break;
      case balancer::outcome::not_permitted:
        std::cerr << "numaplace-balance: pid " << pid << ": " << e.message << '\n';
        status = exit_not_permitted;
        break;
      case balancer::outcome::bad_file:
      case balancer::outcome::move_failed:
        std::cerr << "numaplace-balance: pid " << pid << ": " << e.message << '\n';
        if (status == 0) status = exit_error;
        break;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) try {
  CLI::App app{"numaplace-balance: numad-like advice (and moves, with --apply) for running processes, decided by "
               "numaplace",
               "numaplace-balance"};
  balancer::daemon_options o;
  o.sys = live_sys;
  std::string proc = "/proc", sys = live_sys;
  unsigned count = 0;
  app.add_option("--stack", o.examine.stack, "The numaplace placement stack that decides")->capture_default_str();
  app.add_option("--proc", proc, "The /proc tree to read (a recorded copy, for tests)")->capture_default_str();
  app.add_option("--sys", sys, "The sysfs node folder to read, again on every scan")->capture_default_str();
  app.add_flag("--apply", o.examine.apply, "Move each process onto its advised nodes (live /proc and /sys only)");
  app.add_flag("--all", o.all, "Also every process with resident pages (listed again on every scan)");
  auto* interval = app.add_option("--interval", o.interval_seconds, "Run as a daemon: a scan every S seconds")
                       ->type_name("S")
                       ->check(CLI::Range(0.01, 86400.0));
  app.add_option("--count", count, "With --interval: stop after N scans")
      ->type_name("N")
      ->needs(interval)
      ->check(CLI::Range(1u, 1000000u));
  std::vector<std::string> excluded;
  app.add_option("--exclude", excluded,
                 "Never advise on or move these processes: PIDs or names (as in /proc/PID/status), comma-separated")
      ->type_name("PID|NAME,...")
      ->delimiter(',')
      ->allow_extra_args(false);  // one list per --exclude: a PID after it is a process to look at
  std::uint64_t min_memory_mib = balancer::default_min_memory_bytes >> 20;
  app.add_option("--min-memory", min_memory_mib,
                 "With --all: pass over processes with less memory resident, in MiB (numad's threshold)")
      ->type_name("MIB")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 40))
      ->capture_default_str();
  app.add_option("pids", o.pids, "The processes to look at")->type_name("PID")->check(CLI::Range(1, 0x3fffffff));

  try {
    app.parse(argc, argv);
    if (o.pids.empty() && !o.all) throw CLI::ValidationError("PID", "name at least one PID, or --all");
    if (o.examine.apply && (proc != "/proc" || sys != live_sys)) {
      throw CLI::ValidationError("--apply", "moves live processes: it works with the default --proc and --sys only");
    }
    for (const auto& entry : excluded) {
      try {
        balancer::add_exclusion(o.examine.skip, entry);
      } catch (const std::invalid_argument& bad) {
        throw CLI::ValidationError("--exclude", bad.what());
      }
    }
  } catch (const CLI::ParseError& e) {
    // --help is a "parse error" with code 0: its text goes to stdout.
    return app.exit(e) == 0 ? 0 : exit_usage;
  }
  o.examine.skip.min_bytes = min_memory_mib << 20;
  o.examine.skip.self_pid = balancer::self_in(proc);
  if (o.examine.skip.self_pid == 0 && proc == "/proc") o.examine.skip.self_pid = static_cast<int>(::getpid());
  o.examine.proc = proc;
  o.sys = sys;
  if (count > 0) o.scans = count;
  if (interval->count() > 0) return balancer::run_daemon(o);
  if (o.all) {
    // A single pass over every process: the daemon's scan, once.
    o.scans = 1;
    return balancer::run_daemon(o);
  }
  return single_pass(o);
} catch (const std::exception& e) {
  std::cerr << "numaplace-balance: " << e.what() << '\n';
  return exit_error;
}
