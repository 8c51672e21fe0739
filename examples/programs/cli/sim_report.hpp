#pragma once
// `numaplace sim`'s results as the reports see them: the library's sweep results
// (numaplace/sim/sweep_report.hpp) and what is computed from them
// (numaplace/sim/sweep_analysis.hpp), under the CLI's names, and the words the text report
// describes a machine with. This header stays light (no engine, no stacks): only sim_run.cpp
// instantiates the simulator.

#include <string>
#include <vector>

#include <numaplace/sim/sweep_analysis.hpp>
#include <numaplace/sim/sweep_report.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

using sim_claim = numaplace::sim::sweep_claim;
using sim_assumption = numaplace::sim::scaled_assumption;
using sim_stack_result = numaplace::sim::stack_runs;
using sim_experiment_result = numaplace::sim::experiment_runs;
using sim_preset_result = numaplace::sim::preset_runs;
using sim_report = numaplace::sim::sweep_report;

using numaplace::sim::claim_outcome;
using numaplace::sim::compare_runs;
using numaplace::sim::comparison_verdict;
using numaplace::sim::evaluate_claim;
using numaplace::sim::metric_of;
using numaplace::sim::node_groups;
using numaplace::sim::run_samples;
using numaplace::sim::stack_comparison;
using numaplace::sim::stack_stats;
using numaplace::sim::stats_of;
using numaplace::sim::task_nodes;
using numaplace::sim::within_one_node_group;

/// "specjbb.memory_bound x2, machine.core_stream x0.5"; empty for none.
std::string scaled_text(const std::vector<sim_assumption>& scaled);

/// "0,1,2,3", or "-" for none.
std::string node_list(const std::vector<numaplace::node_id>& ids);

/// "{0-3} {4-7}" style description of node_groups().
std::string describe_node_groups(const numaplace::dynamic_topology& t);

/// Each node's memory, as the simulator limits it (sim/memory.hpp): one size for all, or node
/// by node; unknown sizes set no limit.
std::string describe_node_memory(const numaplace::dynamic_topology& t);

}  // namespace numaplace_cli
