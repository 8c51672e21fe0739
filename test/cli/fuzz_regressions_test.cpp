// Every input the explain fuzz target (test/fuzz/fuzz_explain.cpp) ever failed on is kept as
// test/data/fuzz/fuzz_explain/crash-*: `numaplace explain` must refuse each with exit code 2
// and a message that names the file (the parser's own error, not a stray library exception).
#include <doctest/doctest.h>

#include <filesystem>
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
