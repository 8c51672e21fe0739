// `numaplace run -w NCPUS[:MB] -- COMMAND`: the launcher binds itself, then becomes the command.
// The command reads its own binding back: /proc/self/status (Cpus_allowed_list,
// Mems_allowed_list), /proc/self/numa_maps (the task's memory policy on every mapping without
// one of its own: "bind:0", "prefer:0", "interleave:0", "local"), and its environment. Each is
// compared with what --dry-run printed for the same job.
#include <doctest/doctest.h>

#include <sched.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::check_rejected;
using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

std::string run_ok(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  return r.out;
}

// "key: value" and "KEY=value" lines of --dry-run, by key.
std::map<std::string, std::string> dry_run(std::vector<std::string> args) {
  args.insert(args.begin(), "--dry-run");
  std::map<std::string, std::string> out;
  std::istringstream lines(run_ok(args));
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    const auto equals = line.find('=');
    if (colon != std::string::npos && (equals == std::string::npos || colon < equals)) {
      out[line.substr(0, colon)] = line.substr(colon + 2);
    } else if (equals != std::string::npos) {
      out[line.substr(0, equals)] = line.substr(equals + 1);
    }
  }
  return out;
}

// The value of "Key:\tvalue" in a /proc status text.
std::string status_field(const std::string& status, const std::string& key) {
  const auto at = status.find(key + ":\t");
  REQUIRE(at != std::string::npos);
  const auto start = at + key.size() + 2;
  return status.substr(start, status.find('\n', start) - start);
}

// The policy word of the first numa_maps line: "bind:0", "local", ...
std::string first_policy(const std::string& numa_maps) {
  std::istringstream words(numa_maps);
  std::string address, policy;
  words >> address >> policy;
  return policy;
}

// The calling thread's CPUs (sched_getaffinity), which children inherit.
std::vector<unsigned> own_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  std::vector<unsigned> cpus;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

void set_own_cpus(const std::vector<unsigned>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const unsigned c : cpus) CPU_SET(c, &set);
  REQUIRE(sched_setaffinity(0, sizeof set, &set) == 0);
}

// A one-node sysfs tree whose node `id` lists `cpus`, with 1 GiB of memory.
std::string scratch_sysfs(const std::string& name, int id, const std::string& cpus) {
  const auto root = std::filesystem::temp_directory_path() / ("numaplace-run-test-" + name);
  const auto node = root / ("node" + std::to_string(id));
  std::filesystem::create_directories(node);
  std::ofstream(root / "online") << id << "\n";
  std::ofstream(node / "cpulist") << cpus << "\n";
  std::ofstream(node / "distance") << "10\n";
  std::ofstream(node / "meminfo") << "Node " << id << " MemTotal:       1048576 kB\nNode " << id
                                  << " MemFree:        1048576 kB\n";
  return root.string();
}

}  // namespace

TEST_CASE("run binds the command's CPUs and memory to what --dry-run prints") {
  const auto planned = dry_run({"-w", "1", "--", "cat", "/proc/self/status"});
  const std::string status = run_ok({"-w", "1", "--", "cat", "/proc/self/status"});
  CHECK(status_field(status, "Cpus_allowed_list") == planned.at("physcpubind"));
  // Mems_allowed is the cpuset's, which a memory policy leaves alone: it equals the job's
  // memory nodes where the job has every node this process may use (a one-node machine).
  if (planned.at("cpunodebind") == status_field(status, "Mems_allowed_list")) {
    CHECK(status_field(status, "Mems_allowed_list") == planned.at("memory nodes"));
  }
  // The policy itself, as the kernel shows it for the command's mappings.
  CHECK(first_policy(run_ok({"-w", "1", "--", "cat", "/proc/self/numa_maps"})) ==
        "bind:" + planned.at("memory nodes"));
  CHECK(planned.at("policy") == "membind");
  CHECK(planned.at("as numactl").find("numactl --physcpubind=" + planned.at("physcpubind") + " --membind=" +
                                      planned.at("memory nodes") + " -- cat /proc/self/status") != std::string::npos);
}

TEST_CASE("run --preferred, --interleave and --localalloc set the policy numactl's option names") {
  const auto preferred = dry_run({"-w", "1", "--preferred"});
  CHECK(preferred.at("policy") == "preferred");
  CHECK(first_policy(run_ok({"-w", "1", "--preferred", "--", "cat", "/proc/self/numa_maps"})) ==
        "prefer:" + preferred.at("memory nodes"));
  const auto interleave = dry_run({"-w", "1", "--interleave"});
  CHECK(first_policy(run_ok({"-w", "1", "--interleave", "--", "cat", "/proc/self/numa_maps"})) ==
        "interleave:" + interleave.at("memory nodes"));
  CHECK(dry_run({"-w", "1", "--localalloc"}).at("memory nodes") == "local");
  CHECK(first_policy(run_ok({"-w", "1", "--localalloc", "--", "cat", "/proc/self/numa_maps"})) == "local");
  check_rejected({"run", "-w", "1", "--preferred", "--interleave", "--", "true"}, "at most 1 options be given from [--membind,--preferred,--interleave,--localalloc]");
}

