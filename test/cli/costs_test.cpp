// `numaplace sim --costs FILE.json` and `--costs-json`: a user's machine costs read back,
// every bad file rejected with its name and the place in it, and printed costs reading back
// to the same costs.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

void check_rejected(const std::vector<std::string>& args, const std::vector<std::string>& expected) {
  const auto r = run_numaplace(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  for (const auto& e : expected) CHECK(r.err.find(e) != std::string::npos);
}

std::vector<std::string> costs_of(const std::string& file) {
  return {"sim", "--machine", "seed004-2socket", "--costs", data_file("cli/costs/" + file), "--costs-json"};
}

std::string temp_file(const std::string& name, const std::string& text) {
  return numaplace_cli_test::scratch_file("costs-" + name + ".json", text);
}

}  // namespace

TEST_CASE("a missing field is named by its path") {
  check_rejected(costs_of("missing-field.json"), {"missing-field.json: /core_stream_gbs: missing"});
}

TEST_CASE("a wrong-sized matrix names the row") {
  check_rejected(costs_of("wrong-size.json"), {"wrong-size.json: /latency_ratio/3: has 3 entries, not 4"});
}

TEST_CASE("a ratio below 1 names the entry") {
  check_rejected(costs_of("ratio-below-one.json"), {"ratio-below-one.json: /latency_ratio/1/0: 0.8 is below 1"});
}

TEST_CASE("a syntax error gives file:line:column") {
  check_rejected(costs_of("syntax-error.json"), {"syntax-error.json:4:40: ", "syntax error"});
}

TEST_CASE("a link to a node that is not there names the link's field") {
  check_rejected(costs_of("link-off-machine.json"), {"link-off-machine.json: /links/0/b: node index 2 is out of range"});
}

TEST_CASE("costs for another node count are refused, naming both") {
  check_rejected({"sim", "--machine", "seed000-8node", "--costs", data_file("cli/costs/two-socket.json"), "--costs-json"},
                 {"two-socket.json: has costs for 2 nodes", "seed000-8node", "has 8"});
}

TEST_CASE("--costs without a custom run is a usage error") {
  check_rejected({"sim", "--costs", data_file("cli/costs/two-socket.json")}, {"--costs", "--workload"});
}

TEST_CASE("a good file is printed back with its routes completed, and a custom run accepts it") {
  const auto r = run_numaplace(costs_of("two-socket.json"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["name"] == "a user's two-socket box");
  CHECK(j["routes"] == nlohmann::json::parse("[[[], [0]], [[0], []]]"));
  const auto run = run_numaplace({"sim", "--machine", "seed004-2socket", "--workload", "specjbb:2:8:5", "--runs", "1",
                                  "--costs", data_file("cli/costs/two-socket.json")});
  INFO(run.err);
  CHECK(run.exit_code == 0);
}

TEST_CASE("a file that lists no links gets them from the machine's SLIT, and says so") {
  // ring:4 is 10/20/30: links around the ring only, each half its smaller node's bandwidth,
  // and halfway round (a tie) by the lower-numbered neighbour.
  const auto r = run_numaplace(
      {"sim", "--generate", "ring:4", "--costs", data_file("cli/costs/ring-no-links.json"), "--costs-json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["links"] == nlohmann::json::parse(R"([{"a": 0, "b": 1, "gb_per_s": 20.0}, {"a": 0, "b": 3, "gb_per_s": 20.0},
                                               {"a": 1, "b": 2, "gb_per_s": 10.0}, {"a": 2, "b": 3, "gb_per_s": 10.0}])"));
  CHECK(j["routes"] == nlohmann::json::parse("[[[], [0], [0, 2], [1]], [[0], [], [2], [0, 1]],"
                                             " [[2, 0], [2], [], [3]], [[1], [1, 0], [3], []]]"));
  CHECK(j["assumption"].get<std::string>().starts_with("the file lists no links: links derived from SLIT"));
  // An explicit empty list keeps the nodes free of link limits, as before.
  const auto none = run_numaplace({"sim", "--machine", "seed004-2socket", "--costs",
                                   data_file("cli/costs/two-socket-no-link-limit.json"), "--costs-json"});
  INFO(none.err);
  REQUIRE(none.exit_code == 0);
  const auto k = nlohmann::json::parse(none.out);
  CHECK(k["links"].empty());
  CHECK(k["assumption"] == "one memory controller hub: nothing between the nodes to fill");
}

TEST_CASE("printed costs read back to the same costs, for every named machine") {
  const auto machines = run_numaplace({"sim", "--list-machines"});
  for (const std::string name : {"seed000-8node", "seed001-4node", "seed002-ht", "seed003-4node", "seed004-2socket",
                                 "amd-opteron-8node", "intel-r910-4node", "amd-epyc-7742-nps4", "ibm-power7-sparse",
                                 "ibm-power9-gpu", "intel-gold6230-snc2", "intel-spr-2s-cxl"}) {
    INFO(name);
    const auto first = run_numaplace({"sim", "--machine", name, "--costs-json"});
    REQUIRE(first.exit_code == 0);
    const auto j = nlohmann::json::parse(first.out);
    CHECK(j["sources"].is_array());
    const std::string file = temp_file(name, first.out);
    const auto second = run_numaplace({"sim", "--machine", name, "--costs", file, "--costs-json"});
    INFO(second.err);
    CHECK(second.exit_code == 0);
    CHECK(second.out == first.out);
    std::filesystem::remove(file);
  }
}

TEST_CASE("a machine with measured costs prints them; one without prints costs derived from SLIT") {
  const auto measured = run_numaplace({"sim", "--machine", "amd-epyc-7742-nps4", "--costs-json"});
  REQUIRE(measured.exit_code == 0);
  CHECK(nlohmann::json::parse(measured.out)["name"] == "2x AMD EPYC 7742 (Rome), NPS4");
  const auto derived = run_numaplace({"sim", "--machine", "ibm-power9-gpu", "--costs-json"});
  REQUIRE(derived.exit_code == 0);
  CHECK(nlohmann::json::parse(derived.out)["name"] == "derived from SLIT");
  CHECK(nlohmann::json::parse(derived.out)["assumption"].get<std::string>().find("SLIT") != std::string::npos);
}

TEST_CASE("JSON nested a million deep is refused where it passes the bound, not a stack overflow") {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  const std::string file = temp_file(
      "deep", R"({"name": "x", "local_latency_ns": 90, "node_bandwidth_gbs": [1, 1], "core_stream_gbs": 1, )"
              R"("latency_ratio": [[1, )" +
                  deep + "], [1, 1]]}");
  check_rejected({"sim", "--machine", "seed004-2socket", "--costs", file, "--costs-json"},
                 {file + ":1:174: nested deeper than 64 levels"});
  std::filesystem::remove(file);
}
