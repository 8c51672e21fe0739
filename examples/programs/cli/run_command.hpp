#pragma once
// `numaplace run -w NCPUS[:MB] -- COMMAND [ARGS...]`: places a job as `advise -w` does, binds
// this process there (CPUs, memory policy, OpenMP's environment) and executes the command, as
// numactl and hwloc-bind do; --dry-run prints the binding instead.

#include <memory>

#include "command.hpp"

namespace numaplace_cli {

/// Registers `run` under `parent`.
std::unique_ptr<command> make_run_command(CLI::App& parent);

}  // namespace numaplace_cli
