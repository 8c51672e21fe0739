#pragma once
// `numaplace sim`: simulate the seeds' experiments (or a custom workload on any machine) under
// several placement stacks and compare with what the seeds reported.

#include <memory>

#include "command.hpp"

namespace numaplace_cli {

/// Registers `sim` under `parent`.
std::unique_ptr<command> make_sim_command(CLI::App& parent);

}  // namespace numaplace_cli
