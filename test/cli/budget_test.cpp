// A sweep's budget (sim_budget.hpp): before anything runs, `numaplace sim` estimates the memory
// and CPU time a request needs and refuses one over --max-memory or --max-cpu-hours with the
// estimate and the option that allows it. The requests here once started silently and grew
// past 4 GB; each is now refused at once, exit 2.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::check_rejected;
using numaplace_cli_test::run_numaplace;
using numaplace_cli_test::scratch_file;

namespace {

// An experiment of `processes` processes, each with `regions` regions of `chunks` chunks and
// `threads` threads, on the 8-node preset.
std::string experiment(int processes, int regions, int chunks, int threads) {
  std::string region_list, process_list;
  for (int r = 0; r < regions; ++r) region_list += (r ? "," : "") + std::string("{\"chunks\": ") + std::to_string(chunks) + "}";
  for (int p = 0; p < processes; ++p) {
    process_list += (p ? "," : "") + std::string("{\"name\": \"p") + std::to_string(p) + "\", \"regions\": [" + region_list +
                    "], \"threads\": " + std::to_string(threads) + ", \"accesses\": [{\"region\": 0}]}";
  }
  return R"({"machine": {"name": "seed000-8node"}, "workloads": [{"name": "w", "seconds": 10, "processes": [)" +
         process_list + R"(]}], "stacks": ["linux-modern"], "runs": 1})";
}

}  // namespace

TEST_CASE("a sweep over its budget is refused at once with its estimate and the option that allows it") {
  // 2^30 chunks (1,024 regions of 2^20): refused before one is made.
  const std::string chunks = scratch_file("budget-chunks.json", experiment(1, 1024, 1 << 20, 4));
  check_rejected({"sim", "--config", chunks}, "this sweep would need about ");
  const auto r = run_numaplace({"sim", "--config", chunks});
  CHECK(r.err.find("its largest run has 4 tasks and 1073741824 memory chunks on 8 nodes") != std::string::npos);
  CHECK(r.err.find("pass --max-memory ") != std::string::npos);
  // 100,000 tasks on 256 nodes for a simulated hour, ten runs: days of CPU time.
  check_rejected({"sim", "--workload", "specjbb:100:1000:3600", "--generate", "backplane:16x16:20:30/cpus=32", "--runs", "10",
                  "--stacks", "linux-modern"},
                 "of CPU time (10 runs, about ");
  // The 4-million-CPU machine of the issue never gets that far: no machine numbers CPUs past 65535.
  check_rejected({"sim", "--workload", "numa02:100000", "--generate", "fully-connected:1024/cpus=4096"}, "4194304 CPUs");
}

TEST_CASE("the budget counts the runs at once, and its options raise or lower it") {
  const std::vector<std::string> small{"sim", "--workload", "numa01:8", "--machine", "seed003-4node", "--runs", "2",
                                       "--stacks", "linux-modern", "--threads", "1"};
  std::vector<std::string> tight = small;
  tight.insert(tight.end(), {"--max-memory", "0.001"});
  check_rejected(tight, "more than --max-memory 2 MiB allows");
  // About 13 s of CPU time estimated, over 0.001 h (3.6 s).
  check_rejected({"sim", "--workload", "specjbb:32:256:60", "--generate", "backplane:16x16:20:30/cpus=32", "--runs", "2",
                  "--stacks", "linux-modern", "--threads", "1", "--max-cpu-hours", "0.001"},
                 "of CPU time (2 runs, about ");
  // With --progress the estimate is said before the runs, and each run says the time left.
  std::vector<std::string> shown = small;
  shown.push_back("--progress");
  const auto r = run_numaplace(shown);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("2 runs, 1 at once: about ") != std::string::npos);
  CHECK(r.err.find("of memory, estimated") != std::string::npos);
  CHECK(r.err.find("[1/2, about ") != std::string::npos);
}

TEST_CASE("an experiment file is bounded in threads as a whole, not only per process") {
  // 25 processes of 4,096 threads each pass every per-process limit.
  const std::string file = scratch_file("budget-threads.json", experiment(25, 1, 16, 4096));
  check_rejected({"sim", "--config", file}, "/workloads/0/processes/24/threads: brings the workload to 102400 threads; a "
                                            "workload has at most 100000");
}

TEST_CASE("sim --check runs the same sweep to the same figures") {
  const std::vector<std::string> run{"sim", "--workload", "numa01:8", "--machine", "seed003-4node", "--runs", "1",
                                     "--stacks", "linux-modern", "--json"};
  std::vector<std::string> checked = run;
  checked.push_back("--check");
  const auto plain = run_numaplace(run);
  const auto full = run_numaplace(checked);
  INFO("stderr: " << full.err);
  CHECK(plain.exit_code == 0);
  CHECK(full.exit_code == 0);
  CHECK(plain.out == full.out);
}

TEST_CASE("a sweep of minutes within the budget says so before it starts, even without --progress") {
  // 65,536 tasks on one node of 65,536 CPUs, as a numactl dump can claim: numa02:65536 took
  // about 40 s of CPU a run (the estimate missed a migration's look at every CPU of the node
  // and said 2 s), and the sweep started without a word. numa02 as its source writes it is now
  // short there (1 GiB over 65,536 threads), so two numa01 processes of 32,768 threads stand
  // in. It is stopped after the note; the runs are not the test.
  std::string cpus;
  for (int c = 0; c < 65536; ++c) cpus += (c ? " " : "") + std::to_string(c);
  const std::string dump = scratch_file("budget-65536.numactl", "available: 1 nodes (0)\nnode 0 cpus: " + cpus +
                                                                     "\nnode 0 size: 1000 MB\nnode distances:\nnode 0\n  0: 10\n");
  const std::string err = scratch_file("budget-note.err", "");
  const std::string command = "timeout 3 " + numaplace_cli_test::shell_quoted(NUMAPLACE_CLI) + " sim --file " +
                              numaplace_cli_test::shell_quoted(dump) + " --workload numa01:32768 >/dev/null 2>" +
                              numaplace_cli_test::shell_quoted(err) + " </dev/null";
  (void)std::system(command.c_str());
  std::ifstream in(err);
  const std::string said{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  INFO("stderr: " << said);
  CHECK(said.starts_with("note: 10 runs, about "));
  CHECK(said.find(" min here (") != std::string::npos);
  CHECK(said.find("--progress shows how far it is") != std::string::npos);
  std::filesystem::remove(dump);
  std::filesystem::remove(err);
}
