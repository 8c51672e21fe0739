// The numaplace::formats component on its own, as a C++ user calls it: each format written and
// read back to the same document, and bad input refused with its place.
#include <doctest/doctest.h>

#include <numaplace/formats.hpp>
#include <numaplace/sim/hardware_presets.hpp>
#include <numaplace/sim/sweep_analysis.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <string>
#include <vector>

namespace formats = numaplace::formats;

namespace {

// The message `read` throws as `Error`; fails the test when it throws nothing.
template <class Error, class Read>
std::string refusal(Read&& read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL("accepted what it should refuse");
  return "";
}

}  // namespace

TEST_CASE("a topology document reads back to the machine it was written from") {
  const numaplace::dynamic_topology machine = numaplace::presets::find("seed000-8node")->build();
  const std::string written = formats::topology_json(machine, "preset seed000-8node", {"a note"}).dump(2);
  const formats::topology_document read = formats::parse_topology_json(written, "m.json");
  CHECK(read.topology.node_count() == machine.node_count());
  CHECK(read.notes == std::vector<std::string>{"a note"});
  CHECK(formats::topology_json(read.topology, "preset seed000-8node", read.notes).dump(2) == written);
  CHECK(formats::looks_like_json(written));
  CHECK_FALSE(formats::looks_like_json("10 20\n20 10\n"));
}

TEST_CASE("a bad topology document is refused at its place") {
  CHECK(refusal<formats::topology_file_error>([] { formats::parse_topology_json(R"({"nodes": 3})", "m.json"); }) ==
        "m.json: /nodes: expected an array of nodes, got 3");
  // A syntax error by line and column; any refusal is a format_error.
  CHECK(refusal<formats::format_error>([] { formats::parse_topology_json("{\n  \"nodes\": [,]\n}", "m.json"); })
            .starts_with("m.json:2:13: "));
  // The library's own check of the matrix, as a JSON pointer to the distance.
  CHECK(refusal<formats::topology_file_error>(
            [] { formats::parse_topology_json(R"({"distances": [[10, 20], [20, 5]]})", "m.json"); })
            .starts_with("m.json: /distances/1/1: "));
}

TEST_CASE("a topology document carries the kernel's memory tiers, each memory node in one") {
  // Sockets 0 and 1 with CPUs; node 2 memory only.
  const std::string nodes = R"("nodes": [
      {"id": 0, "cpu_list": "0-3", "distances": [10, 21, 14]},
      {"id": 1, "cpu_list": "4-7", "distances": [21, 10, 24]},
      {"id": 2, "cpus": [], "has_cpu": false, "distances": [14, 24, 10]}])";
  const auto with = [&](const std::string& tiers) { return "{" + nodes + R"(, "memory_tiers": )" + tiers + "}"; };
  const formats::topology_document read =
      formats::parse_topology_json(with(R"([{"tier": 22, "nodes": [2]}, {"tier": 4, "nodes": [1, 0]}])"), "m.json");
  REQUIRE(read.memory_tiers.size() == 2);
  CHECK(read.memory_tiers[0].id == 4);  // fastest first, nodes ascending
  CHECK(read.memory_tiers[0].nodes == std::vector<unsigned>{0, 1});
  CHECK(read.memory_tiers[1].nodes == std::vector<unsigned>{2});
  const std::string written = formats::topology_json(read.topology, "m", read.notes, read.memory_tiers).dump(2);
  const formats::topology_document again = formats::parse_topology_json(written, "m.json");
  CHECK(formats::topology_json(again.topology, "m", again.notes, again.memory_tiers).dump(2) == written);
  // Without tiers nothing is written, and nothing read.
  CHECK(formats::parse_topology_json("{" + nodes + "}", "m.json").memory_tiers.empty());
  CHECK(formats::topology_json(read.topology, "m", {}).dump().find("memory_tiers") == std::string::npos);

  const auto refused = [&](const std::string& tiers) {
    return refusal<formats::topology_file_error>([&] { formats::parse_topology_json(with(tiers), "m.json"); });
  };
  CHECK(refused(R"([{"tier": 4, "nodes": [0, 1]}])") ==
        "m.json: /memory_tiers: node 2 has memory but is in no tier; the kernel puts every memory node in one");
  CHECK(refused(R"([{"tier": 4, "nodes": [0, 1, 2]}, {"tier": 22, "nodes": [2]}])") ==
        "m.json: /memory_tiers/1/nodes/0: node 2 is also in /memory_tiers/0");
  CHECK(refused(R"([{"tier": 4, "nodes": [0, 1, 7]}])") == "m.json: /memory_tiers/0/nodes/2: node 7 is not in the topology");
  CHECK(refused(R"([{"tier": 4, "nodes": [0, 1]}, {"tier": 4, "nodes": [2]}])") ==
        "m.json: /memory_tiers/1/tier: tier 4 is also /memory_tiers/0's");
  CHECK(refused(R"([{"tier": -1, "nodes": [0]}])").starts_with("m.json: /memory_tiers/0/tier: expected a whole number"));
  CHECK(refused(R"([{"tier": 16777216, "nodes": [0]}])") == "m.json: /memory_tiers/0/tier: 16777216 is more than 16777215");
  CHECK(refused(R"([{"tier": 4, "nodes": []}])").starts_with("m.json: /memory_tiers/0/nodes: expected a non-empty array"));
  CHECK(refused(R"([{"tier": 4}])") == "m.json: /memory_tiers/0: has no \"nodes\"");
  CHECK(refused(R"([{"tier": 4, "nodes": [0], "adistance": 576}])") ==
        "m.json: /memory_tiers/0/adistance: unknown key; a tier has tier and nodes");
  CHECK(refused(R"({"tier": 4})").starts_with("m.json: /memory_tiers: expected an array of tiers"));
  // A memoryless node is in no tier.
  const std::string memoryless = R"({"nodes": [
      {"id": 0, "cpu_list": "0-3", "distances": [10, 20]},
      {"id": 1, "cpu_list": "4-7", "has_memory": false, "distances": [20, 10]}],
    "memory_tiers": [{"tier": 4, "nodes": [0, 1]}]})";
  CHECK(refusal<formats::topology_file_error>([&] { formats::parse_topology_json(memoryless, "m.json"); }) ==
        "m.json: /memory_tiers/0/nodes/1: node 1 has no memory; only memory nodes are in tiers");
}

