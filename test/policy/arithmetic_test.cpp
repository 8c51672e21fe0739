// The numeric contract at the extremes: kernel stacks wrap exactly as the kernel's ulong
// arithmetic does; the overflow-safe stack saturates; zero faults and zero totals are defined.
#include <doctest/doctest.h>

#include <numaplace/policy/arithmetic.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace numaplace;

namespace {
constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();

fault_view view_of(const std::vector<std::uint64_t>& pairs, std::uint64_t total) { return {pairs, {}, total}; }
}  // namespace

TEST_CASE("the two arithmetics agree wherever nothing overflows") {
  std::mt19937_64 rng(64);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t a = rng() >> 34, b = rng() >> 34, m = rng() % 1000 + 1, d = rng() % 1000 + 1;
    CHECK(kernel_arithmetic::add(a, b) == saturating_arithmetic::add(a, b));
    CHECK(kernel_arithmetic::mul_div(a, m, d) == saturating_arithmetic::mul_div(a, m, d));
  }
}

TEST_CASE("at the edges the kernel wraps and the safe mode saturates or stays exact") {
  CHECK(kernel_arithmetic::add(top, 1) == 0);
  CHECK(saturating_arithmetic::add(top, 1) == top);
  CHECK(saturating_arithmetic::add(top, top) == top);
  // 2^62 * 12 is 3 * 2^64: the kernel's product wraps to 0; the exact quotient is 2^62.
  const std::uint64_t two62 = std::uint64_t{1} << 62;
  CHECK(kernel_arithmetic::mul_div(two62, 12, 12) == 0);
  CHECK(saturating_arithmetic::mul_div(two62, 12, 12) == two62);
  CHECK(saturating_arithmetic::mul_div(top, 1000, 1) == top);
  CHECK(saturating_arithmetic::mul_div(top, 1000, 1000) == top);
  CHECK(saturating_arithmetic::mul_div(top, 1, top) == 1);
}

TEST_CASE("weights: 1000 x faults / total, wrapping in kernel stacks and saturating in the safe one") {
  const auto t = generate::fully_connected(2);
  // Node 0 has 2^62 faults of 2^62 in total: the true weight is 1000.
  const std::uint64_t two62 = std::uint64_t{1} << 62;
  const std::vector<std::uint64_t> pairs{0, two62, 0, 0};
  with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
    // 1000 * 2^62 mod 2^64 = 0 (1000 is a multiple of 4): the kernel computes weight 0.
    CHECK(pl.weight(view_of(pairs, two62), 0, 20) == 0);
  });
  with_placement<stacks::linux_modern_safe>(t, [&](const auto& pl) {
    CHECK(pl.weight(view_of(pairs, two62), 0, 20) == 1000);
    CHECK(pl.weight(view_of(pairs, 0), 0, 20) == 0);  // a zero total is weight 0, not a division
    CHECK(pl.weight(view_of(pairs, 1), 0, 20) == top);  // saturates
  });
}

TEST_CASE("counters at the largest uint64_t on every node of 1024") {
  const auto t = generate::fully_connected(1024);
  std::vector<std::uint64_t> pairs(2 * 1024, top);
  pairs[0] = 1;  // node 0: 1 + (2^64 - 1)
  const decision_input in{view_of(pairs, top), {}};
  // Kernel arithmetic: node 0's sum wraps to 0 and every other node's to 2^64 - 2: node 1 wins,
  // though node 0 has nearly as many faults.
  CHECK(with_placement<stacks::linux_modern>(t, [&](const auto& pl) { return pl.preferred_node(in); }) == 1);
  // Saturating: every sum is the largest uint64_t, node 0's too: the first node wins the tie.
  CHECK(with_placement<stacks::linux_modern_safe>(t, [&](const auto& pl) { return pl.preferred_node(in); }) == 0);
}

TEST_CASE("nearby sums over many nodes saturate in the safe mode and wrap in the kernel's") {
  // Two groups of 512 nodes: a backplane whose nearby sum at the hop limit adds 511 nodes.
  const auto t = generate::two_level_backplane(2, 512, 20, 30);
  std::vector<std::uint64_t> pairs(2 * 1024, 0);
  for (std::size_t n = 0; n < 1024; ++n) pairs[2 * n] = top / 256;  // 511 of them overflow
  const fault_view f = view_of(pairs, top);
  const std::uint64_t wrapped = with_placement<stacks::linux_modern>(t, [&](const auto& pl) { return pl.score_nearby(f, 0, 30); });
  const std::uint64_t saturated =
      with_placement<stacks::linux_modern_safe>(t, [&](const auto& pl) { return pl.score_nearby(f, 0, 30); });
  CHECK(saturated == top);
  CHECK(wrapped == (top / 256) * 511);  // the same product mod 2^64, as the kernel's ulong loop
}

TEST_CASE("zero faults everywhere: no preferred node, weights 0, in every stack") {
  const auto t = presets::find("seed000-8node")->build();
  const std::vector<std::uint64_t> zeros(16, 0);
  const decision_input in{view_of(zeros, 0), view_of(zeros, 0)};
  for_each_stack([&](std::string_view name, auto type) {
    using S = typename decltype(type)::type;
    CAPTURE(name);
    with_placement<S>(t, [&](const auto& pl) {
      CHECK(pl.preferred_node(in) == no_node);
      CHECK(pl.weight(in.task, 3, 19) == 0);
      CHECK(pl.score_nearby(in.group, 3, 19) == 0);
    });
  });
}
