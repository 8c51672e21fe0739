// Every input the explain fuzz target (test/fuzz/fuzz_explain.cpp) ever failed on is kept as
// test/data/fuzz/fuzz_explain/crash-*: `numaplace explain` must refuse each with exit code 2
// and a message that names the file (the parser's own error, not a stray library exception).
// Also what was found by hand while trying bad input for the README's Reliability table.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::run_numaplace;

TEST_CASE("fuzz regressions: every explain crash input is refused with its file named") {
  int count = 0;
  for (const auto& e : std::filesystem::directory_iterator(data_file("fuzz/fuzz_explain"))) {
    if (!e.path().filename().string().starts_with("crash-")) continue;
    ++count;
    const auto r = run_numaplace({"explain", e.path().string()});
    INFO(e.path().string() << "\nstderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.starts_with("numaplace: error: " + e.path().string() + ": "));
  }
  CHECK(count >= 1);
}

TEST_CASE("a number beyond double is invalid JSON, not an internal error") {
  const auto r = run_numaplace({"explain", data_file("fuzz/fuzz_explain/crash-number-beyond-double.json")});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("crash-number-beyond-double.json: not valid JSON: number overflow parsing '1e400'") !=
        std::string::npos);
  CHECK(r.err.find("json.exception") == std::string::npos);
}

TEST_CASE("JSON nested a million deep is refused, not a stack overflow") {
  // Found while collecting the README's table of bad input (the fuzz target's inputs are too
  // short to nest this deep): the message quoted the value through dump(), which recurses once
  // per level. The input is written here rather than kept as a 2 MB corpus file.
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("numaplace-deep-" + std::to_string(::getpid()) + ".json");
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  for (const std::string& text : {deep, "{\"distances\": [" + deep + "], \"task_faults\": [[0, 0]]}"}) {
    std::ofstream(file) << text;
    const auto r = run_numaplace({"explain", file.string()});
    INFO("stderr: " << r.err.substr(0, 300));
    CHECK(r.exit_code == 2);
    // Refused before parsing since the depth bound (numaplace/formats/json_checker.hpp's max_json_depth).
    CHECK(r.err.find("nested deeper than 64 levels") != std::string::npos);
  }
  std::filesystem::remove(file);
}