TEST_CASE("machine costs read back to the same costs, and must fit their machine") {
  const numaplace::sim::machine_costs costs = numaplace::sim::dl980_g7_costs();
  const std::string written = formats::machine_costs_json(costs).dump(2);
  CHECK(formats::machine_costs_json(formats::parse_machine_costs(written, "c.json")).dump(2) == written);
  const numaplace::dynamic_topology ring = numaplace::generate::ring(4, 10);
  CHECK(refusal<formats::machine_costs_error>([&] { formats::parse_machine_costs_for(written, "c.json", ring, "ring"); }) ==
        "c.json: has costs for 8 nodes; the machine (ring) has 4");
}

TEST_CASE("an experiment file reads back to the same file") {
  const std::vector<std::string> stacks{"linux-modern"};
  const std::string text = R"({"machine": {"name": "seed003-4node"},
 "workloads": [{"seconds": 2, "processes": [{"regions": [{"chunks": 8}], "threads": 2, "accesses": [{"region": 0}]}]}],
 "runs": 1})";
  const formats::experiment_config config =
      formats::parse_experiment_config(text, "e.json", "", stacks, formats::machine_sources::names_only);
  CHECK(config.machine.name == "seed003-4node");
  const std::string written = formats::experiment_config_json(config).dump();
  CHECK(formats::experiment_config_json(formats::parse_experiment_config(written, "w.json", "", stacks)).dump() == written);
  CHECK(refusal<formats::experiment_config_error>([&] {
          formats::parse_experiment_config(R"({"machine": {"file": "m.json"}, "workloads": []})", "e.json", "", stacks,
                                           formats::machine_sources::names_only);
        }).starts_with("e.json:1:22: /machine/file: machine files are not read here"));
}

TEST_CASE("a sweep's report merges back to itself, and a merge needs parts") {
  numaplace::sim::sweep_report report;
  numaplace::sim::preset_runs preset;
  preset.name = "custom";
  report.presets.push_back(preset);
  const std::string written = formats::sim_report_json(report, true).dump();
  CHECK(formats::sim_report_json(formats::merge_sim_reports({{"r.json", written}}), true).dump() == written);
  CHECK(refusal<formats::sim_report_error>([] { formats::merge_sim_reports({}); }).starts_with("--merge needs"));
  CHECK(refusal<formats::sim_report_error>([] { formats::merge_sim_reports({{"r.json", "[]"}}); })
            .starts_with("r.json: "));
}

TEST_CASE("a claim is checked against the experiments a sweep ran") {
  numaplace::sim::preset_runs preset;
  numaplace::sim::sweep_claim claim;
  claim.experiment = "specjbb-1x24";
  const numaplace::sim::claim_outcome outcome = numaplace::sim::evaluate_claim(preset, claim);
  CHECK_FALSE(outcome.simulated);
  CHECK(outcome.missing == "experiment specjbb-1x24 was not run");
  CHECK(numaplace::sim::comparison_verdict(numaplace::sim::compare_runs({1.0}, {2.0}, false)) == "not distinguishable");
}
