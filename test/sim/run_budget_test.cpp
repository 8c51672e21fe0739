// A sweep's cost estimate (run_budget.hpp): a linear model of measured runs, the sweep's memory
// the largest runs that run at once together, its CPU time every run's. test/cli/budget_test.cpp
// checks `numaplace sim`'s refusals built on it.
#include <doctest/doctest.h>

#include <numaplace/sim/run_budget.hpp>

#include <vector>

using namespace numaplace::sim;

TEST_CASE("an empty run costs the model's base, and every size adds to it") {
  const run_size none{};
  CHECK(run_peak_bytes(none) == doctest::Approx(6.3e6));
  CHECK(run_cpu_seconds(none) == 0);
  const run_size small{8, 240, 16, 2, 60};
  CHECK(run_peak_bytes(small) > run_peak_bytes(none));
  CHECK(run_cpu_seconds(small) > 0);
  run_size longer = small;
  longer.seconds = 120;
  CHECK(run_cpu_seconds(longer) > run_cpu_seconds(small));
  run_size more_chunks = small;
  more_chunks.chunks *= 1000;
  CHECK(run_peak_bytes(more_chunks) == doctest::Approx(run_peak_bytes(small) + 200.0 * 239760));
}

TEST_CASE("a sweep holds its largest runs at once and spreads its CPU time over its threads") {
  const run_size small{8, 240, 16, 2, 60};
  const run_size big{4096, 262144, 256, 16, 60};
  const std::vector<run_size> runs{small, big, small, small};
  const sweep_estimate one = estimate_sweep(runs, 1);
  CHECK(one.at_once == 1);
  CHECK(one.runs == 4);
  CHECK(one.peak_bytes == doctest::Approx(run_peak_bytes(big)));
  CHECK(one.wall_seconds == doctest::Approx(one.cpu_seconds));
  CHECK(one.largest.tasks == big.tasks);
  const sweep_estimate two = estimate_sweep(runs, 2);
  CHECK(two.at_once == 2);
  CHECK(two.peak_bytes == doctest::Approx(run_peak_bytes(big) + run_peak_bytes(small)));
  CHECK(two.cpu_seconds == doctest::Approx(one.cpu_seconds));
  CHECK(two.wall_seconds == doctest::Approx(one.cpu_seconds / 2));
  // No more at once than there are runs; none at all is one at once and costs nothing.
  CHECK(estimate_sweep(runs, 64).at_once == 4);
  const sweep_estimate empty = estimate_sweep({}, 8);
  CHECK(empty.at_once == 1);
  CHECK(empty.peak_bytes == 0);
  CHECK(empty.cpu_seconds == 0);
}
