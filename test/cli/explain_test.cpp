// `numaplace explain`: hand-worked examples (the kernel arithmetic worked in the comments),
// stacks side by side, text output, and bad input rejected with a located message and exit 2.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

using nlohmann::json;
using numaplace_cli_test::cli_result;
using numaplace_cli_test::run_numaplace;
using numaplace_cli_test::shell_quoted;

namespace {

std::filesystem::path temp_path(const std::string& suffix) {
  static int n = 0;
  return std::filesystem::temp_directory_path() /
         ("numaplace-explain-test-" + std::to_string(::getpid()) + "-" + std::to_string(++n) + suffix);
}

// Writes `input` to a file and runs `numaplace explain <args> <file>`.
cli_result explain_file(const std::string& input, std::vector<std::string> args = {}) {
  const auto path = temp_path(".json");
  std::ofstream(path) << input;
  args.insert(args.begin(), "explain");
  args.push_back(path.string());
  cli_result r = run_numaplace(args);
  std::filesystem::remove(path);
  return r;
}

// Runs `numaplace explain <args>` with `input` on its standard input.
cli_result explain_stdin(const std::string& input, const std::vector<std::string>& args) {
  const auto in_path = temp_path(".in");
  const auto err_path = temp_path(".err");
  std::ofstream(in_path) << input;
  std::string command = shell_quoted(NUMAPLACE_CLI) + " explain";
  for (const std::string& a : args) command += " " + shell_quoted(a);
  command += " <" + shell_quoted(in_path.string()) + " 2>" + shell_quoted(err_path.string());
  cli_result result;
  if (FILE* pipe = ::popen(command.c_str(), "r"); pipe != nullptr) {
    std::array<char, 4096> buffer{};
    for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
      result.out.append(buffer.data(), n);
    }
    const int status = ::pclose(pipe);
    if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  }
  std::ostringstream err;
  err << std::ifstream(err_path).rdbuf();
  result.err = err.str();
  std::filesystem::remove(in_path);
  std::filesystem::remove(err_path);
  return result;
}

json explain_json(const std::string& input, std::vector<std::string> args = {}) {
  args.insert(args.begin(), "--json");
  const cli_result r = explain_file(input, args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  return json::parse(r.out);
}

using counts = std::vector<std::uint64_t>;

counts as_counts(const json& j) { return j.get<counts>(); }

// The 4x AMD Opteron 6134 matrix (test/data/topologies/amd-opteron-6134-4s-8node-supermicro-h8qg6.txt).
const std::string opteron = R"("distances": [
    [10, 16, 16, 22, 16, 22, 16, 22],
    [16, 10, 22, 16, 22, 16, 22, 16],
    [16, 22, 10, 16, 16, 22, 16, 22],
    [22, 16, 16, 10, 22, 16, 22, 16],
    [16, 22, 16, 22, 10, 16, 16, 22],
    [22, 16, 22, 16, 16, 10, 22, 16],
    [16, 22, 16, 22, 16, 22, 10, 16],
    [22, 16, 22, 16, 22, 16, 16, 10]])";

// Seed 000's 8-socket matrix: quads {0-3} {4-7}, pairs at 12, the other pair at 17, the other quad at 19.
const std::string seed000 = R"("distances": [
    [10, 12, 17, 17, 19, 19, 19, 19],
    [12, 10, 17, 17, 19, 19, 19, 19],
    [17, 17, 10, 12, 19, 19, 19, 19],
    [17, 17, 12, 10, 19, 19, 19, 19],
    [19, 19, 19, 19, 10, 12, 17, 17],
    [19, 19, 19, 19, 12, 10, 17, 17],
    [19, 19, 19, 19, 17, 17, 10, 12],
    [19, 19, 19, 19, 17, 17, 12, 10]])";

const std::string direct4 = R"("distances": [[10, 20, 20, 20], [20, 10, 20, 20], [20, 20, 10, 20], [20, 20, 20, 10]])";

