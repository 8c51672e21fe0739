// `numaplace topo --json`: the kernel's view of known machines, checked through the JSON.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using nlohmann::json;
using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

// Runs `topo --json` with `source_args` and parses what it printed; fails the test if it failed.
json topo_json(const std::vector<std::string>& source_args) {
  std::vector<std::string> args{"topo", "--json"};
  args.insert(args.end(), source_args.begin(), source_args.end());
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("seed000-8node is a backplane with levels 10 12 17 19") {
  const json j = topo_json({"--machine", "seed000-8node"});
  CHECK(j["kind"] == "backplane");
  CHECK(j["levels"] == json({10, 12, 17, 19}));
  CHECK(j["max_distance"] == 19);
  CHECK(j["local_distance"] == 10);
  REQUIRE(j["nodes"].size() == 8);
  CHECK(j["distances"].size() == 8);
  CHECK(j["source"] == "preset seed000-8node");

  const json& node0 = j["nodes"][0];
  CHECK(node0["id"] == 0);
  CHECK(node0["has_cpu"] == true);
  CHECK(node0["has_memory"] == true);
  CHECK(node0["cpus"].size() == 20);
  CHECK(node0["cpu_list"] == "0-19");
  CHECK(node0["distances"] == json({10, 12, 17, 17, 19, 19, 19, 19}));
  CHECK(node0["neighbours"] == json({0, 1, 2, 3, 4, 5, 6, 7}));
  CHECK(node0["circles"][2] == json({{"distance", 17}, {"nodes", {2, 3}}}));
  CHECK(j["nodes"][5]["neighbours"] == json({5, 4, 6, 7, 0, 1, 2, 3}));
}

TEST_CASE("amd-opteron-8node is a glueless mesh") {
  const json j = topo_json({"--machine", "amd-opteron-8node"});
  CHECK(j["kind"] == "glueless_mesh");
  CHECK(j["max_distance"] == 22);
}

TEST_CASE("a matrix file from test/data/topologies") {
  const json j = topo_json({"--file", data_file("topologies/intel-xeon-e7-4870-8s-8node-redhat-lkml.txt")});
  CHECK(j["kind"] == "backplane");
  CHECK(j["levels"] == json({10, 12, 17, 19}));
  CHECK(j["nodes"].size() == 8);
}

TEST_CASE("numactl --hardware output from test/data/topologies, with CPUs and memory") {
  const json j = topo_json({"--file", data_file("topologies/intel-xeon-e7-4870-8s-8node.numactl")});
  CHECK(j["kind"] == "backplane");
  CHECK(j["nodes"][0]["cpu_list"] == "0-9,80-89");
  CHECK(j["nodes"][0]["memory_bytes"].get<std::uint64_t>() > 0);
}

TEST_CASE("sparse node ids are kept") {
  const json j = topo_json({"--machine", "ibm-power7-sparse"});
  CHECK(j["nodes"][2]["id"] == 4);
  CHECK(j["nodes"][2]["neighbours"][1] == 5);
}

TEST_CASE("a sysfs tree") {
  const json j = topo_json({"--sysfs", data_file("sysfs/seed000")});
  CHECK(j["nodes"].size() == 8);
  CHECK(j["kind"] == "backplane");
}

TEST_CASE("an asymmetric matrix is used as given, with a warning on stderr") {
  const auto r = run_numaplace({"topo", "--json", "--file", data_file("cli/asymmetric.txt")});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning: distance 0->1 is 12 but 1->0 is 14") != std::string::npos);
  const json j = json::parse(r.out);
  CHECK(j["asymmetries"].size() == 1);
  CHECK(j["distances"] == json({{10, 12}, {14, 10}}));
}
