#pragma once
// An experiment sweep written down as a JSON file (`numaplace sim --config FILE.json`): the
// machine, the workloads as data (numaplace::sim::workload, field for field), the stacks, runs,
// seed and cost model. examples/cli/schema/experiment.schema.json describes the same rules;
// every problem is reported as "FILE:LINE:COLUMN: /json/pointer: what".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <numaplace/sim/cost_model.hpp>
#include <numaplace/sim/workload.hpp>

#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

/// What --config-json's output says it is (json_stamp.hpp); hand-written files need no stamp.
inline constexpr std::string_view experiment_format = "numaplace-experiment";
inline constexpr int experiment_schema_version = 1;

/// A config file that cannot be used; the message starts with the file and the place in it.
class experiment_config_error : public bad_input_error {
 public:
  using bad_input_error::bad_input_error;
};

/// What an experiment file asks for, before anything is loaded.
struct experiment_config {
  /// The machine; its file and sysfs paths are already resolved against the config's folder.
  machine_request machine;
  /// numaplace::sim::machine_options.
  unsigned threads_per_core = 1;
  unsigned default_cpus_per_node = 4;
  /// A machine costs file (the --costs format), resolved like the machine's file.
  std::optional<std::string> costs_file;
  numaplace::sim::cost_model cost_model{};
  std::vector<numaplace::sim::workload> workloads;
  std::vector<std::string> stacks;  ///< empty: the custom runs' default
  std::optional<unsigned> runs;
  std::optional<std::uint64_t> seed;
  std::optional<unsigned> threads;
};

/// Which machine sources a config may name: a fuzzer must not read files or this machine.
enum class machine_sources { any, names_only };

/// Parses and checks `text`; `source` names it in messages, `folder` is where its relative paths
/// start and `stack_names` are the stacks it may name (sim_stack_names()). Throws
/// experiment_config_error.
experiment_config parse_experiment_config(std::string_view text, const std::string& source, const std::string& folder,
                                          const std::vector<std::string>& stack_names,
                                          machine_sources allowed = machine_sources::any);

/// Reads the file at `path` ("-": standard input) and parses it.
experiment_config read_experiment_config(const std::string& path, const std::vector<std::string>& stack_names);

/// `config` as an experiment file that parse_experiment_config reads back to the same config
/// (`numaplace sim --config-json`): a custom run written down, to edit and share. Every field is
/// written, defaults too, so that the file says everything the run used; paths stay as given.
nlohmann::ordered_json experiment_config_json(const experiment_config& config);

}  // namespace numaplace_cli
