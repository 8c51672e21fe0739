#pragma once
// `numaplace topo`: describe a machine the way the kernel's scheduler sees it.

#include <memory>

#include "command.hpp"

namespace numaplace_cli {

/// Registers `topo` under `parent`.
std::unique_ptr<command> make_topo_command(CLI::App& parent);

}  // namespace numaplace_cli
