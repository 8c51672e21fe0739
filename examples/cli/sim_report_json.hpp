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

/// One part of a sweep as read: its name in messages (a file's path) and its text.
struct report_part {
  std::string source;
  std::string text;
};

/// The --json outputs of the shards of one sweep (`--shard k/n` for every k), joined into the
/// report the whole sweep gives (sim --merge). Refuses, naming the part and the place in it:
/// parts of different sweeps; shards missing or given twice; a run outside its part's shard or
/// the sweep's run count, with another seed than its index gives, given twice or given by no
/// part; a figure no simulation prints (negative, not finite, a local fraction above 1, a
/// per-node list of another length than the machine's nodes). Throws bad_input_error.
sim_report merge_sim_reports(const std::vector<report_part>& parts);

/// merge_sim_reports on the files at `paths`, each read as read_input() reads (at most
/// max_report_bytes).
sim_report merge_sim_report_files(const std::vector<std::string>& paths);

/// One CSV row per (experiment, stack, run, group), after a header row.
void print_sim_csv(const sim_report& r);

}  // namespace numaplace_cli
