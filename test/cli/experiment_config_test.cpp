// `numaplace sim --config FILE.json`: experiment files run, their fields reach the simulator,
// the command line overrides them, and paths inside them start at the file's folder. (The
// schema's agreement with the reader on good and bad files: test/cli/experiment_schema_check.py.)
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

const std::string examples = std::string(NUMAPLACE_TEST_DATA) + "/../../examples/experiments/";

nlohmann::json report_of(std::vector<std::string> args) {
  args.insert(args.begin(), "sim");
  args.insert(args.end(), {"--json", "--threads", "2"});
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// Two processes of 6 threads on `machine`; the second gets `process_fields` (JSON members
// after a comma) and the file `top` (members followed by a comma).
std::string config_with(const std::string& name, const std::string& process_fields, const std::string& top = "",
                        const std::string& machine = R"({"name": "seed003-4node"})") {
  const auto path = std::filesystem::temp_directory_path() / ("numaplace-config-test-" + name + ".json");
  std::ofstream(path) << R"({"machine": )" << machine << R"(, "runs": 1, "stacks": ["linux-modern"],)" << top
                      << R"( "workloads": [{"name": "w", "seconds": 4, "processes": [)"
                      << R"({"name": "a", "regions": [{"chunks": 32}], "threads": 6, "accesses": [{"region": 0}]},)"
                      << R"({"name": "b", "regions": [{"chunks": 32}], "threads": 6, "accesses": [{"region": 0}])"
                      << process_fields << "}]}]}";
  return path.string();
}

double throughput_of(const nlohmann::json& report, std::size_t group) {
  return report["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"][group]["throughput"].get<double>();
}

}  // namespace

TEST_CASE("every example experiment runs, and its report is stamped") {
  for (const auto& entry : std::filesystem::directory_iterator(examples)) {
    CAPTURE(entry.path());
    const auto j = report_of({"--config", entry.path().string(), "--runs", "1"});
    CHECK(j["format"] == "numaplace-sim-report");
    CHECK(j["schema_version"] == 2);
    const auto& e = j["experiments"][0]["workloads"][0];
    CHECK(e["stacks"].size() == 2);
    CHECK(e["stacks"][0]["runs"].size() == 1);  // --runs 1 overrides the file's 2
  }
}

TEST_CASE("the file's stacks, runs and seed are used, and the command line overrides them") {
  const std::string file = examples + "staggered-start.json";
  const auto from_file = report_of({"--config", file});
  const auto& e = from_file["experiments"][0]["workloads"][0];
  CHECK(e["name"] == "staggered-pair");
  CHECK(e["seed"] == 7);
  CHECK(e["runs"] == 2);
  CHECK(e["stacks"][1]["stack"] == "linux-modern");
  const auto overridden = report_of({"--config", file, "--stacks", "hard-binding", "--seed", "11", "--runs", "1"});
  const auto& o = overridden["experiments"][0]["workloads"][0];
  CHECK(o["seed"] == 11);
  CHECK(o["runs"] == 1);
  REQUIRE(o["stacks"].size() == 1);
  CHECK(o["stacks"][0]["stack"] == "hard-binding");
}

TEST_CASE("a process's start time, a cost model field and SMT reach the simulator") {
  const double base = throughput_of(report_of({"--config", config_with("base", "")}), 1);
  CHECK(throughput_of(report_of({"--config", config_with("late", R"(, "start_ms": 2000)")}), 1) != base);
  CHECK(throughput_of(report_of({"--config", config_with("dear", "", R"( "cost_model": {"page_migrate_cost_ms": 20},)")}), 1) !=
        base);
  // SMT on a machine without measured costs (those say their own threads_per_core).
  const std::string file = "\"file\": \"" + data_file("topologies/intel-xeon-e7-4870-4s-4node-dell-r910.txt") + "\"";
  const double one_thread = throughput_of(report_of({"--config", config_with("nosmt", "", "", "{" + file + "}")}), 1);
  const auto smt = config_with("smt", "", "", "{" + file + R"(, "threads_per_core": 2})");
  CHECK(throughput_of(report_of({"--config", smt}), 1) < one_thread);
}

