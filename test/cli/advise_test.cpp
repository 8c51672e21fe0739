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

TEST_CASE("advise: memory on a node of a lower memory tier is said to be slower") {
  // The CXL tree again, with the kernel's tiers beside it: node 2 in tier 22, below 0-1's tier 4.
  const std::string tiers = data_file("sysfs-tiers/cxl/devices/system/node");
  const auto spill = run_numaplace({"advise", "-w", "1:70000", "--sysfs", tiers, "--numactl"});
  INFO("stderr: " << spill.err);
  CHECK(spill.exit_code == 0);
  CHECK(spill.out == "--cpunodebind=0-1 --membind=0-2\n");
  CHECK(spill.err.find("node 2 is in memory tier 22, below tier 4 (nodes 0-1)") != std::string::npos);
  // Without the tiers (a bare node tree) or without memory there, no such note.
  const auto bare = run_numaplace({"advise", "-w", "1:70000", "--sysfs", data_file("sysfs/cxl"), "--numactl"});
  CHECK(bare.err.find("memory tier") == std::string::npos);
  const auto fits = run_numaplace({"advise", "-w", "1:20000", "--sysfs", tiers, "--numactl"});
  CHECK(fits.out == "--cpunodebind=0 --membind=0\n");
  CHECK(fits.err.find("memory tier") == std::string::npos);
}

