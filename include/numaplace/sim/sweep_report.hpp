#pragma once
// A sweep's results as numaplace's reports see them: experiments, each stack's runs with their
// seeds, and the seeds' claims to check against them (what `numaplace sim` prints and
// `--merge` joins). Plain data; sweep_analysis.hpp computes from it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "result.hpp"

namespace numaplace::sim {

/// A seed's claim (seed_claim), plus the standard deviations it reported, if any.
struct sweep_claim {
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

/// An assumed constant of the simulator (assumptions.hpp) scaled for a whole sweep:
/// `sim --assume NAME=FACTOR`.
struct scaled_assumption {
  std::string name;
  double factor = 1.0;
};

/// One stack's runs of one experiment (those of this shard), in run order.
struct stack_runs {
  std::string stack;
  std::vector<unsigned> run_index;       ///< 0-based; run i used seed + i
  std::vector<std::uint64_t> run_seed;
  std::vector<run_result> runs;
};

struct experiment_runs {
  std::string name;
  std::string machine;   ///< e.g. "preset seed000-8node" or "file m.txt"
  std::string workload;  ///< e.g. "specjbb: 2 processes, 160 tasks, 60 s"
  dynamic_topology topology;
  bool elapsed = false;  ///< results are elapsed seconds per group (workload.report_elapsed)
  unsigned runs = 0;     ///< runs in the whole sweep (this shard may hold fewer)
  std::uint64_t seed = 1;
  std::vector<stack_runs> stacks;
  /// What memory costs in these runs: the measured costs' machine, or the SLIT derivation's
  /// assumption (from_slit), said in so many words.
  std::string costs{};
  /// The sweep's scaled assumptions this experiment has (the others do not apply to it).
  std::vector<scaled_assumption> assumptions{};
  /// How hard and inverse binding sized their node sets (by cores, or by logical CPUs and
  /// why), said in so many words; empty when neither runs.
  std::string binding{};
  /// The runs' memory tiering (numa_balancing mode, demotion), said in so many words; empty for
  /// the default mode 1.
  std::string tiering{};
};

struct preset_runs {
  std::string name;  ///< seed000 .. seed004, or "custom"
  std::string title;
  std::vector<experiment_runs> experiments;
  std::vector<sweep_claim> claims;
};

struct sweep_report {
  std::vector<preset_runs> presets;
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
  std::vector<scaled_assumption> assumptions;
};

}  // namespace numaplace::sim