TEST_CASE("inverse_moves_memory: false leaves a process's memory with its CPUs under inverse binding") {
  const auto local_of = [](const nlohmann::json& report) {
    return report["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"][1]["local_fraction"].get<double>();
  };
  const auto stacks = std::vector<std::string>{"--stacks", "inverse-binding"};
  auto moved = std::vector<std::string>{"--config", config_with("inverse-moved", "")};
  auto kept = std::vector<std::string>{"--config", config_with("inverse-kept", R"(, "inverse_moves_memory": false)")};
  moved.insert(moved.end(), stacks.begin(), stacks.end());
  kept.insert(kept.end(), stacks.begin(), stacks.end());
  CHECK(local_of(report_of(moved)) == 0.0);
  CHECK(local_of(report_of(kept)) == 1.0);
}

TEST_CASE("first_touch_nodes forces where a process's memory starts, and a node beyond the machine is named") {
  const auto memory_of = [](const nlohmann::json& report) {
    return report["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"][1]["memory_nodes"];
  };
  for (const int node : {2, 3}) {
    const auto file = config_with("forced", R"(, "first_touch_nodes": [)" + std::to_string(node) + "]");
    CHECK(memory_of(report_of({"--config", file, "--stacks", "no-balancing"})) == nlohmann::json::array({node}));
  }
  const auto r = run_numaplace({"sim", "--config", config_with("beyond", R"(, "first_touch_nodes": [4])")});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("process b first touches its memory on node index 4 beyond the topology") != std::string::npos);
}

TEST_CASE("cpu_nodes and memory_nodes bind apart, memory to a CPU-less (CXL) node included") {
  // Nodes 0 and 1 with CPUs, node 2 memory only (a CXL expander).
  const std::string cxl = R"({"topology": {"format": "numaplace-topology", "schema_version": 1, "nodes": [
    {"id": 0, "cpus": [0, 1, 2, 3, 4, 5], "memory_bytes": 17179869184, "distances": [10, 21, 14]},
    {"id": 1, "cpus": [6, 7, 8, 9, 10, 11], "memory_bytes": 17179869184, "distances": [21, 10, 24]},
    {"id": 2, "cpus": [], "has_cpu": false, "memory_bytes": 68719476736, "distances": [14, 24, 10]}]}})";
  const auto group_of = [](const nlohmann::json& report) {
    return report["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"][1];
  };
  const auto hard = [&](const std::string& name, const std::string& fields) {
    return std::vector<std::string>{"--config", config_with(name, fields, "", cxl), "--stacks", "hard-binding"};
  };
  // numactl --cpunodebind=0 --membind=2: all of b's memory on the CXL node, none local.
  const auto apart = group_of(report_of(hard("apart", R"(, "cpu_nodes": [0], "memory_nodes": [2])")));
  CHECK(apart["memory_nodes"] == nlohmann::json::array({2}));
  CHECK(apart["local_fraction"] == 0.0);
  // Memory alone: the binding baseline gives b CPUs and keeps its memory where it said.
  CHECK(group_of(report_of(hard("memory-only", R"(, "memory_nodes": [2])")))["memory_nodes"] ==
        nlohmann::json::array({2}));
  // A CPU-less node cannot hold threads, by bind_nodes or cpu_nodes; the message names both.
  for (const std::string field : {"bind_nodes", "cpu_nodes"}) {
    auto args = hard("cpuless-" + field, ", \"" + field + "\": [2]");
    args.insert(args.begin(), "sim");
    const auto r = run_numaplace(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("process b binds to node index 2, which has no CPUs") != std::string::npos);
  }
  // Written down by --config-json, the bindings stay apart and read back the same.
  const std::string good = data_file("experiments/good/cpu-and-memory-apart.json");
  const auto written = nlohmann::json::parse(numaplace_cli_test::output_of({"sim", "--config", good, "--config-json"}));
  const auto& db = written["workloads"][0]["processes"][0];
  CHECK(db["cpu_nodes"] == nlohmann::json::array({0}));
  CHECK(db["memory_nodes"] == nlohmann::json::array({0, 2}));
  CHECK(db["bind_nodes"].empty());
  const std::string again = numaplace_cli_test::scratch_file("apart-again.json", written.dump());
  CHECK(nlohmann::json::parse(numaplace_cli_test::output_of({"sim", "--config", again, "--config-json"})) == written);
  auto beyond_args = hard("memory-beyond", R"(, "cpu_nodes": [0], "memory_nodes": [5])");
  beyond_args.insert(beyond_args.begin(), "sim");
  const auto beyond = run_numaplace(beyond_args);
  CHECK(beyond.exit_code == 2);
  CHECK(beyond.err.find("process b binds its memory to node index 5, beyond the machine's 3 nodes") != std::string::npos);
}

