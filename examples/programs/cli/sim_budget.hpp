#pragma once
// What `numaplace sim` says of a sweep's cost: the library's estimate
// (numaplace/sim/run_budget.hpp) refused over --max-memory or --max-cpu-hours with the option
// that allows it, and the sizes and times as the messages show them.

#include <string>

#include <numaplace/sim/run_budget.hpp>

namespace numaplace_cli {

/// Throws usage_error with the estimate, what makes it large and the option that allows it,
/// when `e` is over `budget`.
void check_budget(const numaplace::sim::sweep_estimate& e, const numaplace::sim::sweep_budget& budget);

/// "1.5 GiB", "12 MiB": a size as the budget messages show it.
std::string readable_bytes(double bytes);
/// "40 s", "12 min", "3.2 h".
std::string readable_seconds(double seconds);

}  // namespace numaplace_cli