TEST_CASE("run binds to the CPUs this process may use, not every CPU of the node") {
  const std::vector<unsigned> all = own_cpus();
  if (all.size() < 2) return;  // one CPU: nothing to leave out
  set_own_cpus({all.back()});  // as `taskset -c LAST numaplace run ...`
  const auto planned = dry_run({"-w", "1"});
  const std::string status = run_ok({"-w", "1", "--", "cat", "/proc/self/status"});
  const auto too_many = run_numaplace({"run", "-w", "2", "--", "true"});
  set_own_cpus(all);
  CHECK(planned.at("physcpubind") == std::to_string(all.back()));
  CHECK(status_field(status, "Cpus_allowed_list") == std::to_string(all.back()));
  CHECK(too_many.exit_code == 2);
  CHECK(too_many.err.find("-w 2: the job does not fit: it asks for 2 CPUs, and this machine has 1 CPU this "
                          "process may use (node ") != std::string::npos);
}

TEST_CASE("run sets OMP_PLACES, OMP_PROC_BIND and OMP_NUM_THREADS, keeping those the environment sets") {
  const auto planned = dry_run({"-w", "1"});
  const std::string echo = "echo \"$OMP_PLACES|$OMP_PROC_BIND|$OMP_NUM_THREADS\"";
  CHECK(run_ok({"-w", "1", "--", "sh", "-c", echo}) ==
        planned.at("OMP_PLACES") + "|" + planned.at("OMP_PROC_BIND") + "|1\n");
  CHECK(planned.at("OMP_PROC_BIND") == "close");  // one node
  ::setenv("OMP_NUM_THREADS", "7", 1);
  const std::string kept = run_ok({"-w", "1", "--", "sh", "-c", echo});
  const auto kept_planned = dry_run({"-w", "1"});
  ::unsetenv("OMP_NUM_THREADS");
  CHECK(kept == planned.at("OMP_PLACES") + "|close|7\n");
  CHECK(kept_planned.at("OMP_NUM_THREADS") == "7  (kept from the environment)");
}

TEST_CASE("run returns the command's exit code, and a shell's for a command that cannot run") {
  auto r = run_numaplace({"run", "-w", "1", "--", "sh", "-c", "exit 7"});
  CHECK(r.exit_code == 7);
  r = run_numaplace({"run", "-w", "1", "--", "numaplace-no-such-command"});
  CHECK(r.exit_code == 127);
  CHECK(r.err == "numaplace: error: run: numaplace-no-such-command: command not found\n");
  // Found but not executable: 126, with the reason.
  const std::string plain = numaplace_cli_test::scratch_file("run-not-executable", "#!/bin/sh\necho ran\n");
  ::chmod(plain.c_str(), 0644);
  r = run_numaplace({"run", "-w", "1", "--", plain});
  CHECK(r.exit_code == 126);
  CHECK(r.out.empty());
  CHECK(r.err.find(plain + ": Permission denied") != std::string::npos);
  std::filesystem::remove(plain);
  // The command's arguments are its own: a long script is not an over-long option.
  CHECK(run_ok({"-w", "1", "--", "sh", "-c", "echo ok #" + std::string(5000, 'x')}) == "ok\n");
  CHECK(run_ok({"-w", "1", "--", "sh", "-c", "echo \"$0\"", "-w"}) == "-w\n");
}

TEST_CASE("run: usage errors name the problem") {
  check_rejected({"run", "-w", "1"}, "run: no command to run; give it after --, e.g. numaplace run -w 4 -- ./app");
  check_rejected({"run", "-w", "1", "--"}, "run: no command to run");
  check_rejected({"run", "--", "true"}, "-w");
  check_rejected({"run", "-w", "0", "--", "true"}, "-w 0: asks for 0 CPUs");
  check_rejected({"run", "-w", "100000", "--", "true"},
                 "-w 100000: the job does not fit: it asks for 100000 CPUs, and this machine has ");
  check_rejected({"run", "-w", "1:999999999", "--", "true"},
                 "-w 1:999999999: the job does not fit: it asks for 999999999 MiB, and this machine has ");
  // The machine's nodes and sizes are in the message.
  check_rejected({"run", "-w", "1:99999999", "--sysfs", data_file("sysfs/seed000"), "--dry-run"}, "(node 0: CPUs 0-9,80-89, ");
  check_rejected({"run", "-w", "200", "--sysfs", data_file("sysfs/cxl"), "--dry-run"},
                 "it asks for 200 CPUs, and sysfs (sysfs " + data_file("sysfs/cxl") +
                     ") has 32 CPUs this process may use (node 0: CPUs 0-15, 65536 MiB (32768 MiB free); node 1: "
                     "CPUs 16-31, 65536 MiB (32768 MiB free); node 2: no CPUs, 131072 MiB (65536 MiB free))");
  // Another machine's binding cannot be applied here.
  check_rejected({"run", "-w", "1", "--machine", "seed000-8node", "--", "true"},
                 "describe another machine, while the binding would be applied to this one; add --dry-run");
}