// Faults per node f = [30, 40, 7, 0, 5, 0, 0, 9], total 91.
const std::string opteron_task =
    R"("task_faults": [[10, 20], [0, 40], [3, 4], [0, 0], [5, 0], [0, 0], [0, 0], [9, 0]])";
// Group faults g = [12, 0, 0, 10, 0, 10, 0, 10], total 42.
const std::string opteron_group =
    R"("group_faults": [[6, 6], [0, 0], [0, 0], [5, 5], [0, 0], [10, 0], [0, 0], [0, 10]])";

// Task faults f = [10, 3, 0, 0, 4, 0, 0, 8], total 25.
const std::string seed000_task = R"("task_faults": [[5, 5], [3, 0], [0, 0], [0, 0], [0, 4], [0, 0], [0, 0], [0, 8]])";
// Group faults g = [100, 0, 0, 0, 60, 20, 70, 90], total 340; quads 100 vs 240.
const std::string seed000_group =
    R"("group_faults": [[40, 60], [0, 0], [0, 0], [0, 0], [60, 0], [10, 10], [0, 70], [45, 45]])";

std::string object(const std::vector<std::string>& members) {
  std::string s = "{";
  for (std::size_t i = 0; i < members.size(); ++i) s += (i ? ", " : "") + members[i];
  return s + "}";
}

}  // namespace

TEST_CASE("explain: glueless mesh (Opteron 10/16/22), task faults only") {
  const json j = explain_json(object({opteron, opteron_task}));
  CHECK(j["stack"] == "linux-modern");
  CHECK(j["kind"] == "glueless_mesh");
  CHECK(j["levels"] == json({10, 16, 22}));
  CHECK(j["max_distance"] == 22);
  // Glueless: every node at 16 counts floor(f * (22 - 16) / (22 - 10)) = floor(f * 6 / 12), per node;
  // nodes at 22 (the maximum) never count. Halves h = [15, 20, 3, 0, 2, 0, 0, 4] (7 -> 3, 5 -> 2, 9 -> 4).
  //   node 0 (16 from 1, 2, 4, 6): 20 + 3 + 2 + 0 = 25    node 1 (0, 3, 5, 7): 15 + 0 + 0 + 4 = 19
  //   node 2 (0, 3, 4, 6): 15 + 0 + 2 + 0 = 17            node 3 (1, 2, 5, 7): 20 + 3 + 0 + 4 = 27
  //   node 4 (0, 2, 5, 6): 15 + 3 + 0 + 0 = 18            node 5 (1, 3, 4, 7): 20 + 0 + 2 + 4 = 26
  //   node 6 (0, 2, 4, 7): 15 + 3 + 2 + 4 = 24            node 7 (1, 3, 5, 6): 20 + 0 + 0 + 0 = 20
  // (floor of the sum would differ: node 0 would get (40 + 7 + 5) * 6 / 12 = 26.)
  // The hop limit plays no part on a glueless mesh, so 16 and 22 agree.
  const counts nearby{25, 19, 17, 27, 18, 26, 24, 20};
  CHECK(as_counts(j["score_nearby"]["task"]["16"]) == nearby);
  CHECK(as_counts(j["score_nearby"]["task"]["22"]) == nearby);
  CHECK(j["score_nearby"]["task"].size() == 2);  // only the levels above the local one
  // task_weight = 1000 * (f + nearby) / 91: 55000/91 = 604, 59000/91 = 648, 24000/91 = 263, 27000/91 = 296,
  // 23000/91 = 252, 26000/91 = 285, 24000/91 = 263, 29000/91 = 318.
  const counts weight{604, 648, 263, 296, 252, 285, 263, 318};
  CHECK(as_counts(j["task_weight"]["16"]) == weight);
  CHECK(as_counts(j["task_weight"]["22"]) == weight);
  // No group: the node with the most task faults.
  CHECK(j["preferred_nid"] == 1);
  // Group entries appear only when group faults are given.
  CHECK_FALSE(j["score_nearby"].contains("group"));
  CHECK_FALSE(j.contains("group_weight"));
  CHECK(j["imbalance"] == json::array());
}

