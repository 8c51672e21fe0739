// Inputs an attacker or a careless user gives every reader of the CLI (numaplace/formats/read_input.hpp and
// numaplace/formats/json_checker.hpp are their one home): endless or huge files, a FIFO nobody writes to, a loop
// of links, NUL bytes, JSON nested far past any format, and --merge parts doctored after a
// real sweep. Each ends at once with exit 2 and a message naming the input and the place,
// never a crash, a hang, all of memory or a report made of them.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::check_rejected;
using numaplace_cli_test::output_of;
using numaplace_cli_test::part;
using numaplace_cli_test::run_numaplace;
using numaplace_cli_test::scratch_file;

namespace {

const std::string experiment = std::string(NUMAPLACE_TEST_DATA) + "/../../examples/experiments/staggered-start.json";

// Every command that reads a file named on its command line, with that file's place marked.
std::vector<std::vector<std::string>> readers_of(const std::string& file) {
  return {{"topo", "--file", file},
          {"explain", file},
          {"sim", "--config", file},
          {"sim", "--machine", "seed004-2socket", "--costs", file, "--costs-json"},
          {"sim", "--merge", file}};
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("an endless input stops every reader at its bound, files and standard input alike") {
  for (const auto& args : readers_of("/dev/zero")) {
    INFO(args[0] << " " << args[1]);
    check_rejected(args, "/dev/zero: is larger than");
  }
  // Standard input: 17 MiB of spaces is past the 16 MiB bound of an experiment or explain input.
  const std::string huge(17u << 20, ' ');
  for (const std::vector<std::string>& args : {std::vector<std::string>{"sim", "--config", "-"},
                                                std::vector<std::string>{"explain", "-"},
                                                std::vector<std::string>{"topo", "--file", "-"}}) {
    const auto r = run_numaplace(args, huge);
    INFO(args[0] << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("standard input: is larger than 16 MiB; expected") != std::string::npos);
  }
}

TEST_CASE("a NUL byte is refused at its line and column, not taken as the end of the input") {
  // nlohmann::json stops at a NUL: explain read `{...}\0garbage` as the object and exited 0.
  const std::string input = text_of(std::string(NUMAPLACE_TEST_DATA) + "/../../examples/explain/direct.json");
  REQUIRE(!input.empty());
  const std::string file = scratch_file("nul.json", input + std::string(1, '\0') + "garbage");
  const auto lines = static_cast<std::size_t>(std::count(input.begin(), input.end(), '\n'));
  check_rejected({"explain", file}, file + ":" + std::to_string(lines + 1) + ":1: a NUL byte; expected");
  for (const auto& args : readers_of(file)) {
    INFO(args[0] << " " << args[1]);
    check_rejected(args, ": a NUL byte; expected");
  }
  std::filesystem::remove(file);
}

TEST_CASE("a FIFO with no writer is refused at once instead of waiting forever") {
  const auto fifo = std::filesystem::temp_directory_path() / ("numaplace-fifo-" + std::to_string(::getpid()));
  std::filesystem::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  for (const auto& args : readers_of(fifo.string())) {
    INFO(args[0] << " " << args[1]);
    check_rejected(args, fifo.string() + ": is a FIFO with no writer");
  }
  std::filesystem::remove(fifo);
}

TEST_CASE("a FIFO inside a sysfs tree or given as hwloc XML does not block either") {
  // --sysfs and --hwloc-xml went to the library's reader, which waited on the FIFO forever.
  const auto dir = std::filesystem::temp_directory_path() / ("numaplace-fifo-tree-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "node0");
  std::ofstream(dir / "online") << "0\n";
  std::ofstream(dir / "node0" / "cpulist") << "0-1\n";
  REQUIRE(::mkfifo((dir / "node0" / "distance").c_str(), 0600) == 0);
  check_rejected({"topo", "--sysfs", dir.string()}, (dir / "node0" / "distance").string() + ": is a FIFO, not a file");
  const auto r = run_numaplace({"topo", "--hwloc-xml", (dir / "node0" / "distance").string()});
  if (r.err.find("built without hwloc") == std::string::npos) {
    check_rejected({"topo", "--hwloc-xml", (dir / "node0" / "distance").string()}, "distance: is a FIFO with no writer");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a loop of links is called one, not a missing file") {
  const auto dir = std::filesystem::temp_directory_path() / ("numaplace-loop-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(dir / "b", dir / "a");
  std::filesystem::create_symlink(dir / "a", dir / "b");
  for (const auto& args : readers_of((dir / "a").string())) {
    INFO(args[0] << " " << args[1]);
    check_rejected(args, "Too many levels of symbolic links");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("JSON nested 200,000 deep is refused by every JSON reader, at the bracket past the bound") {
  // `sim --merge` crashed (exit 139) on two such parts: parsed, then compared recursively.
  const std::string deep = std::string(200'000, '[') + std::string(200'000, ']');
  const std::string file = scratch_file("deep.json", "{\"a\": " + deep + "}");
  for (const auto& args : readers_of(file)) {
    INFO(args[0] << " " << args[1]);
    check_rejected(args, "nested deeper than 64 levels");
  }
  check_rejected({"sim", "--merge", file, file}, file + ":1:70: nested deeper than 64 levels");
  // The crash itself: two real parts, each with a deep value where the parts are compared.
  std::vector<std::string> parts;
  for (const char* shard : {"0/2", "1/2"}) {
    std::string text = output_of({"sim", "--workload", "numa02:4", "--generate", "ring:2/cpus=2", "--runs", "2", "--shard", shard, "--json"});
    text.erase(text.find_last_of('}'));
    parts.push_back(scratch_file(std::string("deep-part-") + shard[0] + ".json", text + ", \"extra\": " + deep + "}"));
  }
  check_rejected({"sim", "--merge", parts[0], parts[1]}, parts[0] + ":");
  check_rejected({"sim", "--merge", parts[0], parts[1]}, ": nested deeper than 64 levels");
  for (const auto& f : parts) std::filesystem::remove(f);
  // The deepest real document, a sim report with timelines, stays within the bound.
  const auto with_timeline = part("deep-ok", {"sim", "--workload", "numa02:4", "--generate", "ring:2/cpus=2", "--runs", "1",
                                              "--json", "--timeline"});
  CHECK(output_of({"sim", "--merge", with_timeline}).find("numa02") != std::string::npos);
  std::filesystem::remove(file);
}

TEST_CASE("merge refuses doctored parts, naming the part and the place") {
  // A real 3-run sweep in two shards (runs 0 and 2, then run 1), then edited as an attacker
  // or a careless script would.
  const std::vector<std::string> sweep{"sim", "--config", experiment, "--runs", "3", "--threads", "2", "--json"};
  auto a = sweep, b = sweep;
  a.insert(a.end(), {"--shard", "0/2"});
  b.insert(b.end(), {"--shard", "1/2"});
  const std::string p0 = part("d0", a), p1 = part("d1", b);
  REQUIRE(output_of({"sim", "--merge", p0, p1, "--json"}) == output_of(sweep));

  const auto doctored = [&](const std::string& name, const std::string& from,
                            const std::function<void(nlohmann::json& runs)>& edit) {
    auto doc = nlohmann::json::parse(text_of(from));
    edit(doc["experiments"][0]["workloads"][0]["stacks"][0]["runs"]);
    return scratch_file(name, doc.dump());
  };
  const std::string runs = "/experiments/0/workloads/0/stacks/0/runs";

  // Run 2 given twice, once as itself and once as a relabelled copy of run 0: "5 groups" from a
  // 4-run sweep, before.
  const auto twice = doctored("twice.json", p0, [](nlohmann::json& r) {
    nlohmann::json copy = r[0];
    copy["run"] = 2;
    copy["seed"] = r[1]["seed"];
    r.push_back(copy);
  });
  check_rejected({"sim", "--merge", twice, p1}, twice + ": " + runs + "/2/run: run 2 of stack ");
  check_rejected({"sim", "--merge", twice, p1}, "again (" + twice + " gave it already)");
  // A run of the other shard, one beyond the sweep, and one with another seed.
  const auto misplaced = doctored("misplaced.json", p1, [](nlohmann::json& r) { r[0]["run"] = 0; });
  check_rejected({"sim", "--merge", p0, misplaced}, misplaced + ": " + runs + "/0/run: run 0 belongs to shard 0/2, not this part's 1/2");
  const auto beyond = doctored("beyond.json", p1, [](nlohmann::json& r) { r[0]["run"] = 5; });
  check_rejected({"sim", "--merge", p0, beyond}, beyond + ": " + runs + "/0/run: is 5, but the sweep has 3 runs per stack");
  const auto reseeded = doctored("reseeded.json", p1, [](nlohmann::json& r) { r[0]["seed"] = 99; });
  check_rejected({"sim", "--merge", p0, reseeded}, reseeded + ": " + runs + "/0/seed: is 99, but run 1");
  // A run left out.
  const auto short_part = doctored("short.json", p1, [](nlohmann::json& r) { r.erase(0); });
  check_rejected({"sim", "--merge", p0, short_part}, "--merge: run 1 of stack ");
  check_rejected({"sim", "--merge", p0, short_part}, "is in no part (its shard, 1/2, is " + short_part + ")");
  // Figures no simulation prints: a mean of -2.5e307 s and a local fraction of 1.88, before.
  const auto negative = doctored("negative.json", p1, [](nlohmann::json& r) { r[0]["groups"][0]["elapsed_seconds"] = -5e307; });
  check_rejected({"sim", "--merge", p0, negative}, negative + ": " + runs + "/0/groups/0/elapsed_seconds: -5e+307 is not a figure");
  const auto local = doctored("local.json", p1, [](nlohmann::json& r) { r[0]["groups"][0]["local_fraction"] = 1.88; });
  check_rejected({"sim", "--merge", p0, local}, local + ": " + runs + "/0/groups/0/local_fraction: 1.88 is not a figure a simulation gives (expected 0 to 1)");
  const auto nodes = doctored("nodes.json", p1, [](nlohmann::json& r) { r[0]["groups"][0]["memory_per_node"].push_back(1); });
  check_rejected({"sim", "--merge", p0, nodes}, nodes + ": " + runs + "/0/groups/0/memory_per_node: has ");
  const auto unsettled = doctored("unsettled.json", p1, [](nlohmann::json& r) { r[0]["settles"]["unsettled"] = r[0]["settles"]["settles"].get<std::uint64_t>() + 1; });
  check_rejected({"sim", "--merge", p0, unsettled}, unsettled + ": " + runs + "/0/settles/unsettled: ");
  // Another shape where the report has an object or a list: a field's type, not a crash or
  // nlohmann's message (exit 1 before, found by the fuzz_sim_report target's seeds, edited).
  for (const auto& [name, pointer] : std::vector<std::pair<std::string, std::string>>{
           {"shape-experiments", "/experiments"}, {"shape-stacks", "/experiments/0/workloads/0/stacks/0"}, {"shape-claims", "/experiments/0/claims"}}) {
    auto doc = nlohmann::json::parse(text_of(p1));
    doc[nlohmann::json::json_pointer(pointer)] = pointer == "/experiments/0/claims" ? nlohmann::json::array({7}) : nlohmann::json(5);
    const auto shaped = scratch_file(name + ".json", doc.dump());
    check_rejected({"sim", "--merge", p0, shaped}, shaped + ": /experiments/");
    std::filesystem::remove(shaped);
  }
  for (const auto& f : {p0, p1, twice, misplaced, beyond, reseeded, short_part, negative, local, nodes, unsettled}) std::filesystem::remove(f);
}

TEST_CASE("an argument of 100,000 characters is refused by its start and length, not echoed whole") {
  // Before: each command quoted it whole, some twice (200 KB on stderr for one mistake).
  const std::string word(100'000, 'x');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"advise", "-w", word}, std::vector<std::string>{"topo", "--machine", word},
        std::vector<std::string>{"sim", "--workload", word, "--machine", "seed004-2socket"},
        std::vector<std::string>{"topo", "--file", word}, std::vector<std::string>{word}}) {
    const auto r = run_numaplace(args);
    INFO(r.err.substr(0, 300));
    CHECK(r.exit_code == 2);
    CHECK(r.err.size() < 300);
    CHECK(r.err.find("... (100000 characters)' is longer than the 4096 characters any option takes") != std::string::npos);
  }
}

TEST_CASE("a topology document is bounded by the library's node count, not a looser one of its own") {
  // The reader allowed 4,096 nodes before the library refused past 1,024: two homes, two limits.
  std::string nodes;
  for (int i = 0; i < 1025; ++i) nodes += (i ? ",{\"id\": " : "{\"id\": ") + std::to_string(i) + "}";
  const std::string file =
      scratch_file("n1025.json", R"({"format": "numaplace-topology", "schema_version": 1, "nodes": [)" + nodes + "]}");
  check_rejected({"topo", "--file", file}, file + ": /nodes: has 1025 nodes; at most 1024 are read");
  std::filesystem::remove(file);
}
