#pragma once
// The simulator's random stream. Boost.Random (header-only) rather than <random>: the standard
// fixes std::mt19937_64's output but not what its distributions make of it, so a seed would give
// different runs on different standard libraries. Boost's distributions are the same everywhere.

#include <cstddef>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace numaplace::sim {

using random_engine = boost::random::mt19937_64;

/// An index drawn uniformly from [0, n); n must be positive.
template <class Rng>
std::size_t random_index(Rng& rng, std::size_t n) {
  return boost::random::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

/// A value drawn uniformly from [low, high).
template <class Rng>
double random_between(Rng& rng, double low, double high) {
  return boost::random::uniform_real_distribution<double>(low, high)(rng);
}

}  // namespace numaplace::sim
