// hwloc XML and synthetic descriptions as topology sources, and matrix files that say which
// nodes have CPUs and memory: what topo shows, round trips through `topo --json`, and errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "round_trip.hpp"

using nlohmann::json;
using numaplace_cli_test::check_rejected;
using numaplace_cli_test::check_round_trip;
using numaplace_cli_test::data_file;
using numaplace_cli_test::ok_output;
using numaplace_cli_test::run_numaplace;

namespace {

// The help text says "(not built in)" for hwloc options when the CLI lacks hwloc.
bool cli_has_hwloc() { return run_numaplace({"topo", "--help"}).out.find("(not built in)") == std::string::npos; }

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

}  // namespace

TEST_CASE("--hwloc-xml and --hwloc-synthetic: the machine, its distances or the assumed ones") {
  if (!cli_has_hwloc()) {
    check_rejected({"topo", "--hwloc-xml", data_file("hwloc/pack2-numa2-core2.xml")}, "built without hwloc");
    check_rejected({"topo", "--hwloc-synthetic", "pack:2 numa:2 pu:1"}, "built without hwloc");
    return;
  }
  const json xml = json::parse(ok_output({"topo", "--json", "--hwloc-xml", data_file("hwloc/backplane-4node-os-latency.xml")}));
  REQUIRE(xml["nodes"].size() == 4);
  CHECK(xml["nodes"][0]["distances"] == json::array({10, 12, 32, 32}));
  CHECK(xml["notes"].empty());
  check_round_trip({"--hwloc-xml", data_file("hwloc/backplane-4node-os-latency.xml")});

  const std::string text = ok_output({"topo", "--hwloc-synthetic", "pack:2 numa:2 core:4 pu:2"});
  CHECK(text.find("source:         hwloc synthetic \"pack:2 numa:2 core:4 pu:2\"") != std::string::npos);
  CHECK(text.find("10 local / 20 remote was assumed") != std::string::npos);
  const json synthetic = json::parse(ok_output({"topo", "--json", "--hwloc-synthetic", "pack:2 numa:2 core:4 pu:2"}));
  REQUIRE(synthetic["nodes"].size() == 4);
  CHECK(synthetic["nodes"][3]["distances"] == json::array({20, 20, 20, 10}));
  CHECK(synthetic["nodes"][3]["cpu_list"] == "24-31");
  check_round_trip({"--hwloc-synthetic", "pack:2 numa:2 core:2 pu:1"});
  check_round_trip({"--hwloc-xml", data_file("hwloc/pack2-numa2-core2.xml")});
  // Every command that uses topology_source takes these.
  for (const char* command : {"topo", "advise"}) {  // sim has its own machine options
    CAPTURE(command);
    const std::string help = run_numaplace({command, "--help"}).out;
    CHECK(help.find("--hwloc-xml") != std::string::npos);
    CHECK(help.find("--hwloc-synthetic") != std::string::npos);
  }
}

TEST_CASE("bad hwloc sources exit 2 naming the file or the description") {
  if (!cli_has_hwloc()) return;
  check_rejected({"topo", "--hwloc-xml", data_file("hwloc/no-such.xml")}, "no-such.xml: no such file");
  const std::string not_xml = data_file("topologies/intel-xeon-e7-4870-4s-4node-dell-r910.txt");
  check_rejected({"topo", "--hwloc-xml", not_xml}, not_xml + ": hwloc cannot read it as a topology XML file");
  check_rejected({"topo", "--hwloc-synthetic", "pack:two"},
                 "hwloc synthetic description \"pack:two\": at character 6: expected a count from 1 to 1024");
  check_rejected({"topo", "--hwloc-synthetic", "pack:2 numa:2 core:4"}, "hwloc synthetic description \"pack:2 numa:2 core:4\": hwloc rejects it");
  check_rejected({"topo", "--hwloc-synthetic", "pack:64 pu:1024"}, "more than 8192 processing units");
  check_rejected({"topo", "--hwloc-synthetic", "numa:2", "--machine", "seed000-8node"}, "excludes");
}

TEST_CASE("a matrix file with node lines: topo shows CPUs and memory, and JSON round trips") {
  const std::string file = temp_file("numaplace-cxl-matrix.txt",
                                     "10 21 14\n21 10 24\n14 24 10\n"
                                     "node 0 cpus 0-7 memory 64G\n"
                                     "node 1 cpus 8-15 memory 64G\n"
                                     "node 2 cpus none memory 256G   # CXL memory expander\n");
  const std::string text = ok_output({"topo", "--file", file});
  CHECK(text.find("0-7") != std::string::npos);
  CHECK(text.find("    2  none") != std::string::npos);
  CHECK(text.find("256") != std::string::npos);
  const json j = json::parse(ok_output({"topo", "--json", "--file", file}));
  CHECK(j["nodes"][2]["has_cpu"] == false);
  CHECK(j["nodes"][2]["memory_bytes"] == 256ull << 30);
  CHECK(j["nodes"][1]["cpu_list"] == "8-15");
  check_round_trip({"--file", file});
}

TEST_CASE("bad node lines exit 2 naming the file, line and node") {
  const std::string file = temp_file("numaplace-bad-node-line.txt", "10 20\n20 10\nnode 0 cpus 0-3\nnode 1 cpus 2-5\n");
  check_rejected({"topo", "--file", file}, file + ":4: CPU 2 is listed for both node 0 and node 1");
  const std::string size = temp_file("numaplace-bad-size.txt", "10 20\n20 10\nnode 1 memory 12Q\n");
  check_rejected({"topo", "--file", size}, size + ":3: node 1 memory size '12Q' is not a whole number");
}
