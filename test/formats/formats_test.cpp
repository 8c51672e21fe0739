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