TEST_CASE("explain: glueless mesh, the group's node is the one with the best weight, not the most faults") {
  const json j = explain_json(object({opteron, opteron_task, opteron_group}));
  // g = [12, 0, 0, 10, 0, 10, 0, 10], halves [6, 0, 0, 5, 0, 5, 0, 5]:
  //   node 0 (1, 2, 4, 6): 0     node 1 (0, 3, 5, 7): 6 + 5 + 5 + 5 = 21   node 2 (0, 3, 4, 6): 6 + 5 = 11
  //   node 3 (1, 2, 5, 7): 10    node 4 (0, 2, 5, 6): 6 + 5 = 11           node 5 (1, 3, 4, 7): 10
  //   node 6 (0, 2, 4, 7): 11    node 7 (1, 3, 5, 6): 10
  const counts nearby{0, 21, 11, 10, 11, 10, 11, 10};
  CHECK(as_counts(j["score_nearby"]["group"]["16"]) == nearby);
  CHECK(as_counts(j["score_nearby"]["group"]["22"]) == nearby);
  // group_weight = 1000 * (g + nearby) / 42: 12000/42 = 285, 21000/42 = 500, 11000/42 = 261, 20000/42 = 476.
  const counts weight{285, 500, 261, 476, 261, 476, 261, 476};
  CHECK(as_counts(j["group_weight"]["22"]) == weight);
  // v4.19+: the group's most faults are on node 0, then preferred_group_nid() (glueless) takes the
  // highest group_weight at the maximum distance: node 1, which has no faults of its own.
  CHECK(j["preferred_nid"] == 1);
  // The task's figures are unchanged by the group.
  CHECK(as_counts(j["score_nearby"]["task"]["16"]) == counts{25, 19, 17, 27, 18, 26, 24, 20});
}

