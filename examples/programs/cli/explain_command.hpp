#pragma once
// `numaplace explain`: why the kernel would prefer the node it does for a task's (and its
// group's) faults on a given distance matrix, and what adjust_numa_imbalance() answers.

#include <memory>

#include "command.hpp"

namespace numaplace_cli {

/// Registers `explain` under `parent`.
std::unique_ptr<command> make_explain_command(CLI::App& parent);

}  // namespace numaplace_cli
