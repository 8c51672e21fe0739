#pragma once
// `numaplace sim --plot DIR`: gnuplot data files, a script, and the PNGs gnuplot renders from
// them: each experiment's metric per stack (mean and standard deviation over runs and groups),
// and for one run per stack the nodes each group's tasks were on over time.

#include <string>
#include <vector>

#include "sim_report.hpp"

namespace numaplace_cli {

/// Throws usage_error, saying how to install it, when there is no gnuplot on the PATH.
void require_gnuplot();

/// Writes the data and DIR/plots.gp, runs gnuplot in DIR, and returns the PNGs' paths. Throws
/// std::runtime_error when DIR cannot be written or gnuplot fails.
std::vector<std::string> write_sim_plots(const numaplace::sim::sweep_report& r, const std::string& dir);

}  // namespace numaplace_cli
