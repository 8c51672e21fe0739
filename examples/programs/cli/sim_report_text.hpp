#pragma once
// `numaplace sim`'s text report: per run lines in the seeds' style, a summary table per
// experiment, and "seed reported vs simulated" for each claim (or, without claims, each later
// stack against the first), each with its 95 % Welch interval over the runs and a verdict.

#include "sim_report.hpp"

namespace numaplace_cli {

/// Prints `r` on stdout. Runs are listed when `per_run`, or (single preset or custom run) when a
/// stack has at most 20 group results, as seed 000 lists its 20 JVM results.
void print_sim_text(const numaplace::sim::sweep_report& r, bool per_run);

}  // namespace numaplace_cli
