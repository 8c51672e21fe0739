// The simulator's random stream (sim/random.hpp) is the same on every standard library: the
// engine is the standard's mt19937_64 and the draws are Boost's, not <random>'s distributions.

#include <numaplace/sim/random.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

using numaplace::sim::random_engine;

TEST_CASE("random_engine is mt19937_64: its 10000th output is the standard's value") {
  // [rand.predef]: a default-constructed mt19937_64's 10000th invocation yields 9981545732273789042.
  random_engine rng;
  rng.discard(9999);
  CHECK(rng() == 9981545732273789042ULL);
}

TEST_CASE("random_index and random_between stay in range") {
  random_engine rng(7);
  for (int i = 0; i < 1000; ++i) {
    CHECK(numaplace::sim::random_index(rng, 3) < 3);
    const double x = numaplace::sim::random_between(rng, 2.0, 5.0);
    CHECK(x >= 2.0);
    CHECK(x < 5.0);
  }
  CHECK(numaplace::sim::random_index(rng, 1) == 0);
}
