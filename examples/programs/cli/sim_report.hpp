#pragma once
// The words `numaplace sim`'s reports describe a sweep's machines and scalings with. The
// results are the library's (numaplace/sim/sweep_report.hpp) and so is what is computed from
// them (numaplace/sim/sweep_analysis.hpp), both included here for the report printers. This
// header stays light (no engine, no stacks): only sim_run.cpp instantiates the simulator.

#include <string>
#include <vector>

#include <numaplace/sim/sweep_analysis.hpp>
#include <numaplace/sim/sweep_report.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

/// "specjbb.memory_bound x2, machine.core_stream x0.5"; empty for none.
std::string scaled_text(const std::vector<numaplace::sim::scaled_assumption>& scaled);

/// "0,1,2,3", or "-" for none.
std::string node_list(const std::vector<numaplace::node_id>& ids);

/// "{0-3} {4-7}" style description of node_groups().
std::string describe_node_groups(const numaplace::dynamic_topology& t);

/// Each node's memory, as the simulator limits it (sim/memory.hpp): one size for all, or node
/// by node; unknown sizes set no limit.
std::string describe_node_memory(const numaplace::dynamic_topology& t);

}  // namespace numaplace_cli
