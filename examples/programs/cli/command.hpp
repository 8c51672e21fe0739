#pragma once
// One subcommand of the CLI: it registers its options on construction and runs after parsing.
// main.cpp keeps a list of them and runs the one the user chose; new subcommands (explain,
// sim) are new classes of this shape, each in its own file pair.

#include <fmt/format.h>

#include <string_view>

namespace CLI {
class App;
}

namespace numaplace_cli {

/// An old spelling of an option still works, and says on stderr what it is now called.
inline void print_renamed_notice(std::string_view old_name, std::string_view new_name) {
  fmt::print(stderr, "numaplace: notice: {} is now {}\n", old_name, new_name);
}

class command {
 public:
  command() = default;
  command(const command&) = delete;  // CLI11 holds pointers into the command's options
  command& operator=(const command&) = delete;
  virtual ~command() = default;

  /// The CLI11 subcommand, to learn whether the user chose it.
  virtual const CLI::App& app() const = 0;
  /// Runs the parsed command; returns the exit code. May throw; main maps exceptions to codes.
  virtual int run() const = 0;
};

}  // namespace numaplace_cli
