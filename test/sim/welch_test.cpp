// Welch's t interval (sim/welch.hpp) against values worked out by hand, with t quantiles from a
// printed table: t(0.975, 5) = 2.570582, t(0.975, 10) = 2.228139, and z(0.975) = 1.959964.

#include <numaplace/sim/welch.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using numaplace::sim::better;
using numaplace::sim::welch;
using numaplace::sim::welch_gain_percent;

namespace {

// baseline {9, 11}: n 2, mean 10, variance 2, s^2/n = 1.
// variant {14, 18, 20, 22, 26}: n 5, mean 20, variance (36+4+0+4+36)/4 = 20, s^2/n = 4.
// difference 10; standard error sqrt(1 + 4) = 2.236068;
// Welch–Satterthwaite df = (1 + 4)^2 / (1^2/1 + 4^2/4) = 25 / 5 = 5;
// half width t(0.975, 5) * 2.236068 = 2.570582 * 2.236068 = 5.747996: [4.252004, 15.747996].
const std::vector<double> base{9, 11};
const std::vector<double> variant{14, 18, 20, 22, 26};
constexpr double welch_low = 4.252004, welch_high = 15.747996;

}  // namespace

TEST_CASE("welch: a worked example with unequal sizes and variances") {
  const auto w = welch(base, variant);
  REQUIRE(w.has_interval);
  CHECK(w.difference == doctest::Approx(10.0));
  CHECK(w.degrees_of_freedom == doctest::Approx(5.0));
  CHECK(w.low == doctest::Approx(welch_low).epsilon(1e-6));
  CHECK(w.high == doctest::Approx(welch_high).epsilon(1e-6));
  CHECK(w.distinguishable());
}

// Checked once: welch.hpp with the pooled variance, or with z in place of t, fails 10 or more
// of this file's checks (the worked example, the df-10 quantile and the percent forms).
TEST_CASE("welch: the wrong formulas give other intervals, so the test above would catch them") {
  // Pooled variance: s_p^2 = (1*2 + 4*20) / 5 = 16.4, se = sqrt(16.4 * (1/2 + 1/5)) = 3.388215,
  // df = 5: half width 2.570582 * 3.388215 = 8.709684, low 1.290316.
  // z instead of t: half width 1.959964 * 2.236068 = 4.382613, low 5.617387.
  const auto w = welch(base, variant);
  CHECK(w.low != doctest::Approx(1.290316).epsilon(1e-3));
  CHECK(w.low != doctest::Approx(5.617387).epsilon(1e-3));
  // The pooled interval is wider here, the z interval narrower: neither is near 1e-6 of Welch's.
  CHECK(std::abs(1.290316 - welch_low) > 1.0);
  CHECK(std::abs(5.617387 - welch_low) > 1.0);
}

TEST_CASE("welch: the t quantile at 10 degrees of freedom, 2.228139") {
  // baseline {5, 5}: variance 0, so df = n_variant - 1 = 10.
  // variant {0, 1, ..., 10}: mean 5, variance 110/10 = 11, s^2/n = 1: se 1, difference 0.
  const std::vector<double> flat{5, 5};
  const std::vector<double> spread{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto w = welch(flat, spread);
  REQUIRE(w.has_interval);
  CHECK(w.degrees_of_freedom == doctest::Approx(10.0));
  CHECK(w.difference == doctest::Approx(0.0));
  CHECK(w.high == doctest::Approx(2.228139).epsilon(1e-6));
  CHECK(w.low == doctest::Approx(-2.228139).epsilon(1e-6));
  CHECK_FALSE(w.distinguishable());
  // 90 %: t(0.95, 10) = 1.812461.
  CHECK(welch(flat, spread, 0.90).high == doctest::Approx(1.812461).epsilon(1e-6));
}

TEST_CASE("welch: fewer than 2 runs give no interval; zero variance gives an exact one") {
  const std::vector<double> one{3};
  const auto w = welch(one, variant);
  CHECK_FALSE(w.has_interval);
  CHECK_FALSE(w.distinguishable());
  CHECK(w.difference == doctest::Approx(17.0));
  CHECK(std::isinf(w.low));
  CHECK(std::isinf(w.high));
  CHECK_FALSE(welch({}, variant).has_interval);

  const std::vector<double> twos{2, 2, 2}, threes{3, 3};
  const auto exact = welch(twos, threes);
  REQUIRE(exact.has_interval);
  CHECK(exact.low == 1.0);
  CHECK(exact.high == 1.0);
  CHECK(std::isinf(exact.degrees_of_freedom));
  CHECK(exact.distinguishable());
  CHECK_FALSE(welch(twos, twos).distinguishable());  // exactly equal: no difference
}

TEST_CASE("welch_gain_percent: percent of the baseline mean, positive when the variant is better") {
  // Throughput: the variant's 20 is +100 % over 10; the interval scales by 100/10.
  const auto up = welch_gain_percent(base, variant, better::higher);
  CHECK(up.difference == doctest::Approx(100.0));
  CHECK(up.low == doctest::Approx(welch_low * 10).epsilon(1e-6));
  CHECK(up.high == doctest::Approx(welch_high * 10).epsilon(1e-6));
  // Elapsed seconds: taking 20 s instead of 10 s is -100 %; the ends swap.
  const auto down = welch_gain_percent(base, variant, better::lower);
  CHECK(down.difference == doctest::Approx(-100.0));
  CHECK(down.low == doctest::Approx(-welch_high * 10).epsilon(1e-6));
  CHECK(down.high == doctest::Approx(-welch_low * 10).epsilon(1e-6));
  CHECK(down.distinguishable());
  const std::vector<double> zeros{0, 0};
  CHECK_FALSE(welch_gain_percent(zeros, variant, better::higher).has_interval);
}
