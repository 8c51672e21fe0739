#pragma once
// `numaplace sim --json` and `--csv`.

#include <nlohmann/json.hpp>

#include "sim_report.hpp"

namespace numaplace_cli {

/// {"shard": "k/n", "presets": [{"name", "title", "experiments": [{..., "stacks": [{"stack",
/// "summary", "runs": [{"run", "seed", "groups": [...]}]}]}], "claims": [...]}]}.
/// Each group's tasks_over_time is included only when `timeline`.
nlohmann::json sim_json(const sim_report& r, bool timeline);

/// One CSV row per (experiment, stack, run, group), after a header row.
void print_sim_csv(const sim_report& r);

}  // namespace numaplace_cli
