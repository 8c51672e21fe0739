#pragma once
// `numaplace advise -w NCPUS[:MB]`: which nodes a new job of that size should run on, printed
// as numad -w prints it ("0-1"), or as numactl options, or as OpenMP places.

#include <memory>

#include "command.hpp"

namespace numaplace_cli {

/// Registers `advise` under `parent`.
std::unique_ptr<command> make_advise_command(CLI::App& parent);

}  // namespace numaplace_cli
