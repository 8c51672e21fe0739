#pragma once
// Machines as files, both ways: a machine printed by `topo --json` and read back by `--file -`
// gives the same document and the same text. Shared by the tests of every topology source.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace numaplace_cli_test {

inline std::string ok_output(const std::vector<std::string>& args, const std::optional<std::string>& input = std::nullopt) {
  const auto r = run_numaplace(args, input);
  INFO("args[0..]: " << args.front() << " " << args.back() << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The text view without its first line ("source: ..."), which names where the machine came from.
inline std::string without_source_line(const std::string& text) {
  REQUIRE(text.starts_with("source:"));
  return text.substr(text.find('\n') + 1);
}

// Prints `source_args`'s machine as JSON, reads that back from standard input, and checks that
// the document (all but "source") and the text view come back the same.
inline void check_round_trip(const std::vector<std::string>& source_args) {
  std::vector<std::string> as_json{"topo", "--json"}, as_text{"topo"};
  as_json.insert(as_json.end(), source_args.begin(), source_args.end());
  as_text.insert(as_text.end(), source_args.begin(), source_args.end());
  const std::string printed = ok_output(as_json);
  const std::string reread = ok_output({"topo", "--json", "--file", "-"}, printed);
  nlohmann::json first = nlohmann::json::parse(printed), second = nlohmann::json::parse(reread);
  CHECK(first["format"] == "numaplace-topology");
  CHECK(first["schema_version"] == 1);
  CHECK(second["source"] == "standard input");
  first.erase("source");
  second.erase("source");
  CHECK(first == second);
  CHECK(without_source_line(ok_output(as_text)) == without_source_line(ok_output({"topo", "--file", "-"}, printed)));
}

}  // namespace numaplace_cli_test
