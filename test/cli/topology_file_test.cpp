// Machines as files, both ways: `topo --json` output read back by `--file` (and `--file -`,
// standard input), the same document and the same text; located errors for bad documents.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <numaplace/topology/presets.hpp>

#include "cli_runner.hpp"
#include "round_trip.hpp"

using nlohmann::json;
using numaplace_cli_test::check_rejected;
using numaplace_cli_test::data_file;
using numaplace_cli_test::check_round_trip;
using numaplace_cli_test::ok_output;
using numaplace_cli_test::run_numaplace;

namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

const std::string two_nodes = R"({"nodes": [{"id": 0, "distances": [10, 20]}, {"id": 1, "distances": [20, 10]}]})";

}  // namespace

TEST_CASE("every named machine round-trips through topo --json and --file -") {
  for (const auto& p : numaplace::presets::all()) {
    INFO("machine " << p.name);
    check_round_trip({"--machine", std::string(p.name)});
  }
}

TEST_CASE("sysfs trees round-trip, a CPU-less CXL node and id holes included") {
  for (const char* tree : {"sysfs/seed000", "sysfs/cxl", "sysfs/holes"}) {
    INFO("tree " << tree);
    check_round_trip({"--sysfs", data_file(tree)});
  }
}

TEST_CASE("a topology document as a named file says so in its source") {
  const std::string path = temp_file("numaplace-topology-file-test.json", ok_output({"topo", "--json", "--machine", "seed003-4node"}));
  CHECK(json::parse(ok_output({"topo", "--json", "--file", path}))["source"] == "file " + path);
  std::filesystem::remove(path);
}

TEST_CASE("a hand-written document: only nodes and their distances, CPUs and memory") {
  const json j = json::parse(ok_output(
      {"topo", "--json", "--file", "-"},
      R"({"nodes": [{"id": 2, "cpus": [0, 1], "memory_bytes": 1024, "distances": [10, 20]},
                    {"id": 5, "cpu_list": "", "has_cpu": false, "memory_bytes": 4096, "distances": [20, 10]}]})"));
  CHECK(j["nodes"][0]["id"] == 2);
  CHECK(j["nodes"][0]["cpu_list"] == "0-1");
  CHECK(j["nodes"][1]["id"] == 5);
  CHECK(j["nodes"][1]["has_cpu"] == false);
  CHECK(j["nodes"][1]["memory_bytes"] == 4096);
  CHECK(j["distances"] == json({{10, 20}, {20, 10}}));
  // The matrix alone is enough, too.
  CHECK(json::parse(ok_output({"topo", "--json", "--file", "-"}, R"({"distances": [[10, 21], [21, 10]]})"))["max_distance"] == 21);
}

TEST_CASE("--file - reads every format from standard input") {
  CHECK(json::parse(ok_output({"topo", "--json", "--file", "-"}, "10 20\n20 10\n"))["node_count"] == 2);
  std::ifstream numactl(data_file("topologies/intel-xeon-e7-4870-8s-8node.numactl"));
  const std::string text((std::istreambuf_iterator<char>(numactl)), std::istreambuf_iterator<char>());
  const json j = json::parse(ok_output({"topo", "--json", "--file", "-"}, text));
  CHECK(j["source"] == "standard input");
  CHECK(j["nodes"][0]["cpu_list"] == "0-9,80-89");
  check_rejected({"topo", "--file", "-"}, "standard input");  // empty input: the matrix reader's error
}

TEST_CASE("a document of another format or a newer schema is refused, saying what was expected") {
  const auto wrong_format = run_numaplace({"topo", "--file", "-"}, R"({"format": "numaplace-sim-report", "nodes": []})");
  CHECK(wrong_format.exit_code == 2);
  CHECK(wrong_format.err.find("standard input: /format: is \"numaplace-sim-report\"; expected \"numaplace-topology\"") !=
        std::string::npos);
  const auto newer = run_numaplace({"topo", "--file", "-"},
                                   R"({"format": "numaplace-topology", "schema_version": 2, "nodes": []})");
  CHECK(newer.exit_code == 2);
  CHECK(newer.err.find("/schema_version: is 2, newer than this numaplace") != std::string::npos);
}

