#pragma once
// The numeric contract of the score arithmetic.
//
// The kernel computes fault sums and weights in 64-bit unsigned arithmetic that wraps
// (ulong, mod 2^64): kernel_arithmetic does exactly that, and every named kernel stack uses it,
// so its answers match the kernel's even where the kernel's overflow. A runtime that would
// rather have answers that never wrap adds the `overflow_safe` policy to its stack: sums then
// saturate at the largest uint64_t, and a*m/d is computed exactly in 128 bits and saturates.
//
// Defined edge cases, in both modes: a weight with a zero total is 0; a decision over all-zero
// faults gives no node; a division by zero never happens (divisors are totals checked for 0 or
// distance differences, positive by validation).

#include <cstdint>
#include <limits>

namespace numaplace {

/// The kernel's ulong arithmetic: additions and products wrap mod 2^64.
struct kernel_arithmetic {
  static constexpr std::uint64_t add(std::uint64_t a, std::uint64_t b) noexcept { return a + b; }
  /// (a * m mod 2^64) / d, as `a * m / d` on ulong.
  static constexpr std::uint64_t mul_div(std::uint64_t a, std::uint64_t m, std::uint64_t d) noexcept {
    return a * m / d;
  }
};

/// Saturating arithmetic: results that do not fit are the largest uint64_t, never wrapped.
struct saturating_arithmetic {
  static constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();

  static constexpr std::uint64_t add(std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t sum = a + b;
    return sum < a ? max : sum;
  }
  /// a * m / d exactly (the product in 128 bits), saturated.
  static constexpr std::uint64_t mul_div(std::uint64_t a, std::uint64_t m, std::uint64_t d) noexcept {
    __extension__ using u128 = unsigned __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
    const u128 q = u128{a} * u128{m} / u128{d};
    return q > u128{max} ? max : static_cast<std::uint64_t>(q);
  }
};

/// Add to a stack for overflow-safe scores (see the top of this header).
struct overflow_safe {
  using arithmetic = saturating_arithmetic;
};

}  // namespace numaplace
