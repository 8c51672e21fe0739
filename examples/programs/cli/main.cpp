// numaplace: NUMA placement as the Linux kernel decides it, from the command line.
// main sets up CLI11, registers the subcommands, and turns every failure into a message on
// stderr and an exit code (exit_codes.hpp: 1 the work failed, 2 usage or bad input); nothing
// escapes as a crash.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstddef>
#include <exception>
#include <string_view>
#include <memory>
#include <vector>

#include <numaplace/formats/format_error.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/error.hpp>
#include <numaplace/version.hpp>

#include "advise_command.hpp"
#include "command.hpp"
#include "exit_codes.hpp"
#include "explain_command.hpp"
#include "help_formatter.hpp"
#include "run_command.hpp"
#include "sim_command.hpp"
#include "topo_command.hpp"

namespace {

/// No option's value comes near this (PATH_MAX is 4096, and a generator spec, a workload or a
/// stack list is a line); a longer argument is a mistake, and quoting it whole in the message
/// that refuses it would bury the terminal.
constexpr std::size_t max_argument_chars = 4096;

// Words after "--" are another program's (`run -- sh -c SCRIPT`), not options: they are not checked.
void check_argument_lengths(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return;
    if (arg.size() > max_argument_chars) {
      throw numaplace_cli::usage_error(fmt::format("argument {} '{}' is longer than the {} characters any option takes", i,
                                                   numaplace::detail::excerpt(arg), max_argument_chars));
    }
  }
}

int run_cli(int argc, char** argv) {
  check_argument_lengths(argc, argv);
  CLI::App app{"numaplace: NUMA task placement as the Linux kernel decides it", "numaplace"};
  // Before the subcommands, which take the formatter they are created with.
  app.formatter(std::make_shared<numaplace_cli::help_formatter>());
  app.set_version_flag("--version", numaplace::version_string);
  app.footer(
      "Commands: topo, explain, sim, advise, run; `numaplace COMMAND --help` shows each with examples.\n"
      "Examples:\n"
      "  numaplace                                         this machine, as topo describes it\n"
      "  numaplace topo --machine seed000-8node --json     a named machine as a topology file\n"
      "Exit codes: 0 success, 1 the work failed, 2 usage or bad input.");
  // No require_subcommand: CLI11 would then report an unknown command word as a missing
  // subcommand; without it, the word is reported as not expected, by name.

  std::vector<std::unique_ptr<numaplace_cli::command>> commands;
  commands.push_back(numaplace_cli::make_topo_command(app));
  commands.push_back(numaplace_cli::make_explain_command(app));
  commands.push_back(numaplace_cli::make_sim_command(app));
  commands.push_back(numaplace_cli::make_advise_command(app));
  commands.push_back(numaplace_cli::make_run_command(app));
  // Further subcommands register here, each from its own <name>_command.hpp.

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; everything else is a usage error.
    return app.exit(e) == 0 ? numaplace_cli::exit_ok : numaplace_cli::exit_usage;
  }
  for (const auto& c : commands) {
    if (c->app().parsed()) return c->run();
  }
  // A bare `numaplace` describes this machine: the first command, topo, with its defaults.
  return commands.front()->run();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const numaplace::topology_error& e) {
    fmt::print(stderr, "numaplace: error: {}\n", e.what());
    return numaplace_cli::exit_bad_input;
  } catch (const numaplace_cli::usage_error& e) {
    fmt::print(stderr, "numaplace: error: {}\n", e.what());
    return numaplace_cli::exit_usage;
  } catch (const numaplace_cli::bad_input_error& e) {
    fmt::print(stderr, "numaplace: error: {}\n", e.what());
    return numaplace_cli::exit_bad_input;
  } catch (const numaplace::formats::format_error& e) {
    fmt::print(stderr, "numaplace: error: {}\n", e.what());
    return numaplace_cli::exit_bad_input;
  } catch (const std::exception& e) {
    fmt::print(stderr, "numaplace: error: {}\n", e.what());
    return numaplace_cli::exit_failed;
  } catch (...) {
    fmt::print(stderr, "numaplace: error: unexpected failure\n");
    return numaplace_cli::exit_failed;
  }
}
