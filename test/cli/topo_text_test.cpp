// `numaplace topo` as people read it, `--list-presets`, `--help`, and this machine.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "round_trip.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the text view shows the summary, the matrix and the neighbour circles") {
  const auto r = run_numaplace({"topo", "--machine", "seed000-8node"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "kind:           backplane"));
  CHECK(contains(r.out, "levels:         10 12 17 19"));
  CHECK(contains(r.out, "max distance:   19"));
  CHECK(contains(r.out, "node 0: 10:[0] 12:[1] 17:[2 3] 19:[4 5 6 7]"));
  CHECK(contains(r.out, "node 6: 10:[6] 12:[7] 17:[4 5] 19:[0 1 2 3]"));
  CHECK(contains(r.out, "    0   10  12  17  17  19  19  19  19"));
  CHECK(r.err.empty());
}

TEST_CASE("CPUs are shown as compact ranges and memory in binary units") {
  const auto r = run_numaplace({"topo", "--file", data_file("topologies/intel-xeon-e7-4870-8s-8node.numactl")});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "0-9,80-89"));
  CHECK(contains(r.out, "GiB"));
}

TEST_CASE("--list-presets names every preset with its source") {
  const auto r = run_numaplace({"topo", "--list-presets"});
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "seed000-8node"));
  CHECK(contains(r.out, "amd-opteron-8node"));
  CHECK(contains(r.out, "source: "));
}

TEST_CASE("--help exits 0 and lists the subcommands and source options") {
  const auto top = run_numaplace({"--help"});
  CHECK(top.exit_code == 0);
  CHECK(contains(top.out, "topo"));
  const auto topo = run_numaplace({"topo", "--help"});
  CHECK(topo.exit_code == 0);
  CHECK(contains(topo.out, "--machine"));
  CHECK(contains(topo.out, "--json"));
}

TEST_CASE("with no source, this machine is shown") {
  const auto r = run_numaplace({"topo"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "this machine"));
  const auto j = run_numaplace({"topo", "--json"});
  CHECK(j.exit_code == 0);
}

TEST_CASE("a bare `numaplace` shows this machine too") {
  const auto r = run_numaplace({});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "this machine"));
}

TEST_CASE("a bare matrix gets a note: CPU-less nodes cannot be recognised without node lines") {
  // The POWER9 AC922's matrix alone reads as a backplane with levels 10 40 80: its six GPU
  // memory nodes count as CPU nodes. With node lines saying which have no CPUs it is the
  // named machine, direct, 10 40, and the note goes.
  const std::string bare = data_file("topologies/ibm-power9-ac922-8335gtw-2cpu-6gpu-nodes.txt");
  const auto r = run_numaplace({"topo", "--file", bare});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "kind:           backplane"));
  CHECK(contains(r.out, "note:           no node says which CPUs it has (a bare distance matrix): CPU-less nodes"));
  CHECK(contains(r.out, "without 'node N cpus none' lines"));
  CHECK(contains(r.out, "docs/machines.md"));
  const std::string text = numaplace_cli_test::output_of({"topo", "--file", bare, "--json"});
  CHECK_FALSE(contains(text, "bare distance matrix"));  // the JSON document stays a machine description
  std::string lines = "node 0 cpus 0-87\nnode 8 cpus 88-175\n";
  for (const char* id : {"250", "251", "252", "253", "254", "255"}) lines += std::string("node ") + id + " cpus none\n";
  const std::string with_cpus = numaplace_cli_test::scratch_file(
      "ac922-with-cpus.txt", (std::ostringstream() << std::ifstream(bare).rdbuf()).str() + lines);
  const auto named = run_numaplace({"topo", "--file", with_cpus});
  INFO("stdout: " << named.out << "\nstderr: " << named.err);
  REQUIRE(named.exit_code == 0);
  CHECK(contains(named.out, "kind:           direct"));
  CHECK(contains(named.out, "levels:         10 40\n"));
  CHECK_FALSE(contains(named.out, "bare distance matrix"));
  // A machine with CPU facts has no note.
  CHECK_FALSE(contains(numaplace_cli_test::output_of({"topo", "--machine", "seed000-8node"}), "note:"));
  std::filesystem::remove(with_cpus);
}

TEST_CASE("a /sys tree with memory tiers shows the kernel's tiers; a bare node tree shows none") {
  const auto r = run_numaplace({"topo", "--sysfs", data_file("sysfs-tiers/cxl/devices/system/node")});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "memory tiers:   4 (nodes 0-1), 22 (node 2)"));
  numaplace_cli_test::check_round_trip({"--sysfs", data_file("sysfs-tiers/cxl/devices/system/node")});
  const auto bare = run_numaplace({"topo", "--sysfs", data_file("sysfs/cxl")});
  REQUIRE(bare.exit_code == 0);
  CHECK(!contains(bare.out, "memory tiers"));
}

TEST_CASE("a preset whose costs put its expanders below DRAM shows those tiers") {
  // intel-spr-2s-cxl's expanders: 250 ns against 108 and 17.8 GB/s against 246, so
  // 576 * 2.31 * 246 / 17.8 = 18400 (in the kernel's integer steps), tier 143.
  const auto r = run_numaplace({"topo", "--machine", "intel-spr-2s-cxl"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "memory tiers:   4 (nodes 0-1), 143 (nodes 2-3)"));
  // The tiers travel in the topology document, and advise reads them back from it.
  numaplace_cli_test::check_round_trip({"--machine", "intel-spr-2s-cxl"});
  const std::string written = numaplace_cli_test::output_of({"topo", "--machine", "intel-spr-2s-cxl", "--json"});
  CHECK(contains(written, "\"memory_tiers\""));
  const auto advised = run_numaplace({"advise", "--file", "-", "-w", "120:1000", "--numactl"}, written);
  CHECK(advised.out == "--cpunodebind=0-1 --membind=0-1\n");
  // A preset whose nodes all rank as DRAM, or one without costs, shows none.
  CHECK(!contains(numaplace_cli_test::output_of({"topo", "--machine", "seed000-8node"}), "memory tiers"));
  CHECK(!contains(numaplace_cli_test::output_of({"topo", "--machine", "ibm-power9-gpu"}), "memory tiers"));
}

TEST_CASE("a bad memory tier list is an error naming its file") {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "numaplace-topo-bad-tier";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "devices/virtual/memory_tiering/memory_tier4");
  std::filesystem::create_directories(root / "devices/system");
  std::filesystem::copy(data_file("sysfs/cxl"), root / "devices/system/node", std::filesystem::copy_options::recursive);
  std::ofstream(root / "devices/virtual/memory_tiering/memory_tier4/nodelist") << "0-x\n";
  const auto r = run_numaplace({"topo", "--sysfs", (root / "devices/system/node").string()});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "memory_tier4/nodelist"));
  std::filesystem::remove_all(root);
}
