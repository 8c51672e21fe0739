#pragma once
// Runs the built `numaplace` binary (NUMAPLACE_CLI) and captures what it printed and returned.

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace numaplace_cli_test {

struct cli_result {
  int exit_code = -1;  ///< -1 when the process did not exit normally (a crash)
  std::string out;
  std::string err;
};

// Single quotes for /bin/sh: nothing inside them is special except the quote itself.
inline std::string shell_quoted(const std::string& word) {
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs the CLI with `args`; its standard input is `input` when given, else empty.
inline cli_result run_numaplace(const std::vector<std::string>& args,
                                const std::optional<std::string>& input = std::nullopt) {
  static int run_number = 0;
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() /
      ("numaplace-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(++run_number));
  const std::filesystem::path err_file = scratch.string() + ".err";
  const std::filesystem::path in_file = scratch.string() + ".in";
  if (input) std::ofstream(in_file, std::ios::binary) << *input;
  std::string command = shell_quoted(NUMAPLACE_CLI);
  for (const std::string& a : args) command += " " + shell_quoted(a);
  command += " 2>" + shell_quoted(err_file.string()) + " <" + (input ? shell_quoted(in_file.string()) : "/dev/null");

  cli_result result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) result.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);

  std::ostringstream err;
  err << std::ifstream(err_file).rdbuf();
  result.err = err.str();
  std::filesystem::remove(err_file);
  if (input) std::filesystem::remove(in_file);
  return result;
}

/// Runs `args`, expecting exit code 2, nothing on stdout, and `expected` in the message.
inline void check_rejected(const std::vector<std::string>& args, const std::string& expected) {
  const auto r = run_numaplace(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(expected) != std::string::npos);
}

/// Writes `text` to a scratch file named after `name` and this process, and returns its path.
inline std::string scratch_file(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / ("numaplace-cli-test-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

/// The standard output of `args`, which must succeed.
inline std::string output_of(const std::vector<std::string>& args) {
  const auto r = run_numaplace(args);
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

/// Writes what `args` print to a scratch file named after `name` (a sim --json part to merge).
inline std::string part(const std::string& name, const std::vector<std::string>& args) {
  return scratch_file(name + ".json", output_of(args));
}

/// A file under test/data.
inline std::string data_file(const std::string& relative) { return std::string(NUMAPLACE_TEST_DATA) + "/" + relative; }

}  // namespace numaplace_cli_test