TEST_CASE("explain: task and group disagree: v3.13's combined weight, with and without nearby scoring") {
  // Task maximum node 1 (40), group maximum node 0 (12): v3.13 takes the best task + group weight.
  // vanilla weighs no neighbours: task 1000 * f / 91 = [329, 439, 76, 0, 54, 0, 0, 98],
  //   group 1000 * g / 42 = [285, 0, 0, 238, 0, 238, 0, 238]; sums [614, 439, 76, 238, 54, 238, 0, 336] -> node 0.
  const std::string input = object({opteron, opteron_task, opteron_group});
  const json vanilla = explain_json(input, {"--stack", "vanilla"});
  CHECK(as_counts(vanilla["score_nearby"]["task"]["16"]) == counts{0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(as_counts(vanilla["task_weight"]["22"]) == counts{329, 439, 76, 0, 54, 0, 0, 98});
  CHECK(as_counts(vanilla["group_weight"]["22"]) == counts{285, 0, 0, 238, 0, 238, 0, 238});
  CHECK(vanilla["preferred_nid"] == 0);
  // patches-1-2 adds seed 000's nearby scoring (weights as in the two cases above):
  //   [604 + 285, 648 + 500, 263 + 261, 296 + 476, 252 + 261, 285 + 476, 263 + 261, 318 + 476]
  //   = [889, 1148, 524, 772, 513, 761, 524, 794] -> node 1.
  CHECK(explain_json(input, {"--stack", "patches-1-2"})["preferred_nid"] == 1);
}

TEST_CASE("explain: backplane (seed 000), hop limits and the group narrowing to quad {4-7}") {
  const json j = explain_json(object({seed000, seed000_task, seed000_group}));
  CHECK(j["kind"] == "backplane");
  CHECK(j["levels"] == json({10, 12, 17, 19}));
  CHECK(j["max_distance"] == 19);
  // Backplane, v4.19+ / v5.18+: a neighbour counts in full when d < limit and d < max (19).
  //   limit 12: nothing is nearer than 12 but the node itself -> all 0
  //   limit 17: only the partner at 12 (pairs 0-1, 2-3, 4-5, 6-7); f = [10, 3, 0, 0, 4, 0, 0, 8]
  //     -> [3, 10, 0, 0, 0, 4, 8, 0]
  //   limit 19: the rest of the quad (12 and 17) -> node 0: 3 + 0 + 0 = 3, node 1: 10, nodes 2, 3: 13,
  //     node 4: 0 + 0 + 8 = 8, node 5: 4 + 0 + 8 = 12, node 6: 4 + 0 + 8 = 12, node 7: 4 + 0 + 0 = 4
  CHECK(as_counts(j["score_nearby"]["task"]["12"]) == counts{0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(as_counts(j["score_nearby"]["task"]["17"]) == counts{3, 10, 0, 0, 0, 4, 8, 0});
  CHECK(as_counts(j["score_nearby"]["task"]["19"]) == counts{3, 10, 13, 13, 8, 12, 12, 4});
  // task_weight = 1000 * (f + nearby) / 25 = 40 * (f + nearby):
  //   @12: 40 * f = [400, 120, 0, 0, 160, 0, 0, 320]
  //   @17: 40 * [13, 13, 0, 0, 4, 4, 8, 8]; @19: 40 * [13, 13, 13, 13, 12, 12, 12, 12]
  CHECK(as_counts(j["task_weight"]["12"]) == counts{400, 120, 0, 0, 160, 0, 0, 320});
  CHECK(as_counts(j["task_weight"]["17"]) == counts{520, 520, 0, 0, 160, 160, 320, 320});
  CHECK(as_counts(j["task_weight"]["19"]) == counts{520, 520, 520, 520, 480, 480, 480, 480});
  // Group g = [100, 0, 0, 0, 60, 20, 70, 90]:
  //   @17 (partner): [0, 100, 0, 0, 20, 60, 90, 70]
  //   @19 (quad): [0, 100, 100, 100, 20+70+90 = 180, 60+70+90 = 220, 60+20+90 = 170, 60+20+70 = 150]
  //   group_weight @19 = 1000 * 100 / 340 = 294 for quad {0-3}, 1000 * 240 / 340 = 705 for quad {4-7}
  //   group_weight @17 = 1000 * [100, 100, 0, 0, 80, 80, 160, 160] / 340 = [294, 294, 0, 0, 235, 235, 470, 470]
  CHECK(as_counts(j["score_nearby"]["group"]["12"]) == counts{0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(as_counts(j["score_nearby"]["group"]["17"]) == counts{0, 100, 0, 0, 20, 60, 90, 70});
  CHECK(as_counts(j["score_nearby"]["group"]["19"]) == counts{0, 100, 100, 100, 180, 220, 170, 150});
  CHECK(as_counts(j["group_weight"]["17"]) == counts{294, 294, 0, 0, 235, 235, 470, 470});
  CHECK(as_counts(j["group_weight"]["19"]) == counts{294, 294, 294, 294, 705, 705, 705, 705});
  // preferred_group_nid(): node 0 has the most group faults (100), but the narrowing goes by groups:
  //   below 19: {0,1,2,3} = 100, {4,5,6,7} = 240 -> {4-7}
  //   below 17: {4,5} = 80, {6,7} = 160 -> {6,7}
  //   below 12: {6} = 70, {7} = 90 -> node 7
  CHECK(j["preferred_nid"] == 7);
  CHECK(j["why"].get<std::string>().find("{4,5,6,7} at distance 19 (240 of 340)") != std::string::npos);

  // Without the group, the task's own maximum: node 0 (10 faults).
  CHECK(explain_json(object({seed000, seed000_task}))["preferred_nid"] == 0);
}

TEST_CASE("explain: the pre-v4.19 backplane hop limit counts nodes at the limit too (--stack linux-4.2)") {
  const json j = explain_json(object({seed000, seed000_task, seed000_group}), {"--stack", "linux-4.2"});
  CHECK(j["stack"] == "linux-4.2");
  // The v3.19 era's levels come from node 0's row and leave out the local distance.
  CHECK(j["levels"] == json({12, 17, 19}));
  // v3.19 rule: skip d == max, count d <= limit. Limit 17 now takes the whole quad bar the max:
  //   node 4: 0 + 0 + 8 = 8 (modern: 0); limit 12 takes the partner: node 0: 3, node 1: 10.
  CHECK(as_counts(j["score_nearby"]["task"]["12"]) == counts{3, 10, 0, 0, 0, 4, 8, 0});
  CHECK(as_counts(j["score_nearby"]["task"]["17"]) == counts{3, 10, 13, 13, 8, 12, 12, 4});
  // The task has faults, so the group's narrowing decides, as in modern kernels.
  CHECK(j["preferred_nid"] == 7);
}

TEST_CASE("explain: direct topology, no nearby scoring, the node with the most faults") {
  const std::string task = R"("task_faults": [[1, 2], [0, 0], [7, 1], [4, 4]])";
  const json j = explain_json(object({direct4, task}));
  CHECK(j["kind"] == "direct");
  CHECK(j["levels"] == json({10, 20}));
  CHECK(j["max_distance"] == 20);
  // score_nearby_nodes() returns 0 on NUMA_DIRECT.
  CHECK(as_counts(j["score_nearby"]["task"]["20"]) == counts{0, 0, 0, 0});
  // 1000 * [3, 0, 8, 8] / 19 = [157, 0, 421, 421].
  CHECK(as_counts(j["task_weight"]["20"]) == counts{157, 0, 421, 421});
  // Nodes 2 and 3 tie at 8: the first strictly greatest wins.
  CHECK(j["preferred_nid"] == 2);
}

TEST_CASE("explain: -1 when the faults it chooses from are all zero") {
  const std::string zero_task = R"("task_faults": [[0, 0], [0, 0], [0, 0], [0, 0]])";
  const json none = explain_json(object({direct4, zero_task}));
  CHECK(none["preferred_nid"] == -1);
  CHECK(as_counts(none["task_weight"]["20"]) == counts{0, 0, 0, 0});  // total 0: weights are 0

  // With group faults given, modern kernels choose from the group's: all zero -> -1, whatever the task's.
  const std::string task = R"("task_faults": [[0, 0], [0, 9], [0, 0], [0, 0]])";
  const std::string zero_group = R"("group_faults": [[0, 0], [0, 0], [0, 0], [0, 0]])";
  const json grouped = explain_json(object({direct4, task, zero_group}));
  CHECK(grouped["preferred_nid"] == -1);
  CHECK(grouped.contains("group_weight"));
}

TEST_CASE("explain: linux-3.8 places no task, whatever its faults, and says so") {
  const std::string task = R"("task_faults": [[0, 0], [0, 9], [0, 0], [0, 0]])";
  const json v38 = explain_json(object({direct4, task}), {"--stack", "linux-3.8"});
  CHECK(v38["preferred_nid"] == -1);
  CHECK(v38["why"].get<std::string>().find("places no task") != std::string::npos);
  // The same faults give node 1 to a kernel that places tasks.
  CHECK(explain_json(object({direct4, task}), {"--stack", "linux-3.13"})["preferred_nid"] == 1);
}

TEST_CASE("explain: vanilla gates on the task's faults, linux-modern chooses from the group's") {
  // Task faults all zero, group faults on node 1.
  const std::string input = object({direct4, R"("task_faults": [[0, 0], [0, 0], [0, 0], [0, 0]])",
                                    R"("group_faults": [[0, 0], [0, 5], [0, 0], [0, 0]])"});
  CHECK(explain_json(input)["preferred_nid"] == 1);
  CHECK(explain_json(input, {"--stack", "linux-modern"})["preferred_nid"] == 1);
  CHECK(explain_json(input, {"--stack", "vanilla"})["preferred_nid"] == -1);
  CHECK(explain_json(input, {"--stack", "patches-1-4"})["preferred_nid"] == -1);  // v3.19: still task-gated
  CHECK(explain_json(input, {"--stack", "linux-5.10"})["preferred_nid"] == 1);    // v4.19+: the group's maximum

  const cli_result text = explain_file(input, {"--stack", "vanilla"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("stack:          vanilla") != std::string::npos);
  CHECK(text.out.find("preferred node: none (-1)") != std::string::npos);
  CHECK(text.out.find("task's own faults are all zero") != std::string::npos);
}

TEST_CASE("explain: adjust_numa_imbalance answers, in input order") {
  const std::string imbalance = R"("imbalance": [
      {"variant": "v5.9", "imbalance": 3, "src_running": 1, "dst_running": 4},
      {"variant": "v5.10", "imbalance": 3, "src_running": 1, "dst_running": 4},
      {"variant": "v5.11", "imbalance": 2, "dst_running": 3, "dst_weight": 16},
      {"variant": "v5.11", "imbalance": 3, "dst_running": 3, "dst_weight": 16},
      {"variant": "v5.11", "imbalance": 2, "dst_running": 4, "dst_weight": 16},
      {"variant": "v5.18", "imbalance": 2, "dst_running": 4, "imb_numa_nr": 4},
      {"variant": "v5.19", "imbalance": 2, "dst_running": 4, "imb_numa_nr": 4},
      {"variant": "v5.19", "imbalance": 2, "dst_running": 5, "imb_numa_nr": 4},
      {"variant": "v5.10", "imbalance": 1, "dst_running": 2},
      {"variant": "v5.5", "imbalance": 3, "src_running": 1, "dst_running": 1}])";
  const json j = explain_json(object({direct4, R"("task_faults": [[1, 0], [0, 0], [0, 0], [0, 0]])", imbalance}));
  // Spec section 6's worked case, src 2 and dst 3 running (src_running 1, dst_running 4, imbalance 3):
  //   v5.9 looks at the source: 1 <= 2 -> 0 (forgiven); v5.10 at the destination: 4 > 2 -> 3 (kept).
  // v5.11, 16 CPUs: 16 >> 2 = 4; dst_running 3 < 4 and imbalance 2 <= 2 -> 0; imbalance 3 > 2 -> 3;
  //   dst_running 4 is not < 4 -> 2 (kept).
  // v5.18: 4 < 4 is false -> 2; v5.19: 4 <= 4 -> 0; 5 <= 4 is false -> 2.
  // v5.10 with dst_running 2 <= 2 -> 0. v5.5 has no allowance: 3 whatever runs where.
  CHECK(j["imbalance"] == json({0, 3, 0, 3, 2, 2, 0, 2, 0, 3}));
}

TEST_CASE("explain: text output, a table per node, the choice and why") {
  const cli_result r = explain_file(object({seed000, seed000_task, seed000_group}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("kind:           backplane") != std::string::npos);
  CHECK(r.out.find("task faults (total 25)") != std::string::npos);
  CHECK(r.out.find("group faults (total 340)") != std::string::npos);
  CHECK(r.out.find("node  shared  private  faults  nearby@12  nearby@17  nearby@19  weight@12  weight@17  weight@19") !=
        std::string::npos);
  // node 6's group row: 0 shared, 70 private, nearby 0/90/170, weights 205/470/705.
  CHECK(r.out.find("   6       0       70      70          0         90        170        205        470        705") !=
        std::string::npos);
  CHECK(r.out.find("preferred node: 7\n") != std::string::npos);
  CHECK(r.out.find("{4,5,6,7} at distance 19 (240 of 340), {6,7} at distance 17 (160 of 240), {7} at distance 12 "
                   "(90 of 160)") != std::string::npos);

  const cli_result glueless = explain_file(object({opteron, opteron_task, opteron_group}));
  CHECK(glueless.out.find("node 1 has the highest group weight counting nearby nodes (500 per mille at distance 22)") !=
        std::string::npos);
  const cli_result direct = explain_file(object({direct4, R"("task_faults": [[1, 2], [0, 0], [7, 1], [4, 4]])"}));
  CHECK(direct.out.find("node 2 has the most task faults (8 of 19)") != std::string::npos);
}

TEST_CASE("explain: input from stdin, with - or no file") {
  const std::string input = object({direct4, R"("task_faults": [[0, 0], [0, 0], [0, 3], [0, 0]])"});
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--json"}, {"--json", "-"}}) {
    const cli_result r = explain_stdin(input, args);
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json::parse(r.out)["preferred_nid"] == 2);
  }
  const cli_result bad = explain_stdin("{", {});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("stdin: not valid JSON") != std::string::npos);
}

TEST_CASE("explain: the example inputs") {
  const std::string dir = std::string(NUMAPLACE_TEST_DATA) + "/../../examples/explain/";
  const auto preferred = [&](const std::string& file) {
    const cli_result r = run_numaplace({"explain", "--json", dir + file});
    INFO(file << " stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out)["preferred_nid"].get<int>();
  };
  CHECK(preferred("seed000-backplane.json") == 7);
  CHECK(preferred("opteron-glueless.json") == 1);
  CHECK(preferred("direct.json") == 2);
}

namespace {

// Exit code 2, nothing on stdout, `expected` in the message.
void check_rejected(const std::string& input, const std::string& expected, std::vector<std::string> args = {}) {
  const cli_result r = explain_file(input, args);
  INFO("input: " << input << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(expected) != std::string::npos);
}

const std::string two = R"("distances": [[10, 20], [20, 10]])";

}  // namespace

TEST_CASE("explain: bad input is rejected with a located message") {
  check_rejected("", "the input is empty");
  check_rejected("  \n", "the input is empty");
  check_rejected("{\"distances\": [[10, 20], [20, 10]],", "not valid JSON (byte ");
  check_rejected("[1, 2]", "expected a JSON object");
  check_rejected(R"({"task_faults": [[1, 2]]})", "distances: missing");
  check_rejected(R"({"distances": "near", "task_faults": []})", "distances: expected an array");
  check_rejected(R"({"distances": [], "task_faults": []})", "distances: the distance matrix is empty");
  check_rejected(R"({"distances": [[10, 20], 20], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[1]: expected an array");
  check_rejected(R"({"distances": [[10, 20], [20]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[1]: the row has 1 entries but the matrix has 2 rows");
  check_rejected(R"({"distances": [[10, 20], [20, 5]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[1][1]: distance 5 is outside 10..255");
  check_rejected(R"({"distances": [[10, 20], [-20, 10]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[1][0]: distance -20 is not positive");
  check_rejected(R"({"distances": [[10, 20.5], [20, 10]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[0][1]: expected an integer distance, got 20.5");
  check_rejected(R"({"distances": [[10, "20"], [20, 10]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[0][1]: expected an integer distance");
  check_rejected(object({two}), "task_faults: missing");
  check_rejected(object({two, R"("task_faults": [[1, 2]])"}), "task_faults: 1 entry for a 2-node distance matrix");
  check_rejected(object({two, R"("task_faults": {"0": [1, 2]})"}), "task_faults: expected an array");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3]])"}),
                 "task_faults[1]: expected [shared, private] with two non-negative integers, got [3]");
  check_rejected(object({two, R"("task_faults": [[1, 2], 3])"}), "task_faults[1]: expected [shared, private]");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3, -4]])"}), "task_faults[1][1]: -4 is negative");
  check_rejected(object({two, R"("task_faults": [[1.5, 2], [3, 4]])"}), "task_faults[0][0]: 1.5 is not an integer");
  // Whole numbers written as decimals are said to be so, not "larger than 2^64-1" or "outside
  // 10..255"; "-0" is zero.
  check_rejected(object({two, R"("task_faults": [[4.0, 2], [3, 4]])"}),
                 "task_faults[0][0]: 4.0 has a decimal point; fault counts are integers such as 4");
  check_rejected(object({two, R"("task_faults": [[-0.0, 2], [3, 4]])"}),
                 "task_faults[0][0]: -0.0 has a decimal point; fault counts are integers such as 0");
  check_rejected(object({two, R"("task_faults": [[-4.0, 2], [3, 4]])"}), "task_faults[0][0]: -4.0 is negative");
  check_rejected(R"({"distances": [[10, 20.0], [20, 10]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[0][1]: 20.0 has a decimal point; distances are integers such as 20");
  check_rejected(R"({"distances": [[10, 1e300], [20, 10]], "task_faults": [[0, 0], [0, 0]]})",
                 "distances[0][1]: distance 1e+300 is outside 10..255");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3, "4"]])"}),
                 "task_faults[1][1]: expected a non-negative integer fault count");
  check_rejected(object({two, R"("task_faults": [[1, 2], [18446744073709551616, 0]])"}),
                 "task_faults[1][0]: 1.8446744073709552e+19 is larger than 18446744073709551615");
  check_rejected(object({two, R"("task_faults": [[1, 2], [18446744073709551615, 0]])"}),
                 "task_faults: the counts add up to more than 18446744073709551615");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3, 4]])", R"("group_faults": [[1, 2], [3, 4], [5, 6]])"}),
                 "group_faults: 3 entries for a 2-node distance matrix");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3, 4]])", R"("group_faults": [[1, 2], [3, -1]])"}),
                 "group_faults[1][1]: -1 is negative");
  check_rejected(object({two, R"("task_faults": [[1, 2], [3, 4]])", R"("task_fault": [])"}),
                 "unknown key \"task_fault\"");
}

