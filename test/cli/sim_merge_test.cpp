// `numaplace sim --merge`: the shards of a sweep, merged, give exactly the unsharded report;
// parts of other sweeps, repeated and missing shards are refused naming the file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using numaplace_cli_test::output_of;
using numaplace_cli_test::part;
using numaplace_cli_test::run_numaplace;

namespace {

const std::string experiment = std::string(NUMAPLACE_TEST_DATA) + "/../../examples/experiments/staggered-start.json";


std::vector<std::string> sweep(std::vector<std::string> extra) {
  std::vector<std::string> args{"sim", "--config", experiment, "--runs", "3", "--threads", "2", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("merged shards are the unsharded report, in every output form") {
  const std::string whole = output_of(sweep({}));
  const auto p0 = part("0", sweep({"--shard", "0/2"}));
  const auto p1 = part("1", sweep({"--shard", "1/2"}));
  CHECK(output_of({"sim", "--merge", p1, p0, "--json"}) == whole);  // in any order
  std::vector<std::string> text{"sim", "--config", experiment, "--runs", "3", "--threads", "2"};
  CHECK(output_of({"sim", "--merge", p0, p1}) == output_of(text));
  text.push_back("--csv");
  CHECK(output_of({"sim", "--merge", p0, p1, "--csv"}) == output_of(text));
}

// Version 1 parts said "presets" for experiments, and "experiments" for their workloads.
TEST_CASE("parts written in schema version 1's names still merge") {
  const std::string whole = output_of(sweep({}));
  std::vector<std::string> parts;
  for (const char* k : {"0", "1"}) {
    auto doc = nlohmann::json::parse(output_of(sweep({"--shard", std::string(k) + "/2"})));
    REQUIRE(doc["schema_version"] == 2);
    doc["schema_version"] = 1;
    doc["all_presets"] = doc["all_experiments"];
    doc.erase("all_experiments");
    for (auto& x : doc["experiments"]) {
      x["experiments"] = x["workloads"];
      x.erase("workloads");
    }
    doc["presets"] = doc["experiments"];
    doc.erase("experiments");
    parts.push_back(numaplace_cli_test::scratch_file(std::string("v1-") + k + ".json", doc.dump()));
  }
  CHECK(output_of({"sim", "--merge", parts[0], parts[1], "--json"}) == whole);
}

TEST_CASE("seed presets merge too") {
  const std::vector<std::string> args{"sim", "--experiment", "seed000", "--runs", "2", "--json"};
  auto a = args, b = args;
  a.insert(a.end(), {"--shard", "0/2"});
  b.insert(b.end(), {"--shard", "1/2"});
  CHECK(output_of({"sim", "--merge", part("s0", a), part("s1", b), "--json"}) == output_of(args));
}

TEST_CASE("a sweep with hard binding merges with how its sets were sized") {
  const std::vector<std::string> args{"sim",   "--workload", "specjbb:2:8:3", "--machine", "seed001-4node",
                                      "--stacks", "hard-binding", "--runs",      "2"};
  auto json_args = args, a = args, b = args;
  json_args.push_back("--json");
  a.insert(a.end(), {"--shard", "0/2", "--json"});
  b.insert(b.end(), {"--shard", "1/2", "--json"});
  const auto p0 = part("b0", a), p1 = part("b1", b);
  CHECK(output_of({"sim", "--merge", p0, p1, "--json"}) == output_of(json_args));
  const std::string text = output_of({"sim", "--merge", p0, p1});
  CHECK(text == output_of(args));
  CHECK(text.find("\n  binding:  by cores (SMT4), one thread per core") != std::string::npos);
}

TEST_CASE("parts that do not make one sweep are refused, naming the file") {
  const auto p0 = part("r0", sweep({"--shard", "0/2"}));
  const auto p1 = part("r1", sweep({"--shard", "1/2"}));
  const auto other_seed = part("r1-seed", sweep({"--shard", "1/2", "--seed", "9"}));
  const auto of_three = part("r1-of-3", sweep({"--shard", "1/3"}));
  numaplace_cli_test::check_rejected({"sim", "--merge", p0, p0}, p0 + ": /shard: 0/2 again");
  numaplace_cli_test::check_rejected({"sim", "--merge", p0}, "shard 1/2 is missing");
  numaplace_cli_test::check_rejected({"sim", "--merge", p0, other_seed},
                                     other_seed + ": /experiments/0/workloads/0/seed: differs from " + p0);
  numaplace_cli_test::check_rejected({"sim", "--merge", p0, of_three}, of_three + ": /shard: is 1/3");
  numaplace_cli_test::check_rejected({"sim", "--merge", p0, experiment}, experiment + ": has no format");
  numaplace_cli_test::check_rejected({"sim", "--merge", p0, p1, "--runs", "2"}, "--merge prints the parts' sweep");
}

TEST_CASE("a part of another experiment with the same names and summaries is refused by what differs") {
  // Only one process's memory_bound differs: every name, summary and machine in the two
  // reports is the same, so only the request each part carries tells them apart.
  std::ifstream in(experiment);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("\"memory_bound\": 0.4");
  REQUIRE(at != std::string::npos);
  text.replace(at, 19, "\"memory_bound\": 0.9");
  text.erase(text.find("\"$schema\""), text.find('\n', text.find("\"$schema\"")) - text.find("\"$schema\""));
  const auto changed = numaplace_cli_test::scratch_file("merge-changed.json", text);

  const auto p0 = part("x0", sweep({"--shard", "0/2"}));
  std::vector<std::string> other{"sim", "--config", changed, "--runs", "3", "--json", "--shard", "1/2"};
  const auto p1_other = part("x1-other", other);
  numaplace_cli_test::check_rejected(
      {"sim", "--merge", p0, p1_other},
      p1_other + ": /request/workloads/0/processes/0/memory_bound: differs from " + p0 + ": a part of another sweep");

  // The worker threads are not part of the request: they change how fast, not what.
  const auto p1_one_thread = part("x1-threads", {"sim", "--config", experiment, "--runs", "3", "--threads", "1",
                                                 "--json", "--shard", "1/2"});
  CHECK(output_of({"sim", "--merge", p0, p1_one_thread, "--json"}) == output_of(sweep({})));
}
