#pragma once
// `numaplace sim --json` and `--csv`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim_report.hpp"

namespace numaplace_cli {

/// {"shard": "k/n", "presets": [{"name", "title", "experiments": [{..., "stacks": [{"stack",
/// "summary", "runs": [{"run", "seed", "groups": [...]}]}]}], "claims": [...]}]}.
/// Each group's tasks_over_time is included only when `timeline`.
nlohmann::json sim_json(const sim_report& r, bool timeline);

/// What sim --json prints says it is (json_stamp.hpp).
inline constexpr const char* sim_report_format = "numaplace-sim-report";
inline constexpr int sim_report_schema_version = 1;

/// The --json outputs of the shards of one sweep (`--shard k/n` for every k), joined into the
/// report the whole sweep gives (sim --merge). Refuses parts of different sweeps, and shards
/// missing or given twice, naming the file. Throws bad_input_error.
sim_report merge_sim_reports(const std::vector<std::string>& paths);

/// One CSV row per (experiment, stack, run, group), after a header row.
void print_sim_csv(const sim_report& r);

}  // namespace numaplace_cli