TEST_CASE("explain: bad imbalance questions") {
  const std::string base = two + R"(, "task_faults": [[1, 2], [3, 4]], "imbalance": )";
  check_rejected("{" + base + R"({"variant": "v5.19"}})", "imbalance: expected an array");
  check_rejected("{" + base + R"([3]})", "imbalance[0]: expected an object");
  check_rejected("{" + base + R"([{"imbalance": 2}]})", "imbalance[0].variant: missing");
  check_rejected("{" + base + R"([{"variant": 5.19, "imbalance": 2}]})", "imbalance[0].variant: expected a string");
  check_rejected("{" + base + R"([{"variant": "v5.19", "imbalance": 2}, {"variant": "v5.12", "imbalance": 2}]})",
                 "imbalance[1].variant: unknown variant \"v5.12\"; expected one of v5.5, v5.9, v5.10, v5.11, v5.18, v5.19");
  check_rejected("{" + base + R"([{"variant": "v5.11", "dst_weight": 16}]})", "imbalance[0].imbalance: missing");
  check_rejected("{" + base + R"([{"variant": "v5.11", "imbalance": "2"}]})",
                 "imbalance[0].imbalance: expected an integer");
  check_rejected("{" + base + R"([{"variant": "v5.11", "imbalance": 2, "dst_weight": 1.5}]})",
                 "imbalance[0].dst_weight: expected an integer");
  check_rejected("{" + base + R"([{"variant": "v5.11", "imbalance": 2, "dst_running": 3000000000}]})",
                 "imbalance[0].dst_running: 3000000000 does not fit the kernel's int");
  check_rejected("{" + base + R"([{"variant": "v5.11", "imbalance": 2, "dst_runing": 3}]})",
                 "imbalance[0]: unknown key \"dst_runing\"");
}

TEST_CASE("explain: unknown stack, missing file, folder") {
  const std::string input = object({two, R"("task_faults": [[1, 2], [3, 4]])"});
  check_rejected(input, "unknown stack 'linux-2.6'; valid stacks: linux-3.8, linux-3.13, vanilla, ", {"--stack", "linux-2.6"});
  check_rejected(input, "linux-modern", {"--stack", "linux-2.6"});

  const cli_result missing = run_numaplace({"explain", "/no/such/explain-input.json"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/no/such/explain-input.json: no such file") != std::string::npos);
  const cli_result folder = run_numaplace({"explain", std::filesystem::temp_directory_path().string()});
  CHECK(folder.exit_code == 2);
  CHECK(folder.err.find("is a folder") != std::string::npos);
}