TEST_CASE("run: a binding the kernel refuses is the system call's message, exit 1, and the command never runs") {
  // CPUs 4000-4001 are on no test machine: sched_setaffinity finds none of them online.
  auto r = run_numaplace(
      {"run", "-w", "1", "--sysfs", scratch_sysfs("cpus", 0, "4000-4001"), "--", "echo", "the command ran"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "numaplace: error: sched_setaffinity(this thread, cpus 4000-4001): Invalid argument (no CPU of the set is "
        "online and in the task's cpuset)\n");
  // The first CPU this process may use, on node 1000: the CPUs bind, the memory cannot.
  const std::string cpu = std::to_string(own_cpus().front());
  r = run_numaplace({"run", "-w", "1", "--sysfs", scratch_sysfs("memory", 1000, cpu), "--", "echo", "the command ran"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "numaplace: error: set_mempolicy(MPOL_BIND, nodes 1000): Invalid argument (no node of the mask is online with "
        "memory and in the task's cpuset (Mems_allowed))\n");
}

// Hand-worked placements on machines this one is not, from their topology files.
TEST_CASE("run --dry-run on other machines: the nodes advise -w names, bound as numactl would") {
  // seed000-8node: 8 nodes of 20 CPUs and 64 GiB, pairs 0-1, 2-3, ... at 12, quads at 17.
  // 8 CPUs fit one node; equal nodes tie and the lowest centre wins: node 0.
  auto p = dry_run({"-w", "8:4096", "--machine", "seed000-8node"});
  CHECK(p.at("physcpubind") == "0-19");
  CHECK(p.at("cpunodebind") == "0");
  CHECK(p.at("memory nodes") == "0");
  CHECK(p.at("OMP_PLACES") == "{0:20}");
  CHECK(p.at("OMP_PROC_BIND") == "close");
  CHECK(p.at("OMP_NUM_THREADS") == "8");
  // 30 CPUs need two nodes: node 0's pair at distance 12.
  p = dry_run({"-w", "30", "--machine", "seed000-8node"});
  CHECK(p.at("physcpubind") == "0-39");
  CHECK(p.at("memory nodes") == "0-1");
  CHECK(p.at("OMP_PLACES") == "{0:20},{20:20}");
  CHECK(p.at("OMP_PROC_BIND") == "spread");
  // 50 CPUs need three nodes: the circle at 17 joins whole, 2 and 3 together: four nodes.
  p = dry_run({"-w", "50", "--machine", "seed000-8node"});
  CHECK(p.at("physcpubind") == "0-79");
  CHECK(p.at("cpunodebind") == "0-3");
  // The 8-node guest (one CPU per node, node 4 has the most MemFree): 4 CPUs are 4's quad.
  p = dry_run({"-w", "4:24", "--sysfs", data_file("proc/seed000-guest/sys")});
  CHECK(p.at("physcpubind") == "4-7");
  CHECK(p.at("OMP_PLACES") == "{4},{5},{6},{7}");
  // intel-spr-2s-cxl: each socket's expander (tier 143, below the sockets' tier 4) is at 14,
  // the other socket at 21. 120 CPUs need both sockets, whose memory holds 1000 MiB: the
  // expander the circle at 14 brought is left out. 200000 MiB is more than the sockets have:
  // socket 1's expander, within reach, joins; socket 0's, at 24, does not.
  p = dry_run({"-w", "120:1000", "--machine", "intel-spr-2s-cxl"});
  CHECK(p.at("cpunodebind") == "0-1");
  CHECK(p.at("memory nodes") == "0-1");
  p = dry_run({"-w", "120:200000", "--machine", "intel-spr-2s-cxl"});
  CHECK(p.at("memory nodes") == "0-1,3");
  // CXL: nodes 0 and 1 have 16 CPUs and 32 GiB free each, node 2 none and 64 GiB free at
  // distance 50. 70000 MiB needs all three; the CPU-less node is memory only.
  p = dry_run({"-w", "1:70000", "--sysfs", data_file("sysfs/cxl"), "--", "./app", "{a,b}"});
  CHECK(p.at("cpunodebind") == "0-1");
  CHECK(p.at("memory nodes") == "0-2");
  CHECK(p.at("as numactl") ==
        "OMP_PLACES='{0:16},{16:16}' OMP_PROC_BIND=spread OMP_NUM_THREADS=1 numactl --physcpubind=0-31 "
        "--membind=0-2 -- ./app '{a,b}'");
  // --preferred names one node: the centre, node 0.
  CHECK(dry_run({"-w", "1:70000", "--sysfs", data_file("sysfs/cxl"), "--preferred"}).at("memory nodes") == "0");
  // SMT counted as advise counts it: 2 nodes of 10 two-thread cores are 12 CPUs each (a sibling
  // a fifth of a CPU), so 13 CPUs take both nodes, as `advise -w 13` answers, and 12 one.
  const std::string smt = data_file("cli/advise-smt/node");
  CHECK(dry_run({"-w", "13", "--sysfs", smt}).at("cpunodebind") == "0-1");
  CHECK(dry_run({"-w", "12", "--sysfs", smt}).at("cpunodebind") == "0");
}
