#pragma once
// `numaplace sim`'s request: the chosen presets (or a custom run) and the options turned into
// experiments, checked, estimated and run as the library's sweep (numaplace/sim/sweep.hpp).
// The only file of the CLI that instantiates the simulator (it is slow to compile).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/sim/cost_model.hpp>
#include <numaplace/sim/machine_costs.hpp>
#include <numaplace/sim/memory_tiering.hpp>
#include <numaplace/sim/run_budget.hpp>
#include <numaplace/sim/workload.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

#include "sim_report.hpp"

namespace numaplace_cli {

struct sim_request {
  /// Seed presets by name (seed000.., or 1..5), "all"; empty for a custom run.
  std::vector<std::string> presets;
  /// Custom run: workload specs (one experiment each) on `machine`.
  std::vector<std::string> workloads;
  std::optional<numaplace::dynamic_topology> machine;
  std::string machine_source;
  /// Custom run: what memory costs on `machine` (--costs, or the named machine's measured
  /// costs); empty: the simulator derives them from SLIT.
  std::optional<numaplace::sim::machine_costs> hardware;
  /// Custom run from an experiment file (sim --config): workloads as data, one experiment each.
  std::vector<numaplace::sim::workload> loads;
  /// Custom runs' machine options (numaplace::sim::machine_options, same defaults) and cost model.
  unsigned threads_per_core = 1;
  unsigned default_cpus_per_node = 4;
  numaplace::sim::cost_model costs{};
  /// Overrides of the presets' choices (custom runs: defaults).
  std::vector<std::string> stacks;
  std::optional<unsigned> runs;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;  ///< 0: every core
  unsigned shard = 0, shards = 1;
  bool progress = false;
  /// Every run checks what must always hold all along (sim --check), not only at its end.
  bool full_checks = false;
  /// kernel.numa_balancing's mode and demotion in every run (sim --numa-balancing, --demotion).
  numaplace::sim::tiering_options tiering{};
  /// What the sweep may use before it is refused (sim --max-memory, --max-cpu-hours).
  numaplace::sim::sweep_budget budget;
  /// Assumed constants scaled in every experiment (numaplace::sim::assumptions), in order.
  std::vector<numaplace::sim::scaled_assumption> assumptions;
};

/// Every name --stacks accepts.
std::vector<std::string> sim_stack_names();
/// Every name --preset accepts ("all" not included).
std::vector<std::string> sim_preset_names();
/// Every name --assume accepts, with what it is.
std::vector<std::pair<std::string, std::string>> sim_assumption_names();

/// Checks the request, runs it, and gathers the results. Throws usage_error for bad requests
/// before anything runs.
numaplace::sim::sweep_report run_simulations(const sim_request& request);

}  // namespace numaplace_cli
