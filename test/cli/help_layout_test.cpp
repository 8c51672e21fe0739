// --help's layout (examples/programs/cli/help_formatter.hpp), which the man pages repeat: a group
// of options that exclude each other says so once, instead of an "Excludes:" list of the whole
// group after each option; exclusions reaching outside a group are still listed.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

using numaplace_cli_test::run_numaplace;

namespace {

constexpr std::array machine_sources{"--file",    "--machine",   "--preset",          "--sysfs",         "--generate",
                                     "--hwloc",   "--hwloc-xml", "--hwloc-synthetic", "--list-machines", "--list-presets"};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Whether `words` (an "Excludes:" list) names `option` as a whole word.
bool names(const std::string& words, const std::string& option) { return contains(words + " ", " " + option + " "); }

}  // namespace

TEST_CASE("the machine sources say once that they exclude each other") {
  for (const std::string command : {"topo", "sim", "advise"}) {
    const auto help = run_numaplace({command, "--help"});
    INFO("numaplace " << command << " --help:\n" << help.out);
    REQUIRE(help.exit_code == 0);
    CHECK(contains(help.out, "[Option Group: machine]"));
    CHECK(contains(help.out, "Options (at most one of these):"));
    // A machine source's "Excludes:" names no other machine source.
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find(" Excludes:");
      if (at == std::string::npos) continue;
      std::istringstream head(line.substr(0, at));
      std::string option;
      head >> option;
      if (std::find(machine_sources.begin(), machine_sources.end(), option) == machine_sources.end()) continue;
      const std::string excluded = line.substr(at + 10);
      for (const char* other : machine_sources) CHECK_MESSAGE(!names(excluded, other), line);
    }
  }
}

TEST_CASE("exclusions that are not a whole group are still listed per option") {
  const auto topo = run_numaplace({"topo", "--help"});
  CHECK(contains(topo.out, "--json Excludes: --qemu-args"));
  const auto sim = run_numaplace({"sim", "--help"});
  CHECK(contains(sim.out, "--file PATH Excludes: --config --merge"));
  CHECK(contains(sim.out, "--json Excludes: --csv"));
}
