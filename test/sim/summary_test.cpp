// sim::summary, the figures every report prints: min <= harmonic mean <= mean <= max for any
// series of non-negative figures, and a zero makes the harmonic mean zero. Before, a zero was
// skipped but still counted: 1,000 SPECjbb groups, most at 0 ops/s, gave a harmonic mean of
// 21,576,694 against a largest value of 65,230.
#include <doctest/doctest.h>

#include <numaplace/sim/result.hpp>

#include <random>
#include <vector>

using numaplace::sim::summary;

TEST_CASE("summary: a zero makes the harmonic mean zero; otherwise it lies between min and mean") {
  CHECK(summary::of({0.0, 10.0}).harmonic_mean == 0);
  CHECK(summary::of({2.0, 2.0}).harmonic_mean == doctest::Approx(2.0));
  CHECK(summary::of({1.0, 4.0, 4.0}).harmonic_mean == doctest::Approx(2.0));
  CHECK(summary::of({}).harmonic_mean == 0);

  std::mt19937_64 random(11);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> xs(1 + random() % 50);
    const bool zeros = trial % 4 == 0;
    for (double& x : xs) {
      x = zeros && random() % 3 == 0 ? 0.0 : std::uniform_real_distribution<double>(1e-3, 1e6)(random);
    }
    const summary s = summary::of(xs);
    INFO("trial " << trial);
    CHECK(s.min <= s.harmonic_mean * (1 + 1e-12));
    CHECK(s.harmonic_mean <= s.mean * (1 + 1e-12));
    CHECK(s.mean <= s.max * (1 + 1e-12));
    if (s.min == 0) CHECK(s.harmonic_mean == 0);
  }
}
