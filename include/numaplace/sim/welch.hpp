#pragma once
// Whether two stacks differ by more than their runs' noise: Welch's t interval for the
// difference of two means, which assumes neither equal variances nor equal run counts (a
// pooled-variance interval is too narrow when the noisier stack has fewer runs). The t
// quantile is Boost.Math's (header-only); the samples are independent runs, one value each.

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include <boost/math/distributions/students_t.hpp>

namespace numaplace::sim {

/// An interval for mean(variant) - mean(baseline), or for the relative gain (welch_gain_percent).
struct welch_interval {
  double difference = 0;  ///< the point estimate
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  /// Welch–Satterthwaite; infinite when both samples have zero variance (the interval is exact).
  double degrees_of_freedom = 0;
  /// False when a sample has fewer than 2 values (no variance, so no interval).
  bool has_interval = false;

  /// Whether the interval excludes zero: the two differ beyond the noise at this confidence.
  bool distinguishable() const { return has_interval && (low > 0 || high < 0); }
};

namespace detail {

struct sample_moments {
  double n = 0, mean = 0, variance = 0;  // variance: unbiased (n - 1)
};

inline sample_moments moments_of(std::span<const double> xs) {
  sample_moments m;
  m.n = double(xs.size());
  if (xs.empty()) return m;
  for (double x : xs) m.mean += x;
  m.mean /= m.n;
  if (xs.size() < 2) return m;
  for (double x : xs) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= m.n - 1;
  return m;
}

}  // namespace detail

/// Welch's interval for mean(variant) - mean(baseline) at `confidence` (two-sided).
inline welch_interval welch(std::span<const double> baseline, std::span<const double> variant,
                            double confidence = 0.95) {
  const auto b = detail::moments_of(baseline);
  const auto v = detail::moments_of(variant);
  welch_interval w;
  w.difference = v.mean - b.mean;
  if (baseline.size() < 2 || variant.size() < 2) return w;
  w.has_interval = true;
  const double b_part = b.variance / b.n, v_part = v.variance / v.n;  // squared standard errors
  const double se2 = b_part + v_part;
  if (se2 == 0) {  // every run gave the same value: the difference is exact
    w.low = w.high = w.difference;
    w.degrees_of_freedom = std::numeric_limits<double>::infinity();
    return w;
  }
  w.degrees_of_freedom = se2 * se2 / (b_part * b_part / (b.n - 1) + v_part * v_part / (v.n - 1));
  const boost::math::students_t t(w.degrees_of_freedom);
  const double half = boost::math::quantile(t, 0.5 + confidence / 2) * std::sqrt(se2);
  w.low = w.difference - half;
  w.high = w.difference + half;
  return w;
}

/// Which way a metric improves: throughput higher, elapsed seconds lower.
enum class better : bool { higher, lower };

/// welch() as a gain in percent of the baseline's mean, positive when the variant is better.
/// The baseline mean is taken as exact (the usual approximation for a relative interval);
/// without an interval when that mean is zero.
inline welch_interval welch_gain_percent(std::span<const double> baseline, std::span<const double> variant,
                                         better direction, double confidence = 0.95) {
  welch_interval w = welch(baseline, variant, confidence);
  const double base = detail::moments_of(baseline).mean;
  if (base == 0) return welch_interval{};
  const double scale = (direction == better::higher ? 100.0 : -100.0) / base;
  const double low = w.low * scale, high = w.high * scale;  // a negative scale swaps the ends
  w.difference *= scale;
  if (w.has_interval) {
    w.low = std::min(low, high);
    w.high = std::max(low, high);
  }
  return w;
}

}  // namespace numaplace::sim
