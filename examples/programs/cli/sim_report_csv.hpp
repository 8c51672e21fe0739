#pragma once
// `numaplace sim --csv`. (`--json` is numaplace::formats' sim_report_json.)

#include "sim_report.hpp"

namespace numaplace_cli {

/// One CSV row per (experiment, stack, run, group), after a header row.
void print_sim_csv(const numaplace::sim::sweep_report& r);

}  // namespace numaplace_cli
