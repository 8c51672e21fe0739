// `numaplace advise -w NCPUS[:MB]`: numad's pre-placement question answered circle by circle,
// on the 8-node guest's recorded sysfs tree (one CPU per node, MemFree from its meminfo:
// node 4 has the most, 124424 kB; pairs 0-1, 2-3, 4-5, 6-7 at distance 12, quads at 17).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::check_rejected;
using numaplace_cli_test::run_numaplace;
using numaplace_cli_test::scratch_file;

namespace {

const std::string guest_sysfs = data_file("proc/seed000-guest/sys");

std::string advise(std::vector<std::string> args) {
  args.insert(args.begin(), "advise");
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("advise -w: the node list numad prints, from the centre with the most free memory") {
  // One CPU: the node with the most MemFree.
  CHECK(advise({"-w", "1:16", "--sysfs", guest_sysfs}) == "4\n");
  CHECK(advise({"-w", "1", "--sysfs", guest_sysfs}) == "4\n");
  // Two CPUs: a whole distance-12 pair, the pair with the most free memory (4-5: 223 MiB).
  CHECK(advise({"-w", "2:40", "--sysfs", guest_sysfs}) == "4-5\n");
  // 230 MiB fits no pair: the circle widens to the quad at distance 17.
  CHECK(advise({"-w", "2:230", "--sysfs", guest_sysfs}) == "4-7\n");
  CHECK(advise({"-w", "4:24", "--sysfs", guest_sysfs}) == "4-7\n");
  CHECK(advise({"-w", "8:200", "--sysfs", guest_sysfs}) == "0-7\n");
  // A preset has no free memory: equal nodes tie, and the lowest centre wins.
  CHECK(advise({"-w", "30", "--machine", "seed000-8node"}) == "0-1\n");
}

TEST_CASE("advise --numactl and --omp-places") {
  CHECK(advise({"-w", "4:24", "--sysfs", guest_sysfs, "--numactl"}) == "--cpunodebind=4-7 --membind=4-7\n");
  // A CPU-less memory node (CXL, node 2 at distance 50) is memory for --membind only.
  CHECK(advise({"-w", "1:70000", "--sysfs", data_file("sysfs/cxl"), "--numactl"}) ==
        "--cpunodebind=0-1 --membind=0-2\n");
  CHECK(advise({"-w", "1:16", "--sysfs", guest_sysfs, "--omp-places"}) == "OMP_PLACES={4}\nOMP_PROC_BIND=close\n");
  CHECK(advise({"-w", "4:24", "--sysfs", guest_sysfs, "--omp-places"}) ==
        "OMP_PLACES={4},{5},{6},{7}\nOMP_PROC_BIND=spread\n");
}

TEST_CASE("advise: memory beyond what is free gives every node and says so") {
  const auto r = run_numaplace({"advise", "-w", "1:900", "--sysfs", guest_sysfs});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "0-7\n");
  CHECK(r.err.find("less than the 900 MiB asked for") != std::string::npos);
}

TEST_CASE("advise: bad demands and bad meminfo are usage errors that name the problem") {
  check_rejected({"advise", "-w", "0", "--sysfs", guest_sysfs}, "-w 0: asks for 0 CPUs");
  check_rejected({"advise", "-w", "4:", "--sysfs", guest_sysfs}, "-w 4:: the memory (MB) is missing");
  check_rejected({"advise", "-w", "x", "--sysfs", guest_sysfs}, "CPU count 'x' is not a whole number");
  check_rejected({"advise", "-w", "1.5", "--sysfs", guest_sysfs}, "CPU count '1.5' is not a whole number");
  check_rejected({"advise", "-w", "4:-1", "--sysfs", guest_sysfs}, "memory (MB) '-1' is not a whole number");
  check_rejected({"advise", "-w", "99999999999", "--sysfs", guest_sysfs}, "is too large");
  check_rejected({"advise", "-w", "9", "--sysfs", guest_sysfs}, "asks for 9 CPUs but sysfs");
  check_rejected({"advise", "-w", "1:2000", "--sysfs", guest_sysfs}, "asks for 2000 MiB but");
  check_rejected({"advise", "--sysfs", guest_sysfs}, "-w");
  check_rejected({"advise", "-w", "1", "--numactl", "--omp-places"}, "excludes");
  check_rejected({"advise", "-w", "1", "--sysfs", data_file("cli/advise-bad-memfree")},
                 "advise-bad-memfree/node3/meminfo:2: MemFree 'lots' is not a whole number");
}

TEST_CASE("advise: another machine's memory is its node sizes, never this machine's free memory") {
  // Before, every source but --file, --machine and --hwloc read this machine's MemFree: a
  // generated 1 TiB node had what this machine had free, and a hwloc synthetic machine failed
  // on this machine's missing node1/meminfo.
  const auto big = run_numaplace({"advise", "-w", "1:100000", "--generate", "fully-connected:1/memory=1T"});
  INFO("stderr: " << big.err);
  CHECK(big.exit_code == 0);
  CHECK(big.out == "0\n");
  CHECK(big.err.empty());
  const auto synthetic = run_numaplace({"advise", "-w", "1", "--hwloc-synthetic", "pack:2 numa:1 pu:2"});
  INFO("stderr: " << synthetic.err);
  CHECK(synthetic.exit_code == 0);
  CHECK(synthetic.out == "0\n");
}

TEST_CASE("advise: memory sums saturate and demands compare in MiB, so nothing wraps") {
  // Two nodes of 2^63 bytes add up to 2^64: wrapped, "0 MiB in all" refused a 7 MiB job.
  CHECK(advise({"-w", "1:7", "--generate", "fully-connected:2/memory=9223372036854775808"}) == "0\n");
  // 2^44 MiB is 2^64 bytes: wrapped to 0, it was met by any node.
  check_rejected({"advise", "-w", "1:17592186044416", "--generate", "fully-connected:2/memory=1G"},
                 "asks for 17592186044416 MiB but generated fully-connected:2/memory=1G has 2048 MiB in all");
}

TEST_CASE("advise: a numactl dump's free: lines are its free memory") {
  // Before, a numactl file's free: lines were checked and dropped: node sizes counted, and the
  // tie went to node 0, which has 100 MB free.
  const std::string dump =
      "available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 0 size: 1000 MB\nnode 0 free: 100 MB\n"
      "node 1 cpus: 2 3\nnode 1 size: 1000 MB\nnode 1 free: 900 MB\nnode distances:\nnode   0   1\n"
      "  0:  10  20\n  1:  20  10\n";
  const std::string file = scratch_file("free-lines.numactl", dump);
  CHECK(advise({"-w", "1:500", "--file", file}) == "1\n");
  CHECK(advise({"-w", "2:950", "--file", file}) == "0-1\n");
  // Without a free: line for every node with memory, the sizes count, as for any file.
  const std::string partial = scratch_file("free-partial.numactl", std::string(dump).replace(dump.find("node 1 free: 900 MB\n"), 20, ""));
  CHECK(advise({"-w", "1:500", "--file", partial}) == "0\n");
  // More free than the node has is an edited dump.
  const std::string edited = scratch_file("free-edited.numactl", std::string(dump).replace(dump.find("100 MB"), 6, "2000 MB"));
  check_rejected({"advise", "-w", "1", "--file", edited},
                 edited + ":4: node 0 has more memory free (2000 MB) than its size (1000 MB)");
  for (const auto& f : {file, partial, edited}) std::filesystem::remove(f);
}