TEST_CASE("advise: a lower memory tier's node is memory to spill into, not part of the job's circle") {
  // intel-spr-2s-cxl: sockets 0-1 (104 CPUs, 63 GiB each) and an expander beside each (2 beside
  // 0, 3 beside 1, at 14; the other socket at 21), tiers from the preset's costs.
  const auto both = run_numaplace({"advise", "--machine", "intel-spr-2s-cxl", "-w", "120:1000", "--numactl"});
  CHECK(both.out == "--cpunodebind=0-1 --membind=0-1\n");
  CHECK(both.err.find("memory tier") == std::string::npos);
  // 70000 MiB is more than socket 1 has: its expander, nearer than socket 0, takes the rest,
  // as the kernel's own allocation would fall back, and the advice says it is slower.
  const auto spill = run_numaplace({"advise", "--machine", "intel-spr-2s-cxl", "-w", "8:70000", "--numactl"});
  CHECK(spill.out == "--cpunodebind=1 --membind=1,3\n");
  CHECK(spill.err.find("node 3 is in memory tier 143, below tier 4 (nodes 0-1)") != std::string::npos);
  // numad's rule knows no tiers: the expander at 14 joins on the way to 120 CPUs.
  const auto numad = run_numaplace({"advise", "--machine", "intel-spr-2s-cxl", "-w", "120:1000", "--numactl", "--numad"});
  INFO("numad stderr: " << numad.err);
  CHECK(numad.out == "--cpunodebind=0-1 --membind=0-1,3\n");
  CHECK(numad.err.find("node 3 is in memory tier 143") != std::string::npos);
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

namespace {

const std::string smt_sysfs = data_file("cli/advise-smt/node");

std::string advise_err(std::vector<std::string> args) {
  args.insert(args.begin(), "advise");
  const auto r = run_numaplace(args);
  INFO("stdout: " << r.out);
  CHECK(r.exit_code == 0);
  return r.err;
}

}  // namespace

TEST_CASE("advise --numad: numad 0.5's rule on the guest's recorded tree, worked by hand") {
  // numad counts MiB as kB / 1024: free (MemFree + Inactive(file), which is 0 here) is
  // 99 108 107 61 121 101 79 113 for nodes 0-7; node 0, the first listed, has 124 MiB in all;
  // one CPU (100) per node. -w 1:16 wants 1 node; the best centre is the biggest magnitude,
  // node 4 (121 MiB), and 121 >= 16 + 100.
  CHECK(advise({"--numad", "-w", "1:16", "--sysfs", guest_sysfs}) == "4\n");
  CHECK(advise({"--numad", "-w", "1:21", "--sysfs", guest_sysfs}) == "4\n");
  // -w 1:22: 121 < 22 + 100, so node 4 gives 21 and 1 MiB is left: its pair, node 5, is next.
  // numaplace's own rule stops at node 4, whose 121 MiB cover 22.
  CHECK(advise({"--numad", "-w", "1:22", "--sysfs", guest_sysfs}) == "4-5\n");
  CHECK(advise({"-w", "1:22", "--sysfs", guest_sysfs}) == "4\n");
  // -w 2:40 wants 2 nodes (200 of 100 each); centre 4 scores 6 * 724 + 600 * 644 / 144 = 7027,
  // above node 5's 6880. Taking 4 (gives 21), 5 (1), 7 (13), 6 (79 < 100: the 21 short
  // raise what is left), 1, 2, 0 and 3 never meets 40 MiB (51 are left after node 3's 61):
  // every node, as numad answers in the guest.
  CHECK(advise({"--numad", "-w", "2:40", "--sysfs", guest_sysfs}) == "0-7\n");
  CHECK(advise({"-w", "2:40", "--sysfs", guest_sysfs}) == "4-5\n");
  CHECK(advise_err({"--numad", "-w", "2:40", "--sysfs", guest_sysfs}).find("took every node and -w 2:40 is still short of 51 MiB (numad keeps 100 MB of each node)") !=
        std::string::npos);
  // numad takes fractions of a CPU: 1.5 CPUs want 2 one-CPU nodes; centre 4 scores
  // 6 * 580 + 600 * 500 / 144 = 5563 (node 5: 5416); node 4 covers the memory, node 5 the
  // other half CPU. numaplace's own rule takes whole CPUs and says where fractions go.
  CHECK(advise({"--numad", "-w", "1.5:16", "--sysfs", guest_sysfs}) == "4-5\n");
  check_rejected({"advise", "-w", "1.5:16", "--sysfs", guest_sysfs}, "(--numad takes fractions of a CPU, as numad does)");
  check_rejected({"advise", "--numad", "-w", "8.01", "--sysfs", guest_sysfs}, "asks for 8.01 CPUs but sysfs");
  // numad's -u changes no -w answer.
  CHECK(advise({"--numad", "-u", "50", "-w", "1:22", "--sysfs", guest_sysfs}) == "4-5\n");
}

TEST_CASE("advise --numad on numactl dumps: the free: lines, worked by hand") {
  // Leonardo's DCGP nodes: 14 CPUs each (1400), sockets 0-3 and 4-7 (12 within, 21 across).
  // -w 20:1000 wants 2 nodes (2000 / 1400). Each magnitude is (4 * free + 6000) * 8400 and the
  // free: lines make node 5 (64133 MB) the biggest: centre 5 scores
  // 84 * 262532 + 8400 * 262304 / 144 = 37353754, above node 6's 37347902. Node 5 gives its
  // 1400 and node 6 (next in its socket by magnitude) the rest: two dies. numaplace's own rule
  // takes the whole distance-12 circle, the socket.
  const std::string leonardo = data_file("topologies/leonardo-dcgp-8node.numactl");
  CHECK(advise({"--numad", "-w", "20:1000", "--file", leonardo}) == "5-6\n");
  CHECK(advise({"-w", "20:1000", "--file", leonardo}) == "4-7\n");
  // The Xeon E7-4870's nodes: 20 logical CPUs of 10 two-thread cores, pairs at 12. With
  // --threads-per-core 2 a node is 1200 at -t 20, so 13 CPUs want 2 nodes: the magnitudes are
  // (4 * free + 6000) * 7200, node 3 (61327 MB) is the biggest, and centre 3 scores
  // 72 * 251308 + 50 * 251000 = 30644176 against node 2's 30637400: nodes 3 and 2. Counting
  // every logical CPU whole (the dump does not say), one node holds 13: node 3.
  const std::string xeon = data_file("topologies/intel-xeon-e7-4870-8s-8node.numactl");
  CHECK(advise({"--numad", "-w", "13:1000", "--threads-per-core", "2", "--file", xeon}) == "2-3\n");
  CHECK(advise({"--numad", "-w", "13:1000", "--file", xeon}) == "3\n");
  CHECK(advise_err({"--numad", "-w", "13:1000", "--file", xeon}).find("does not say how many threads a core has") !=
        std::string::npos);
}

TEST_CASE("advise: 13 CPUs on a 2-socket EPYC take two dies with --numad, the socket in circles") {
  // Dardel's EPYC 7742 matrix (NPS4, dies 12 apart in a socket, 32 across) with 16 logical
  // CPUs of 8 two-thread cores a die: 8 * 100 + 8 * 20 = 960 a node. numad wants
  // ceil(1300 / 960) = 2 nodes; every node is equal, so centre 0 and its first neighbour, 1.
  // numaplace's rule needs the whole distance-12 circle: the socket.
  const std::vector<std::string> epyc{"--file", data_file("topologies/amd-epyc-7742-2s-nps4-8node-dardel.txt"),
                                      "--cpus-per-node", "16", "--memory-per-node", "64G", "--threads-per-core", "2"};
  std::vector<std::string> args{"--numad", "-w", "13"};
  args.insert(args.end(), epyc.begin(), epyc.end());
  CHECK(advise(args) == "0-1\n");
  args.erase(args.begin());
  CHECK(advise(args) == "0-3\n");
}

TEST_CASE("advise counts SMT siblings as numad does where the machine says how many threads a core has") {
  // Two nodes of 20 logical CPUs, cpu0's thread_siblings_list "0,20": 10 two-thread cores
  // each, 10 + 10 * 20 % = 12 CPUs a node. 13 CPUs fit one node only when siblings count whole.
  CHECK(advise({"-w", "13", "--sysfs", smt_sysfs}) == "0-1\n");
  CHECK(advise({"-w", "12", "--sysfs", smt_sysfs}) == "0\n");
  CHECK(advise({"-w", "13", "-t", "100", "--sysfs", smt_sysfs}) == "0\n");
  CHECK(advise({"-w", "13", "--threads-per-core", "1", "--sysfs", smt_sysfs}) == "0\n");
  CHECK(advise({"--numad", "-w", "13", "--sysfs", smt_sysfs}) == "0-1\n");
  CHECK(advise({"--numad", "-w", "13", "-t", "100", "--sysfs", smt_sysfs}) == "1\n");
  // hwloc says it too: 2 nodes of 2 two-PU cores, 2 * 100 + 2 * 20 = 240 a node.
  CHECK(advise({"-w", "3", "--hwloc-synthetic", "pack:1 numa:2 core:2 pu:2"}) == "0-1\n");
  CHECK(advise({"-w", "3", "-t", "100", "--hwloc-synthetic", "pack:1 numa:2 core:2 pu:2"}) == "0\n");
  CHECK(advise({"--numad", "-w", "3", "--hwloc-synthetic", "pack:1 numa:2 core:2 pu:2", "--memory-per-node", "1G"}) ==
        "0-1\n");
  check_rejected({"advise", "-w", "25", "--sysfs", smt_sysfs},
                 "asks for 25 CPUs but sysfs (sysfs " + smt_sysfs +
                     ") has 24 (40 logical CPUs, 2 threads per core, a sibling counting 20 %)");
  check_rejected({"advise", "-w", "1", "-t", "101", "--sysfs", smt_sysfs}, "--htt-percent: Value 101 not in range 0 to 100");
  check_rejected({"advise", "-w", "1", "-u", "50", "--sysfs", smt_sysfs}, "--target-utilization requires --numad");
  check_rejected({"advise", "-w", "1", "--numad", "-u", "9", "--sysfs", smt_sysfs}, "--target-utilization: Value 9 not in range 10 to 130");
}

TEST_CASE("advise --numad counts Inactive(file) as free memory, as numad -C 1 does") {
  // Node 0: 900 MiB MemFree + 100 Inactive(file); node 1: 800 + 300. numaplace's rule takes
  // the most MemFree (node 0); numad's the biggest magnitude, 1000 + 4 * 1000 for node 1
  // against 1000 + 4 * 900; with -C 0 MemFree alone, node 0 again.
  CHECK(advise({"-w", "1:100", "--sysfs", smt_sysfs}) == "0\n");
  CHECK(advise({"--numad", "-w", "1:100", "--sysfs", smt_sysfs}) == "1\n");
  CHECK(advise({"--numad", "-C", "0", "-w", "1:100", "--sysfs", smt_sysfs}) == "0\n");
  check_rejected({"advise", "--numad", "-w", "1", "--sysfs", data_file("sysfs/cxl")}, "no Inactive(file): line");
}

TEST_CASE("advise --best-effort answers every node with a warning where the default refuses") {
  const auto refused = run_numaplace({"advise", "-w", "9", "--sysfs", guest_sysfs});
  CHECK(refused.exit_code == 2);
  CHECK(refused.out.empty());
  CHECK(refused.err.find("asks for 9 CPUs but sysfs") != std::string::npos);
  CHECK(refused.err.find("--best-effort advises every node instead") != std::string::npos);
  for (const bool numad : {false, true}) {
    std::vector<std::string> args{"advise", "-w", "9", "--sysfs", guest_sysfs, "--best-effort"};
    if (numad) args.push_back("--numad");
    const auto r = run_numaplace(args);
    INFO("numad: " << numad << " stderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "0-7\n");
    CHECK(r.err.find("warning: -w 9: asks for 9 CPUs but sysfs") != std::string::npos);
  }
  const auto memory = run_numaplace({"advise", "-w", "1:2000", "--sysfs", guest_sysfs, "--best-effort", "--numactl"});
  CHECK(memory.exit_code == 0);
  CHECK(memory.out == "--cpunodebind=0-7 --membind=0-7\n");
  CHECK(memory.err.find("warning: -w 1:2000: asks for 2000 MiB but") != std::string::npos);
}

TEST_CASE("advise on a bare matrix: a note instead of '0 CPUs', and per-node defaults") {
  const std::string bare = scratch_file("advise-bare.txt", "10 20 30 30\n20 10 30 30\n30 30 10 20\n30 30 20 10\n");
  // Before: "-w 2: asks for 2 CPUs but file ... has 0".
  const auto r = run_numaplace({"advise", "-w", "2", "--file", bare});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("has 0") == std::string::npos);
  CHECK(r.err.find("no node says which CPUs it has (a bare distance matrix)") != std::string::npos);
  CHECK(r.err.find("'node N cpus none' lines") != std::string::npos);
  CHECK(r.err.find("--cpus-per-node") != std::string::npos);
  // 4 CPUs a node: 2 fit node 0 (equal nodes, lowest centre); 6 want its pair.
  CHECK(advise({"-w", "2", "--file", bare, "--cpus-per-node", "4"}) == "0\n");
  CHECK(advise({"-w", "6", "--file", bare, "--cpus-per-node", "4", "--numactl"}) == "--cpunodebind=0-1 --membind=0-1\n");
  check_rejected({"advise", "-w", "17", "--file", bare, "--cpus-per-node", "4"}, "asks for 17 CPUs but file");
  // Memory: without sizes it does not count (a note says so); with them it does.
  CHECK(advise_err({"-w", "2:3000", "--file", bare, "--cpus-per-node", "4"}).find("gives no node memory sizes") !=
        std::string::npos);
  CHECK(advise({"-w", "2:3000", "--file", bare, "--cpus-per-node", "4", "--memory-per-node", "2G"}) == "0-1\n");
  check_rejected({"advise", "-w", "2:9000", "--file", bare, "--cpus-per-node", "4", "--memory-per-node", "2G"},
                 "asks for 9000 MiB but file");
  // numad's rule divides by a node's memory, so it needs the sizes. With 1 GiB nodes, 1:950
  // is more than one node less numad's 100 MB margin: node 0 and its pair.
  check_rejected({"advise", "--numad", "-w", "2", "--file", bare, "--cpus-per-node", "4"}, "--memory-per-node SIZE");
  CHECK(advise({"--numad", "-w", "1:950", "--file", bare, "--cpus-per-node", "4", "--memory-per-node", "1G"}) ==
        "0-1\n");
  CHECK(advise({"--numad", "-w", "1:900", "--file", bare, "--cpus-per-node", "4", "--memory-per-node", "1G"}) == "0\n");
  check_rejected({"advise", "-w", "2", "--file", bare, "--cpus-per-node", "4", "--omp-places"},
                 "--omp-places names CPU numbers, which file " + bare + " does not give");
  check_rejected({"advise", "-w", "2", "--file", bare, "--cpus-per-node", "4", "--memory-per-node", "12Q"},
                 "--memory-per-node");
  // Nodes that say what they have keep it; the defaults fill only the unknown ones.
  const std::string partial = scratch_file("advise-partial.txt", "10 20\n20 10\nnode 1 cpus none memory 64G\n");
  CHECK(advise({"-w", "3", "--file", partial, "--cpus-per-node", "4", "--numactl"}) == "--cpunodebind=0 --membind=0\n");
  std::filesystem::remove(bare);
  std::filesystem::remove(partial);
}
