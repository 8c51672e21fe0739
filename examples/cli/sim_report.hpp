#pragma once
// `numaplace sim`'s results as the reports see them, and what they compute from them: summaries
// per stack, where each group ended, node groups, and seed claims against simulated effects.
// This header stays light (no engine, no stacks): only sim_run.cpp instantiates the simulator.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <numaplace/sim/result.hpp>
#include <numaplace/sim/welch.hpp>
#include <numaplace/topology/dynamic_topology.hpp>

namespace numaplace_cli {

/// A seed's claim (numaplace::sim::seed_claim), plus the standard deviations it reported, if any.
struct sim_claim {
  std::string experiment;  ///< an experiment name, or an aggregate "prefixLO..HI" (specjbb-1x24..40)
  std::string baseline;
  std::string variant;
  bool elapsed = false;  ///< elapsed seconds (lower is better) instead of throughput
  double reported_baseline = 0;
  double reported_variant = 0;
  std::string note;
  std::optional<double> reported_baseline_stddev;
  std::optional<double> reported_variant_stddev;

  /// Relative improvement in percent, positive when the variant is better.
  double gain_percent(double base, double var) const {
    if (base == 0) return 0;
    return elapsed ? (1.0 - var / base) * 100.0 : (var / base - 1.0) * 100.0;
  }
};

/// An assumed constant of the simulator (numaplace::sim::assumptions) scaled for a whole sweep:
/// `sim --assume NAME=FACTOR`.
struct sim_assumption {
  std::string name;
  double factor = 1.0;
};

/// "specjbb.memory_bound x2, machine.core_stream x0.5"; empty for none.
std::string scaled_text(const std::vector<sim_assumption>& scaled);

/// One stack's runs of one experiment (those of this shard), in run order.
struct sim_stack_result {
  std::string stack;
  std::vector<unsigned> run_index;       ///< 0-based; run i used seed + i
  std::vector<std::uint64_t> run_seed;
  std::vector<numaplace::sim::run_result> runs;
};

struct sim_experiment_result {
  std::string name;
  std::string machine;   ///< e.g. "preset seed000-8node" or "file m.txt"
  std::string workload;  ///< e.g. "specjbb: 2 processes, 160 tasks, 60 s"
  numaplace::dynamic_topology topology;
  bool elapsed = false;  ///< results are elapsed seconds per group (workload.report_elapsed)
  unsigned runs = 0;     ///< runs in the whole sweep (this shard may hold fewer)
  std::uint64_t seed = 1;
  std::vector<sim_stack_result> stacks;
  /// What memory costs in these runs: the measured costs' machine, or the SLIT derivation's
  /// assumption (numaplace::sim::from_slit), said in so many words.
  std::string costs{};
  /// The sweep's scaled assumptions this experiment has (the others do not apply to it).
  std::vector<sim_assumption> assumptions{};
  /// How hard and inverse binding sized their node sets (by cores, or by logical CPUs and
  /// why), said in so many words; empty when neither runs.
  std::string binding{};
};

struct sim_preset_result {
  std::string name;  ///< seed000 .. seed004, or "custom"
  std::string title;
  std::vector<sim_experiment_result> experiments;
  std::vector<sim_claim> claims;
};

struct sim_report {
  std::vector<sim_preset_result> presets;
  unsigned shard = 0;
  unsigned shards = 1;
  bool all_presets = false;  ///< --preset all
  /// What a custom run (--workload, --config) asked for, as JSON text: its experiment file (as
  /// --config-json writes it, less the worker threads and the costs file's path) with the machine
  /// costs it charged. --merge refuses parts whose requests differ: a shard of another
  /// experiment may share every name and summary. Empty for the seeds' experiments, which
  /// their names and numaplace's version fix.
  std::string request;
  /// The assumed constants scaled (sim --assume): when any is, these are not the default
  /// model's results, and --merge refuses to mix them with parts scaled otherwise.
  std::vector<sim_assumption> assumptions;
};

// ---- what the reports compute ------------------------------------------------------------

/// The value a group's run is judged by: throughput, or elapsed seconds.
double metric_of(const numaplace::sim::group_result& g, bool elapsed);

/// Node groups: for each node, the nodes nearer to it than the maximum distance (itself
/// included); distinct sets, in node order. On seed 000's machine: {0-3} and {4-7}.
std::vector<std::vector<numaplace::node_index>> node_groups(const numaplace::dynamic_topology& t);

/// Whether every node in `ids` lies in one node group (false when `ids` is empty).
bool within_one_node_group(const numaplace::dynamic_topology& t, const std::vector<numaplace::node_id>& ids);

/// The nodes holding at least a tenth of the group's tasks at the end of the run (ids).
std::vector<numaplace::node_id> task_nodes(const numaplace::sim::group_result& g, const numaplace::dynamic_topology& t);

/// "0,1,2,3", or "-" for none.
std::string node_list(const std::vector<numaplace::node_id>& ids);

/// "{0-3} {4-7}" style description of node_groups().
std::string describe_node_groups(const numaplace::dynamic_topology& t);

/// Each node's memory, as the simulator limits it (sim/memory.hpp): one size for all, or node
/// by node; unknown sizes set no limit.
std::string describe_node_memory(const numaplace::dynamic_topology& t);

/// Statistics over every group of every run of one stack.
struct stack_stats {
  numaplace::sim::summary metric;  ///< throughput or elapsed seconds per group
  double local_fraction = 0;       ///< mean
  double converged_seconds = 0;    ///< mean
  std::size_t in_one_node_group = 0;
  std::size_t groups = 0;  ///< (run, group) pairs counted
};
stack_stats stats_of(const sim_experiment_result& e, const sim_stack_result& s);

/// The independent samples of one stack: for each run, in run order, the mean over the run's
/// groups of the throughput, or for elapsed time the last group's (the whole workload's wall
/// time, as a benchmark of several processes is timed). A run's groups share one machine, so
/// they are not independent.
std::vector<double> run_samples(const sim_experiment_result& e, const sim_stack_result& s);

/// A variant stack against a baseline stack: the gain in percent (positive when the variant is
/// better) with its 95 % Welch interval over the runs of each.
struct stack_comparison {
  numaplace::sim::welch_interval gain;
  std::size_t baseline_runs = 0, variant_runs = 0;
};
stack_comparison compare_runs(const std::vector<double>& baseline, const std::vector<double>& variant, bool elapsed);

/// "not distinguishable" when the interval spans zero (or there is none), else "better" or "worse".
std::string comparison_verdict(const stack_comparison& c);

/// A claim next to what the simulation gives for it.
struct claim_outcome {
  bool simulated = false;  ///< false when an experiment or stack it needs was not run
  std::string missing;     ///< why not
  double baseline = 0, variant = 0;  ///< simulated means
  std::optional<double> baseline_stddev, variant_stddev;  ///< simulated (single experiments)
  double reported_gain = 0, simulated_gain = 0;            ///< percent
  stack_comparison comparison;  ///< over per-run samples (averaged over a range's experiments)
  bool direction_agrees = false;  ///< the interval excludes zero on the reported gain's side
  bool within_2x = false;         ///< direction agrees and the magnitude is within a factor of 2
  /// "not distinguishable", "direction differs", or "direction agrees, magnitude within 2x: yes|no".
  std::string verdict;
};
claim_outcome evaluate_claim(const sim_preset_result& p, const sim_claim& c);

}  // namespace numaplace_cli
