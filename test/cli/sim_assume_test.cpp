// `numaplace sim --assume NAME=FACTOR`: an assumed constant scaled in every experiment; every
// output says so, merged parts keep it, parts scaled otherwise are refused, bad input is exit 2.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using nlohmann::json;
using numaplace_cli_test::check_rejected;
using numaplace_cli_test::output_of;
using numaplace_cli_test::part;
using numaplace_cli_test::run_numaplace;

namespace {

// A small custom run: 2 JVMs x 8 warehouses for 5 simulated seconds on 4 nodes x 24 CPUs.
const std::vector<std::string> small{"sim", "--workload", "specjbb:2:8:5", "--machine", "seed001-4node", "--runs", "2"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }


const json doubled = json::array({{{"name", "specjbb.memory_bound"}, {"factor", 2.0}}});

}  // namespace

TEST_CASE("--assume list names every assumption with what it is") {
  const std::string out = output_of({"sim", "--assume", "list"});
  for (const char* name : {"specjbb.memory_bound", "specjbb.shared_share", "smt.gain", "page_migrate_cost",
                           "slit.latency_share", "machine.core_stream"}) {
    CHECK(contains(out, std::string("  ") + name + " "));
  }
  CHECK(contains(out, "0.35 (assumed)"));
}

TEST_CASE("a scaled run says so in JSON, in its request, and in text; its results move") {
  const json plain = json::parse(output_of(with(small, {"--json"})));
  CHECK_FALSE(plain.contains("assumptions"));  // the default model's report is as it was
  CHECK_FALSE(plain["experiments"][0]["workloads"][0].contains("assumptions"));
  CHECK_FALSE(plain["request"].contains("assumptions"));

  const json scaled = json::parse(output_of(with(small, {"--assume", "specjbb.memory_bound=2", "--json"})));
  CHECK(scaled["assumptions"] == doubled);
  CHECK(scaled["experiments"][0]["workloads"][0]["assumptions"] == doubled);
  CHECK(scaled["request"]["assumptions"] == doubled);
  const auto mean = [](const json& j) { return j["experiments"][0]["workloads"][0]["stacks"][0]["summary"]["mean"].get<double>(); };
  CHECK(mean(scaled) < mean(plain));  // twice as memory-bound: slower

  const std::string text = output_of(with(small, {"--assume", "specjbb.memory_bound=2"}));
  CHECK(text.starts_with("assumed constants scaled (--assume): specjbb.memory_bound x2; these are not the default"));
  CHECK(contains(text, "\n  scaled:   specjbb.memory_bound x2\n"));
  CHECK_FALSE(contains(output_of(small), "scaled"));
}

TEST_CASE("an assumption no experiment has changes nothing, and a notice says so") {
  const auto r = run_numaplace(with(small, {"--assume", "make.memory_bound=2", "--json"}));
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "--assume make.memory_bound: no experiment of this run has it"));
  const json j = json::parse(r.out);
  CHECK(j["experiments"][0]["workloads"][0]["assumptions"] == json::array());
  const json plain = json::parse(output_of(with(small, {"--json"})));
  CHECK(j["experiments"][0]["workloads"][0]["stacks"] == plain["experiments"][0]["workloads"][0]["stacks"]);
}

TEST_CASE("scaled shards merge, and keep what was scaled; parts scaled otherwise are refused") {
  const std::vector<std::string> seed{"sim", "--experiment", "seed000", "--runs", "2", "--json"};
  const auto scaled = with(seed, {"--assume", "smt.gain=0.5"});
  const auto s0 = part("s0", with(scaled, {"--shard", "0/2"}));
  const auto s1 = part("s1", with(scaled, {"--shard", "1/2"}));
  const auto plain1 = part("p1", with(seed, {"--shard", "1/2"}));
  const auto other1 = part("o1", with(seed, {"--shard", "1/2", "--assume", "smt.gain=2"}));
  CHECK(output_of({"sim", "--merge", s0, s1, "--json"}) == output_of(scaled));
  CHECK(contains(output_of({"sim", "--merge", s0, s1}), "assumed constants scaled (--assume): smt.gain x0.5"));
  check_rejected({"sim", "--merge", s0, plain1}, plain1 + ": /assumptions: differs from " + s0);
  check_rejected({"sim", "--merge", s0, other1}, other1 + ": /assumptions/0/factor: differs from " + s0);
}

TEST_CASE("bad --assume input is exit 2, naming it") {
  check_rejected(with(small, {"--assume", "specjbb.nothing=2"}),
                 "--assume specjbb.nothing=2: unknown assumption 'specjbb.nothing'; valid assumptions: specjbb.memory_bound");
  check_rejected(with(small, {"--assume", "specjbb.memory_bound"}), "--assume 'specjbb.memory_bound': expected NAME=FACTOR");
  check_rejected(with(small, {"--assume", "=2"}), "expected NAME=FACTOR");
  check_rejected(with(small, {"--assume", "smt.gain=two"}), "--assume smt.gain=two: the factor 'two' is not a number");
  check_rejected(with(small, {"--assume", "smt.gain=0"}), "--assume smt.gain=0: the factor must be from 0.001 to 1000");
  check_rejected(with(small, {"--assume", "smt.gain=1e9"}), "the factor must be from 0.001 to 1000");
  check_rejected(with(small, {"--assume", "smt.gain=2", "--assume", "smt.gain=3"}), "--assume smt.gain: scaled twice");
  check_rejected({"sim", "--experiment", "seed000", "--assume", "machine.remote_latency=100"},
                 "--assume: specjbb-2x80: machine.remote_latency x100");
  check_rejected({"sim", "--merge", "x.json", "--assume", "smt.gain=2"}, "--merge excludes --assume");
  check_rejected(with(small, {"--config-json", "--assume", "smt.gain=2"}), "--config-json excludes --assume");
}
