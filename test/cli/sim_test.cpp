// `numaplace sim`: small custom runs (fast even in Debug and sanitizer builds), their JSON, CSV
// and text, determinism across thread counts, shards, seed claims, plots, and rejected input.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using nlohmann::json;
using numaplace_cli_test::run_numaplace;

namespace {

// A small custom run: 2 JVMs x 8 warehouses for 5 simulated seconds on 4 nodes x 24 CPUs.
const std::vector<std::string> small{"sim", "--workload", "specjbb:2:8:5", "--machine", "seed001-4node"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

json run_json(const std::vector<std::string>& args) {
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

void check_rejected(const std::vector<std::string>& args, const std::string& expected) {
  const auto r = run_numaplace(args);
  INFO("args: " << args.size() << " words, stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(contains(r.err, expected));
}

}  // namespace

TEST_CASE("sim --json on a small custom run: structure, every group field, fast") {
  const auto start = std::chrono::steady_clock::now();
  const json j = run_json(with(small, {"--runs", "2", "--json"}));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5.0);

  CHECK(j["shard"] == "0/1");
  REQUIRE(j["experiments"].size() == 1);
  const json& p = j["experiments"][0];
  CHECK(p["name"] == "custom");
  CHECK(p["claims"].empty());
  REQUIRE(p["workloads"].size() == 1);
  const json& e = p["workloads"][0];
  CHECK(e["name"] == "specjbb:2:8:5");
  CHECK(contains(e["machine"].get<std::string>(), "preset seed001-4node"));
  CHECK(e["metric"] == "throughput");
  CHECK(e["runs"] == 2);
  CHECK(e["node_groups"] == json({{0}, {1}, {2}, {3}}));  // a direct machine: every node its own group
  REQUIRE(e["stacks"].size() == 2);
  CHECK(e["stacks"][0]["stack"] == "no-balancing");
  CHECK(e["stacks"][1]["stack"] == "linux-modern");
  for (const json& s : e["stacks"]) {
    const json& sum = s["summary"];
    CHECK(sum["count"] == 4);
    CHECK(sum["mean"].get<double>() > 0);
    CHECK(sum["min"].get<double>() <= sum["mean"].get<double>());
    CHECK(sum["max"].get<double>() >= sum["mean"].get<double>());
    CHECK(sum["harmonic_mean"].get<double>() <= sum["mean"].get<double>() + 1e-9);
    CHECK(s["groups"] == 4);
    REQUIRE(s["runs"].size() == 2);
    for (std::size_t r = 0; r < 2; ++r) {
      const json& run = s["runs"][r];
      CHECK(run["run"] == r);
      CHECK(run["seed"] == 1 + r);
      CHECK(run["simulated_seconds"].get<double>() == doctest::Approx(5.0).epsilon(0.01));
      REQUIRE(run["groups"].size() == 2);
      const json& g = run["groups"][0];
      CHECK(g["name"] == "jvm1");
      for (const char* field : {"throughput", "elapsed_seconds", "local_fraction", "task_migrations", "page_migrations",
                                "balancer_seconds", "converged_seconds", "memory_nodes", "memory_per_node", "task_nodes",
                                "memory_in_one_node_group"}) {
        CHECK_MESSAGE(g.contains(field), field);
      }
      CHECK(g["memory_per_node"].size() == 4);
      CHECK(g["local_fraction"].get<double>() >= 0);
      CHECK(g["local_fraction"].get<double>() <= 1);
      CHECK_FALSE(g.contains("tasks_over_time"));
    }
  }
}

TEST_CASE("sim --timeline adds each group's tasks per node over time") {
  const json j = run_json(with(small, {"--runs", "1", "--stacks", "linux-modern", "--json", "--timeline"}));
  const json& g = j["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"][0];
  REQUIRE(g.contains("tasks_over_time"));
  REQUIRE(g["tasks_over_time"].size() >= 5);
  unsigned tasks = 0;
  for (const auto& n : g["tasks_over_time"].back()["tasks_per_node"]) tasks += n.get<unsigned>();
  CHECK(tasks == 8);
}

TEST_CASE("sim output is byte-identical for any thread count") {
  const auto one = run_numaplace(with(small, {"--runs", "3", "--threads", "1"}));
  const auto two = run_numaplace(with(small, {"--runs", "3", "--threads", "2"}));
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  CHECK(one.out == two.out);
  CHECK(contains(one.out, "run 2  jvm2: throughput = "));
  CHECK(contains(one.out, "one node group"));
}

TEST_CASE("sim --shard 0/2 and 1/2 together are the full sweep") {
  const json full = run_json(with(small, {"--runs", "3", "--json"}));
  const json a = run_json(with(small, {"--runs", "3", "--json", "--shard", "0/2"}));
  const json b = run_json(with(small, {"--runs", "3", "--json", "--shard", "1/2"}));
  CHECK(a["shard"] == "0/2");
  const json& fs = full["experiments"][0]["workloads"][0]["stacks"];
  for (std::size_t s = 0; s < fs.size(); ++s) {
    std::set<unsigned> seen;
    for (const json* part : {&a, &b}) {
      for (const json& run : (*part)["experiments"][0]["workloads"][0]["stacks"][s]["runs"]) {
        const unsigned r = run["run"];
        CHECK(seen.insert(r).second);  // no run twice
        REQUIRE(r < fs[s]["runs"].size());
        CHECK(run == fs[s]["runs"][r]);  // the same results as in the full sweep
      }
    }
    CHECK(seen == std::set<unsigned>{0, 1, 2});
  }
}

TEST_CASE("sim --csv: a header and one row per experiment, stack, run and group") {
  const auto r = run_numaplace(with(small, {"--runs", "2", "--csv"}));
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> lines;
  for (std::size_t start = 0, end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(r.out.substr(start, end - start));
  }
  REQUIRE(lines.size() == 1 + 2 * 2 * 2);
  CHECK(lines[0].starts_with("experiment,workload,stack,run,seed,group,program,throughput,"));
  CHECK(lines[1].starts_with("custom,specjbb:2:8:5,no-balancing,0,1,jvm1,jvm*,"));
  CHECK(lines[8].starts_with("custom,specjbb:2:8:5,linux-modern,1,2,jvm2,jvm*,"));
}

TEST_CASE("more tasks than CPUs is a valid, oversubscribed run") {
  // 40 numa02 threads and 2 x 16 JVM threads on 32 CPUs.
  const auto r = run_numaplace({"sim", "--machine", "seed003-4node", "--workload", "numa02:40", "--workload",
                                "specjbb:2:16:3", "--runs", "1"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "experiment numa02:40"));
  CHECK(contains(r.out, "elapsed = "));
  CHECK(contains(r.out, "mean elapsed s"));
  CHECK(contains(r.out, "experiment specjbb:2:16:3"));
}

TEST_CASE("hard binding of a custom workload binds each process to nodes of its own") {
  // 30 threads need two of seed001-4node's 24-CPU nodes: jvm1 on 0,1 and jvm2 on 2,3.
  const json j = run_json({"sim", "--workload", "specjbb:2:30:3", "--machine", "seed001-4node", "--runs", "1",
                           "--stacks", "hard-binding", "--json"});
  const json& groups = j["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"];
  REQUIRE(groups.size() == 2);
  CHECK(groups[0]["task_nodes"] == json({0, 1}));
  CHECK(groups[1]["task_nodes"] == json({2, 3}));
  CHECK(groups[0]["memory_nodes"] == json({0, 1}));
}

TEST_CASE("hard binding says how it sized its sets: by cores, or by logical CPUs when the cores cannot") {
  // seed000-8node's measured costs state SMT2: one 80-warehouse JVM gets all 80 cores.
  const json one = run_json({"sim", "--workload", "specjbb:1:80:3", "--machine", "seed000-8node", "--runs", "1",
                             "--stacks", "no-balancing,hard-binding", "--json"});
  const json& e = one["experiments"][0]["workloads"][0];
  CHECK(e["binding"] ==
        "by cores (SMT2), one thread per core, as numactl users bind: 80 threads in 1 process, 80 free cores");
  CHECK(e["stacks"][1]["runs"][0]["groups"][0]["memory_nodes"] == json({0, 1, 2, 3, 4, 5, 6, 7}));
  // Two of them cannot each have 80 cores: a quad each, two threads per core.
  const auto two = run_numaplace({"sim", "--workload", "specjbb:2:80:3", "--machine", "seed000-8node", "--runs", "1",
                                  "--stacks", "hard-binding"});
  INFO("stdout: " << two.out << "\nstderr: " << two.err);
  CHECK(contains(two.out, "\n  binding:  by logical CPUs (SMT2): the free cores cannot hold the processes apart, one "
                          "thread per core: 160 threads in 2 processes, 80 free cores\n"));
  // Without a binding stack nothing is bound, and nothing said.
  const auto none = run_numaplace(with(small, {"--runs", "1", "--stacks", "no-balancing"}));
  CHECK_FALSE(contains(none.out, "binding:"));
  const json unbound = run_json(with(small, {"--runs", "1", "--stacks", "no-balancing", "--json"}));
  CHECK_FALSE(unbound["experiments"][0]["workloads"][0].contains("binding"));
}

TEST_CASE("a node holds its memory and no more: the report says so, and memory that cannot fit is an error") {
  const auto sized = run_numaplace({"sim", "--generate", "fully-connected:2:20/cpus=2/memory=4G", "--workload",
                                    "numa02:4", "--runs", "1", "--stacks", "no-balancing"});
  INFO("stdout: " << sized.out << "\nstderr: " << sized.err);
  CHECK(sized.exit_code == 0);
  CHECK(contains(sized.out, "\n  memory:   4 GiB a node; the workload may use all of it"));
  const auto unsized = run_numaplace({"sim", "--generate", "fully-connected:2:20/cpus=2", "--workload", "numa02:4",
                                      "--runs", "1", "--stacks", "no-balancing"});
  CHECK(contains(unsized.out, "\n  memory:   node sizes not given: no node fills"));
  CHECK_FALSE(contains(sized.out, "full nodes:"));
  // numa02's 1 GiB, written by its main thread, on nodes of 512 MiB: half of it falls back.
  const std::vector<std::string> half{"sim", "--generate", "fully-connected:2:20/cpus=2/memory=512M", "--workload",
                                      "numa02:4", "--runs", "1", "--stacks", "no-balancing"};
  const auto full = run_numaplace(half);
  CHECK(contains(full.out, "\n  full nodes: 256 chunks placed on another node because theirs was full, 0 page "
                           "migrations refused by a full node (all runs)\n"));
  const json j = run_json(with(half, {"--json"}));
  CHECK(j["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["full_nodes"] ==
        json({{"fell_back", 256}, {"migrations_refused", 0}}));
  // numa01 first touches both processes' 3 GiB on node 0 (MPOL_BIND): 6 GiB on a 4 GiB node.
  check_rejected({"sim", "--generate", "fully-connected:2:20/cpus=2/memory=4G", "--workload", "numa01:2", "--runs",
                  "1", "--stacks", "no-balancing"},
                 "process numa01-2: its memory does not fit on node 0, which is full");
}

TEST_CASE("inverse binding of a custom workload binds each process's memory to the other's nodes") {
  const json j = run_json({"sim", "--workload", "specjbb:2:30:3", "--machine", "seed001-4node", "--runs", "1",
                           "--stacks", "inverse-binding", "--json"});
  const json& groups = j["experiments"][0]["workloads"][0]["stacks"][0]["runs"][0]["groups"];
  REQUIRE(groups.size() == 2);
  CHECK(groups[0]["task_nodes"] == json({0, 1}));
  CHECK(groups[0]["memory_nodes"] == json({2, 3}));
  CHECK(groups[1]["task_nodes"] == json({2, 3}));
  CHECK(groups[1]["memory_nodes"] == json({0, 1}));
}

TEST_CASE("an elapsed-time comparison times each run's whole workload: its last process") {
  // numa01's INVERSE_BIND leaves its second process local, so the two finish far apart.
  const json j = run_json({"sim", "--workload", "numa01:6", "--generate", "fully-connected:2:20/cpus=6/memory=12G",
                           "--runs", "2", "--stacks", "hard-binding,inverse-binding", "--json"});
  const json& e = j["experiments"][0]["workloads"][0];
  const auto mean_of = [&](std::size_t stack, bool last) {
    double sum = 0;
    for (const json& run : e["stacks"][stack]["runs"]) {
      double most = 0, all = 0;
      for (const json& g : run["groups"]) {
        most = std::max(most, g["elapsed_seconds"].get<double>());
        all += g["elapsed_seconds"].get<double>();
      }
      sum += last ? most : all / double(run["groups"].size());
    }
    return sum / double(e["stacks"][stack]["runs"].size());
  };
  const auto gain = [&](bool last) { return (mean_of(0, last) - mean_of(1, last)) / mean_of(0, last) * 100; };
  const double reported = e["comparisons"][0]["gain_percent"].get<double>();
  CHECK(reported == doctest::Approx(gain(true)));
  CHECK(std::abs(gain(true) - gain(false)) > 10);  // the groups' mean would say something else
}

TEST_CASE("a seed preset prints seed reported vs simulated") {
  const auto r = run_numaplace({"sim", "--experiment", "seed002", "--runs", "2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "[seed002]"));
  CHECK(contains(r.out, "seed reported: linux-modern vs linux-2.5 +6.1 % (56.52 s -> 53.09 s);  simulated: "));
  // Every claim line carries its interval over the runs and a verdict read from it.
  for (std::size_t at = 0; (at = r.out.find("seed reported: ", at)) != std::string::npos; ++at) {
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    INFO(line);
    if (contains(line, "simulated: not available")) continue;
    CHECK(contains(line, ", Welch, 2 runs each): "));
    CHECK(contains(line, "95 % CI "));
    CHECK((line.ends_with("): not distinguishable") || line.ends_with("): direction differs") ||
           line.ends_with("): direction agrees, magnitude within 2x: yes") ||
           line.ends_with("): direction agrees, magnitude within 2x: no")));
  }
  CHECK(r.err.empty());  // no progress when stderr is not a terminal
}

namespace {

// The verdict follows the interval: not distinguishable exactly when it spans zero.
void check_verdict_reads_interval(const json& j, const std::string& distinguishable_prefix) {
  INFO(j.dump());
  REQUIRE(j.contains("ci95_low_percent"));
  REQUIRE(j.contains("ci95_high_percent"));
  const std::string verdict = j["verdict"];
  if (j["ci95_low_percent"].is_null()) {
    CHECK(verdict == "not distinguishable");
    return;
  }
  const double low = j["ci95_low_percent"], high = j["ci95_high_percent"];
  CHECK(low <= high);
  if (low <= 0 && high >= 0) {
    CHECK(verdict == "not distinguishable");
  } else {
    CHECK(verdict.starts_with(distinguishable_prefix));
  }
}

}  // namespace

TEST_CASE("sim --json: seed claims carry the 95 % interval and a verdict") {
  const json j = run_json({"sim", "--experiment", "seed002", "--runs", "2", "--json"});
  const json& claims = j["experiments"][0]["claims"];
  REQUIRE_FALSE(claims.empty());
  for (const json& c : claims) {
    if (c["simulated"].is_null()) continue;
    CHECK(c["simulated"]["runs"]["baseline"] == 2);
    CHECK(c["simulated"]["runs"]["variant"] == 2);
    const double gain = c["simulated"]["gain_percent"];
    if (!c["simulated"]["ci95_low_percent"].is_null()) {
      CHECK(c["simulated"]["ci95_low_percent"].get<double>() <= gain + 1e-9);
      CHECK(c["simulated"]["ci95_high_percent"].get<double>() >= gain - 1e-9);
    }
    json flat = c["simulated"];
    flat["verdict"] = c["verdict"];
    check_verdict_reads_interval(flat, "direction ");
  }
}

TEST_CASE("a custom run compares each later stack with the first, with an interval and a verdict") {
  const auto r = run_numaplace(with(small, {"--runs", "3"}));
  REQUIRE(r.exit_code == 0);
  const auto at = r.out.find("  linux-modern vs no-balancing: ");
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  INFO(line);
  CHECK(contains(line, " %, Welch, 3 runs each): "));
  CHECK((line.ends_with("): not distinguishable") || line.ends_with("): better") || line.ends_with("): worse")));

  const json j = run_json(with(small, {"--runs", "3", "--json"}));
  const json& e = j["experiments"][0]["workloads"][0];
  REQUIRE(e["comparisons"].size() == 1);
  const json& c = e["comparisons"][0];
  CHECK(c["baseline"] == "no-balancing");
  CHECK(c["variant"] == "linux-modern");
  CHECK(c["runs"]["baseline"] == 3);
  // The gain is over per-run means (each run's groups share one machine): here, with the same
  // number of groups in every run, the same as the gain of the stacks' means over all groups.
  const double base = e["stacks"][0]["summary"]["mean"], variant = e["stacks"][1]["summary"]["mean"];
  CHECK(c["gain_percent"].get<double>() == doctest::Approx((variant / base - 1) * 100));
  check_verdict_reads_interval(c, "");
  CHECK((c["verdict"] == "not distinguishable" || c["verdict"] == "better" || c["verdict"] == "worse"));

  // One run per stack: no interval, so nothing is told apart.
  const auto once = run_numaplace(with(small, {"--runs", "1"}));
  REQUIRE(once.exit_code == 0);
  CHECK(contains(once.out, "(no interval: 1 run each, fewer than 2): not distinguishable\n"));
}

TEST_CASE("--progress shows runs on stderr") {
  const auto r = run_numaplace(with(small, {"--runs", "1", "--progress"}));
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "[2/2] custom specjbb:2:8:5 "));
}

TEST_CASE("--plot writes data, a script and PNGs, or says gnuplot is missing") {
  const auto dir = std::filesystem::temp_directory_path() / ("numaplace-sim-plot-" + std::to_string(::getpid()));
  const auto r = run_numaplace(with(small, {"--runs", "1", "--plot", dir.string()}));
  INFO("stderr: " << r.err);
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    REQUIRE(r.exit_code == 0);
    CHECK(std::filesystem::exists(dir / "plots.gp"));
    CHECK(std::filesystem::file_size(dir / "custom-specjbb_2_8_5-stacks.png") > 0);
    CHECK(std::filesystem::file_size(dir / "custom-specjbb_2_8_5-linux-modern-occupancy.png") > 0);
    CHECK(std::filesystem::file_size(dir / "custom-specjbb_2_8_5-linux-modern-memory.png") > 0);
  } else {
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "gnuplot"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad sim input: a message and exit code 2") {
  check_rejected({"sim", "--experiment", "seed999"}, "unknown experiment 'seed999'; valid experiments: seed000, ");
  check_rejected(with(small, {"--stacks", "linux-modern,nope"}), "unknown stack 'nope'; valid stacks: linux-3.8, linux-3.13, vanilla, ");
  check_rejected({"sim", "--workload", "numa02:4", "--machine", "no-such-box"}, "unknown machine 'no-such-box'");
  check_rejected({"sim", "--workload", "specjbb:2"}, "--workload 'specjbb:2': specjbb takes 2 to 3 fields");
  check_rejected({"sim", "--workload", "specjbb:2:x"}, "WAREHOUSES must be a positive integer, not 'x'");
  check_rejected({"sim", "--workload", "nosuch:3"}, "unknown workload 'nosuch'");
  check_rejected({"sim", "--workload", "numa02:0"}, "THREADS must be positive, not 0");
  check_rejected({"sim", "--workload", "specjbb:-1:8"}, "JVMS must be a positive integer, not '-1'");
  check_rejected({"sim", "--workload", "specjbb:2:8:0"}, "SECONDS must be positive");
  check_rejected({"sim", "--workload", "specjbb:1000:1000"}, "1000000 tasks; at most 100000");
  check_rejected({"sim", "--workload", "make:4:99999999999999999999"}, "JOBS is 99999999999999999999; at most");
  check_rejected({"sim", "--workload", "stream:0"}, "THREADS must be positive, not 0");
  check_rejected({"sim", "--workload", "stream:4:1000:2:9"}, "stream takes 1 to 3 fields");
  check_rejected({"sim", "--workload", "stream:4:x"}, "ARRAY_SIZE must be a positive integer, not 'x'");
  check_rejected({"sim", "--workload", "mpi:0"}, "RANKS must be positive, not 0");
  check_rejected({"sim", "--workload", "mpi:4:64:10:2"}, "mpi takes 1 to 3 fields");
  check_rejected({"sim", "--workload", "mpi:4:64:y"}, "SWEEPS must be a positive integer, not 'y'");
  check_rejected(with(small, {"--shard", "3/2"}), "--shard 3/2: k must be below n");
  check_rejected(with(small, {"--shard", "x"}), "--shard 'x': expected k/n");
  check_rejected(with(small, {"--runs", "0"}), "--runs");
  check_rejected(with(small, {"--runs", "-3"}), "--runs");
  check_rejected({"sim", "--machine", "seed001-4node"}, "add --workload");
  check_rejected({"sim", "--experiment", "seed000", "--workload", "numa02:4"}, "excludes");
  check_rejected(with(small, {"--json", "--csv"}), "excludes");
}

TEST_CASE("sim in memory-tiering mode: the tiers and what promotion and demotion did, in text and JSON") {
  const std::string config = numaplace_cli_test::data_file("experiments/good/memory-tiering.json");
  const json j = run_json({"sim", "--config", config, "--json"});
  const json& e = j["experiments"][0]["workloads"][0];
  INFO(e["tiering"]);
  CHECK(contains(e["tiering"].get<std::string>(), "numa_balancing=3"));
  // Costs derived from SLIT: node 2 at 1.2 times DRAM's latency and half its bandwidth from
  // node 0, so 576 x 1.2 x 2 = 1382, memory_tier10.
  CHECK(contains(e["tiering"].get<std::string>(), "node 0 tier 4, node 1 tier 4, node 2 tier 10 (lower)"));
  const json& t = e["stacks"][0]["runs"][0]["tiering"];
  CHECK(t["promoted"].get<std::uint64_t>() > 0);
  CHECK(t["node_full"].get<std::uint64_t>() > 0);
  CHECK(t["demoted"].get<std::uint64_t>() > 0);
  const auto text = run_numaplace({"sim", "--config", config});
  CHECK(contains(text.out, "  tiering:  numa_balancing=3"));
  CHECK(contains(text.out, "  tiering, linux-6.12: "));
  // --merge reads both back: the merged report says the same.
  const std::string part = numaplace_cli_test::scratch_file("tiering-part.json", j.dump());
  const auto merged = run_numaplace({"sim", "--merge", part});
  const auto line = [](const std::string& out, const std::string& start) {
    const auto at = out.find(start);
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  CHECK_FALSE(line(text.out, "  tiering, ").empty());
  CHECK(line(merged.out, "  tiering, ") == line(text.out, "  tiering, "));
  CHECK(line(merged.out, "  tiering:  ") == line(text.out, "  tiering:  "));
  std::filesystem::remove(part);
  // The command line wins over the file: mode 1 promotes nothing and says nothing of tiering.
  const auto plain = run_numaplace({"sim", "--config", config, "--numa-balancing", "1"});
  CHECK(plain.exit_code == 0);
  CHECK_FALSE(contains(plain.out, "tiering, "));
  check_rejected({"sim", "--workload", "numa02:8", "--numa-balancing", "4"}, "--numa-balancing");
}