TEST_CASE("bad documents name the place: line:column for syntax, a JSON pointer for values") {
  struct bad {
    std::string text, expected;
  };
  const std::vector<bad> cases{
      {"{\"nodes\": [\n  {\"distances\": [10, 20]},\n  {\"distances\": [20, 10]}", "standard input:3:26: syntax error"},
      {R"({"nodes": [{"distances": [10, 20]}, {"distances": [20, 10], "cpus": [3, 1]}]})",
       "standard input: /nodes/1/cpus/1: CPU 1 is out of order"},
      {R"({"nodes": [{"distances": [10, 20], "memroy_bytes": 5}, {"distances": [20, 10]}]})",
       "standard input: /nodes/0/memroy_bytes: unknown key"},
      {R"({"nodes": [{"distances": [10, 20]}, {"distances": [20, 5]}]})", "standard input: /nodes/1/distances/1:"},
      {R"({"nodes": [{"distances": [10, 20]}, {"distances": [20, "x"]}]})",
       "standard input: /nodes/1/distances/1: expected a distance, got \"x\""},
      {R"({"nodes": [{"id": 3, "distances": [10, 20]}, {"id": 3, "distances": [20, 10]}]})",
       "standard input: /nodes/1/id: node id 3 is also /nodes/0's"},
      {R"({"nodes": [{"distances": [10, 20], "cpus": [0], "cpu_list": "0-1"}, {"distances": [20, 10]}]})",
       "standard input: /nodes/0/cpu_list: is \"0-1\" but cpus lists 0"},
      {R"({"nodes": [{"distances": [10, 20], "has_cpu": false, "cpus": [0]}, {"distances": [20, 10]}]})",
       "standard input: /nodes/0/cpus: lists CPUs but has_cpu is false"},
      {R"({"nodes": [{"distances": [10, 20]}, {}]})", "standard input: /nodes/1: has no distances"},
      {R"({"nodes": []})", "standard input: /nodes: is empty"},
      {R"({"nodes": [{"distances": [10]}], "distances": [[11]]})", "standard input: /distances/0: differs from /nodes/0/distances"},
      {R"({"nodes": 5})", "standard input: /nodes: expected an array of nodes, got 5"},
  };
  for (const bad& b : cases) {
    INFO("input: " << b.text);
    const auto r = run_numaplace({"topo", "--file", "-"}, b.text);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(b.expected) != std::string::npos);
  }
  const std::string path = temp_file("numaplace-topology-file-bad.json", two_nodes.substr(0, 20));
  check_rejected({"topo", "--file", path}, path + ":1:21: syntax error");
  std::filesystem::remove(path);
}

TEST_CASE("--machine names a machine; --preset and --list-presets still work, with a notice") {
  const auto named = run_numaplace({"topo", "--json", "--machine", "seed001-4node"});
  CHECK(named.exit_code == 0);
  CHECK(named.err.empty());
  const auto old = run_numaplace({"topo", "--json", "--preset", "seed001-4node"});
  CHECK(old.exit_code == 0);
  CHECK(old.out == named.out);
  CHECK(old.err == "numaplace: notice: --preset is now --machine\n");

  const auto list = run_numaplace({"topo", "--list-machines"});
  CHECK(list.exit_code == 0);
  CHECK(list.out.find("seed000-8node") != std::string::npos);
  const auto old_list = run_numaplace({"topo", "--list-presets"});
  CHECK(old_list.out == list.out);
  CHECK(old_list.err == "numaplace: notice: --list-presets is now --list-machines\n");
  check_rejected({"topo", "--machine", "no-such-machine"}, "unknown machine 'no-such-machine'");
}

TEST_CASE("--generate builds a machine from a generator spec, and round-trips like any other") {
  const json j = json::parse(ok_output({"topo", "--json", "--generate", "backplane:2x4:12:20/cpus=2/memory=1G"}));
  CHECK(j["source"] == "generated backplane:2x4:12:20/cpus=2/memory=1G");
  CHECK(j["node_count"] == 8);
  CHECK(j["kind"] == "backplane");
  CHECK(j["nodes"][1]["cpu_list"] == "2-3");
  CHECK(j["nodes"][1]["memory_bytes"] == 1073741824);
  for (const char* spec : {"ring:8", "fully-connected:4:20", "ladder:4", "twisted-ladder:4", "hierarchical:2@11,4@20"}) {
    INFO("spec " << spec);
    check_round_trip({"--generate", spec});
  }
  check_rejected({"topo", "--generate", "ring:4:300"}, "generator spec 'ring:4:300': '300': distance per hop 300 is larger than 255");
  check_rejected({"topo", "--generate", "ring:8", "--machine", "seed000-8node"}, "excludes");
}