TEST_CASE("a machine file is found next to the config, and a missing one is named") {
  const auto dir = std::filesystem::temp_directory_path() / "numaplace-config-test-dir";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(data_file("topologies/intel-xeon-e7-4870-4s-4node-dell-r910.txt"), dir / "m.txt",
                             std::filesystem::copy_options::overwrite_existing);
  const std::string body =
      R"({"machine": {"file": "m.txt"}, "runs": 1, "workloads": [{"seconds": 1, "processes": [{"regions": [{"chunks": 4}], "threads": 2, "accesses": [{"region": 0}]}]}]})";
  std::ofstream(dir / "exp.json") << body;
  const auto j = report_of({"--config", (dir / "exp.json").string()});
  CHECK(j["experiments"][0]["workloads"][0]["machine"].get<std::string>().find("m.txt") != std::string::npos);
  std::filesystem::remove(dir / "m.txt");
  const auto r = run_numaplace({"sim", "--config", (dir / "exp.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("m.txt") != std::string::npos);
}

TEST_CASE("--config refuses other workload and machine options, and a missing file") {
  const std::string file = examples + "staggered-start.json";
  CHECK(run_numaplace({"sim", "--config", file, "--workload", "specjbb:1:8"}).exit_code == 2);
  CHECK(run_numaplace({"sim", "--config", file, "--machine", "seed003-4node"}).exit_code == 2);
  const auto r = run_numaplace({"sim", "--config", "/nonexistent/exp.json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("/nonexistent/exp.json: no such file") != std::string::npos);
}

namespace {

// What a run found and on what machine, without the labels that name where it came from.
nlohmann::json results_of(const nlohmann::json& report) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : report.at("experiments")) {
    for (const auto& e : p.at("workloads")) {
      out.push_back({e.at("stacks"), e.at("runs"), e.at("seed"), e.at("metric"), e.at("topology")});
    }
  }
  return out;
}

std::string written(const std::string& name, const std::string& text) {
  return numaplace_cli_test::scratch_file("config-written-" + name + ".json", text);
}

}  // namespace

TEST_CASE("--config-json writes a --workload run down; the file runs the same") {
  // The binding baselines too: numa01's second process keeps its memory under inverse binding,
  // and THREAD_ALLOC's parts land where any thread wrote them first (both written down).
  const std::vector<std::pair<std::string, std::string>> cases{
      {"numa01:4", "no-balancing,linux-modern"},     {"numa02:4", "no-balancing,linux-modern"},
      {"numa01_thread_alloc:4", "no-balancing,linux-modern"}, {"specjbb:2:4:3", "no-balancing,linux-modern"},
      {"make:2:8", "no-balancing,linux-modern"},     {"numa01:4", "hard-binding,inverse-binding"},
      {"numa01_thread_alloc:4", "hard-binding,inverse-binding"}, {"stream:4:2000000:3", "hard-binding,inverse-binding"},
      {"mpi:4:64:3", "hard-binding,inverse-binding"}};
  for (const auto& c : cases) {
    // Named copies, not structured bindings: clang 14 cannot capture those (INFO does).
    const std::string& w = c.first;
    const std::string& stacks = c.second;
    INFO(w << " " << stacks);
    const std::vector<std::string> run{"--workload", w,   "--machine", "seed003-4node", "--runs", "2",
                                       "--seed",     "5", "--stacks",  stacks};
    std::vector<std::string> write{"sim"};
    write.insert(write.end(), run.begin(), run.end());
    write.push_back("--config-json");
    const auto file = run_numaplace(write);
    INFO(file.err);
    REQUIRE(file.exit_code == 0);
    CHECK(nlohmann::json::parse(file.out).at("format") == "numaplace-experiment");
    const std::string path = written("workload", file.out);
    CHECK(results_of(report_of({"--config", path})) == results_of(report_of(run)));
    std::filesystem::remove(path);
  }
}

TEST_CASE("a config written by --config-json reads back to the same file and the same runs") {
  std::vector<std::string> configs;
  for (const auto& entry : std::filesystem::directory_iterator(examples)) configs.push_back(entry.path().string());
  for (const auto& entry : std::filesystem::directory_iterator(data_file("experiments/good"))) {
    configs.push_back(entry.path().string());
  }
  REQUIRE(configs.size() >= 8);
  for (const auto& config : configs) {
    INFO(config);
    const auto first = run_numaplace({"sim", "--config", config, "--runs", "1", "--config-json"});
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const std::string path = written("first", first.out);
    const auto second = run_numaplace({"sim", "--config", path, "--config-json"});
    CHECK(second.exit_code == 0);
    CHECK(nlohmann::json::parse(second.out) == nlohmann::json::parse(first.out));
    CHECK(results_of(report_of({"--config", path})) == results_of(report_of({"--config", config, "--runs", "1"})));
    std::filesystem::remove(path);
  }
}

// A database and a batch job are two programs: reports give each its own row, summary and
// comparison, never one mean over both (its "stddev" would be the gap between them).
TEST_CASE("an experiment of two programs reports each apart") {
  const std::string config = examples + "staggered-start.json";  // processes "early" and "late"
  const auto j = report_of({"--config", config, "--runs", "2"});
  const auto& e = j["experiments"][0]["workloads"][0];
  for (const auto& stack : e["stacks"]) {
    REQUIRE(stack.contains("programs"));
    REQUIRE(stack["programs"].size() == 2);
    CHECK(stack["programs"][0]["program"] == "early");
    CHECK(stack["programs"][1]["program"] == "late");
    // Each program's mean is its own groups' mean.
    for (std::size_t p = 0; p < 2; ++p) {
      double sum = 0;
      for (const auto& run : stack["runs"]) sum += run["groups"][p]["throughput"].get<double>();
      CHECK(stack["programs"][p]["summary"]["mean"].get<double>() == doctest::Approx(sum / 2));
      CHECK(stack["programs"][p]["groups"] == 2);
    }
  }
  // The whole workload's comparison, then each program's.
  REQUIRE(e["comparisons"].size() == 3);
  CHECK_FALSE(e["comparisons"][0].contains("program"));
  CHECK(e["comparisons"][1]["program"] == "early");
  CHECK(e["comparisons"][2]["program"] == "late");

  const auto text = run_numaplace({"sim", "--config", config, "--runs", "2"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("program") != std::string::npos);
  CHECK(text.out.find("linux-modern vs no-balancing, early: ") != std::string::npos);
  CHECK(text.out.find("linux-modern vs no-balancing, late: ") != std::string::npos);
}

TEST_CASE("instances of one program pool: jvm1 and jvm2 are one program") {
  const auto j = report_of({"--workload", "specjbb:2:4:2", "--machine", "seed003-4node", "--runs", "1"});
  const auto& e = j["experiments"][0]["workloads"][0];
  CHECK_FALSE(e["stacks"][0].contains("programs"));
  CHECK(e["comparisons"].size() == 1);
}
