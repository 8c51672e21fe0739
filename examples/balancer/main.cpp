// numaplace-balance: a user-space NUMA balancer in the spirit of numad, deciding with numaplace.
//
//   numaplace-balance [--stack NAME] [--proc ROOT] [--sys ROOT] [--apply] PID...
//
// For each named process: reads /proc/PID/numa_maps (pages per node), /proc/PID/status
// (allowed CPUs and nodes) and /proc/PID/task/TID/stat (the CPU each thread last ran on), turns
// them into fault statistics (see advice.hpp for the approximation), runs the placement stack
// (default linux-modern) and prints the recommended node set and why.
//
// --apply (off by default) moves each named process onto its set: sched_setaffinity for each
// of its threads, migrate_pages for its memory. No other process is ever touched. --apply
// works on the live /proc and /sys only.
//
// Exit status: 0 advice printed (and applied) for every process still there (processes that
// do not exist or exit while read are reported, not an error); 1 a file could not be parsed or
// a move failed; 2 bad usage; 3 not permitted (reading another user's numa_maps, or --apply
// on a process this user may not move: run as root or with CAP_SYS_NICE / CAP_SYS_PTRACE).
#include <numaplace/topology/load_sysfs.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "advice.hpp"
#include "apply.hpp"
#include "proc_files.hpp"

namespace {

constexpr int exit_error = 1;
constexpr int exit_usage = 2;
constexpr int exit_not_permitted = 3;

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "numaplace-balance: " << why
            << "\nusage: numaplace-balance [--stack NAME] [--proc ROOT] [--sys ROOT] [--apply] PID...\n";
  std::exit(exit_usage);
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string stack = "linux-modern", proc = "/proc", sys = "/sys/devices/system/node";
  bool apply = false;
  std::vector<int> pids;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--stack") stack = value();
    else if (a == "--proc") proc = value();
    else if (a == "--sys") sys = value();
    else if (a == "--apply") apply = true;
    else if (a == "-h" || a == "--help") usage("help");
    else {
      char* end = nullptr;
      const long pid = std::strtol(argv[i], &end, 10);
      if (a.empty() || *end != '\0' || pid <= 0 || pid > 0x3fffffff) usage("'" + std::string(a) + "' is not a PID");
      pids.push_back(static_cast<int>(pid));
    }
  }
  if (pids.empty()) usage("name at least one PID");
  if (apply && (proc != "/proc" || sys != "/sys/devices/system/node")) {
    usage("--apply moves live processes: it works with the default --proc and --sys only");
  }

  const numaplace::dynamic_topology topo = numaplace::load::sysfs(sys);
  int status = 0;
  for (const int pid : pids) {
    std::string why_gone;
    std::optional<balancer::process_snapshot> p;
    try {
      p = balancer::read_process(proc, pid, &why_gone);
    } catch (const balancer::proc_permission_error& e) {
      std::cerr << "numaplace-balance: pid " << pid << ": " << e.what() << '\n';
      status = exit_not_permitted;
      continue;
    }
    if (!p) {
      std::cout << "pid " << pid << ": " << why_gone << "; skipped\n";
      continue;
    }
    const balancer::advice a = balancer::advise(topo, *p, stack);
    std::cout << "pid " << pid << " (" << a.name << "): " << a.threads << " thread" << (a.threads == 1 ? "" : "s")
              << ", " << mib(a.bytes) << " MiB resident, by node:";
    for (numaplace::node_index i = 0; i < topo.node_count(); ++i) {
      if (a.bytes_per_node[i] > 0) std::cout << ' ' << topo.id_of(i) << '=' << mib(a.bytes_per_node[i]);
    }
    std::vector<unsigned> ids;
    for (const auto n : a.nodes) ids.push_back(static_cast<unsigned>(topo.id_of(n)));
    std::sort(ids.begin(), ids.end());
    std::cout << "\n  recommend nodes " << balancer::list_text(ids) << " (CPUs " << balancer::list_text(a.cpus)
              << ")\n";
    for (const auto& w : a.why) std::cout << "  why: " << w << '\n';
    if (!apply) continue;
    const balancer::apply_report r = balancer::apply_advice(topo, proc, *p, a);
    switch (r.status) {
      case balancer::apply_status::done:
        std::cout << "  applied: affinity of " << r.threads_set << " thread" << (r.threads_set == 1 ? "" : "s")
                  << " set to CPUs " << balancer::list_text(a.cpus);
        if (r.threads_gone > 0) std::cout << " (" << r.threads_gone << " exited meanwhile)";
        if (r.memory_moved) {
          std::cout << "; memory migrated to nodes " << balancer::list_text(ids);
          if (r.pages_not_moved > 0) std::cout << " (" << r.pages_not_moved << " pages could not be moved)";
        } else {
          std::cout << "; memory already within the set";
        }
        std::cout << '\n';
        break;
      case balancer::apply_status::gone:
        std::cout << "  not applied: the process exited (" << r.message << ")\n";
        break;
      case balancer::apply_status::not_permitted:
        std::cerr << "numaplace-balance: pid " << pid << ": not permitted: " << r.message << '\n';
        status = exit_not_permitted;
        break;
      case balancer::apply_status::failed:
        std::cerr << "numaplace-balance: pid " << pid << ": " << r.message << '\n';
        if (status == 0) status = exit_error;
        break;
    }
  }
  return status;
} catch (const std::exception& e) {
  std::cerr << "numaplace-balance: " << e.what() << '\n';
  return exit_error;
}
