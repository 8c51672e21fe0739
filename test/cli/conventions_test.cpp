// The conventions every command keeps: JSON output says what it is (format, schema_version,
// numaplace_version), readers of our own JSON check that stamp, and the exit code says whether
// the command line or input was bad (2) or the work itself failed (1).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

#include <numaplace/version.hpp>

using numaplace_cli_test::check_rejected;
using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

namespace {

void check_stamped(const std::string& out, const std::string& format) {
  const auto doc = nlohmann::json::parse(out);
  CHECK(doc.at("format") == format);
  CHECK(doc.at("schema_version") == 1);
  CHECK(doc.at("numaplace_version") == numaplace::version_string);
}


}  // namespace

TEST_CASE("--version prints version.hpp's version") {
  const auto r = run_numaplace({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(numaplace::version_string) != std::string::npos);
}

TEST_CASE("JSON outputs are stamped") {
  const auto costs = run_numaplace({"sim", "--machine", "seed004-2socket", "--costs-json"});
  REQUIRE(costs.exit_code == 0);
  check_stamped(costs.out, "numaplace-machine-costs");

  const auto explain = run_numaplace({"explain", "--json", data_file("../../examples/explain/direct.json")});
  INFO(explain.err);
  REQUIRE(explain.exit_code == 0);
  check_stamped(explain.out, "numaplace-explain");
}

TEST_CASE("a costs file's stamp is checked") {
  auto doc = nlohmann::json::parse(run_numaplace({"sim", "--machine", "seed004-2socket", "--costs-json"}).out);
  const auto read_back = [](const nlohmann::json& d) {
    const std::string path = numaplace_cli_test::scratch_file("conventions-costs.json", d.dump());
    auto r = run_numaplace({"sim", "--machine", "seed004-2socket", "--costs", path, "--costs-json"});
    std::filesystem::remove(path);
    return r;
  };
  CHECK(read_back(doc).exit_code == 0);

  auto other = doc;
  other["format"] = "numaplace-topology";
  const auto wrong_format = read_back(other);
  CHECK(wrong_format.exit_code == 2);
  CHECK(wrong_format.err.find("/format: is \"numaplace-topology\"; expected \"numaplace-machine-costs\"") !=
        std::string::npos);

  auto newer = doc;
  newer["schema_version"] = 2;
  const auto too_new = read_back(newer);
  CHECK(too_new.exit_code == 2);
  CHECK(too_new.err.find("/schema_version: is 2, newer than this numaplace") != std::string::npos);

  auto unstamped = doc;  // a hand-written file has no stamp, and is read as before
  unstamped.erase("format");
  unstamped.erase("schema_version");
  unstamped.erase("numaplace_version");
  CHECK(read_back(unstamped).exit_code == 0);
}

TEST_CASE("exit codes: 2 for usage and bad input, 1 for work that failed") {
  check_rejected({"sim", "--no-such-option"}, "--no-such-option");                     // usage
  check_rejected({"topo", "--file", data_file("cli/not-square.txt")}, "not-square.txt");  // bad input

  // A sweep that ran, then could not write its plots: the work failed, not the command line.
  const auto r = run_numaplace({"sim", "--machine", "seed004-2socket", "--workload", "numa02:2", "--runs", "1",
                                "--stacks", "linux-modern", "--plot", "/dev/null/plots"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--plot: cannot create folder /dev/null/plots") != std::string::npos);
}

TEST_CASE("sim names the seeds' experiments --experiment; --preset still works, with a notice") {
  const auto listed = run_numaplace({"sim", "--list-experiments"});
  CHECK(listed.exit_code == 0);
  CHECK(listed.out.find("seed000\n") != std::string::npos);
  CHECK(listed.out.find("seed004\n") != std::string::npos);

  // An unknown name fails after parsing, so the alias's notice has been printed by then.
  const auto old_spelling = run_numaplace({"sim", "--preset", "seed999"});
  CHECK(old_spelling.exit_code == 2);
  CHECK(old_spelling.err.find("numaplace: notice: --preset is now --experiment") != std::string::npos);
  CHECK(old_spelling.err.find("unknown experiment 'seed999'") != std::string::npos);

  const auto new_spelling = run_numaplace({"sim", "--experiment", "seed999"});
  CHECK(new_spelling.err.find("notice") == std::string::npos);

  // sim's machine options are topo's: --generate works here too.
  const auto generated = run_numaplace({"sim", "--workload", "numa02:4", "--generate", "ring:4/cpus=2", "--runs", "1",
                                        "--stacks", "linux-modern", "--json"});
  INFO(generated.err);
  REQUIRE(generated.exit_code == 0);
  CHECK(nlohmann::json::parse(generated.out).dump().find("generated ring:4/cpus=2") != std::string::npos);
}

// Every "Examples:" line of every --help runs and exits 0, from the repository root (the
// examples name files under examples/). A line is "  numaplace ARGS   what it does".
TEST_CASE("the examples in --help work") {
  const std::string root = std::string(NUMAPLACE_TEST_DATA) + "/../..";
  std::size_t ran = 0;
  for (const char* command : {"", "topo", "explain", "sim", "advise", "run"}) {
    std::vector<std::string> help_args;
    if (*command != '\0') help_args.emplace_back(command);
    help_args.emplace_back("--help");
    const auto help = run_numaplace(help_args);
    REQUIRE(help.exit_code == 0);
    const auto examples = help.out.find("Examples:\n");
    INFO("numaplace " << std::string(command) << " --help");
    REQUIRE(examples != std::string::npos);
    std::istringstream lines(help.out.substr(examples));
    for (std::string line; std::getline(lines, line);) {
      const std::string prefix = "  numaplace";
      if (!line.starts_with(prefix)) continue;
      std::string args = line.substr(prefix.size());
      if (const auto gap = args.find("   "); gap != std::string::npos) args.erase(gap);
      const std::string shell = "cd " + numaplace_cli_test::shell_quoted(root) + " && " +
                                numaplace_cli_test::shell_quoted(NUMAPLACE_CLI) + args + " >/dev/null 2>&1";
      INFO(line);
      CHECK(std::system(shell.c_str()) == 0);
      ++ran;
    }
  }
  CHECK(ran >= 12);
}
