#pragma once
// check_topology: numa_topology's laws (topology/concept.hpp) checked on any model at run time,
// with the same checker that validates a distance matrix before a topology is built from it.

#include "concept.hpp"
#include "validate.hpp"

namespace numaplace {

/// The first law of numa_topology that `t` breaks, in row-major order; `kind == none` (false)
/// when it keeps them all. `to_error(p, "label")` turns it into a message naming its row and
/// column. An asymmetric topology keeps the laws.
template <numa_topology T>
constexpr matrix_problem check_topology(const T& t) {
  const std::size_t n = static_cast<std::size_t>(t.node_count());
  return find_matrix_problem(
      n, [n](std::size_t) { return n; },
      [&t](std::size_t a, std::size_t b) {
        return static_cast<long long>(t.distance(static_cast<node_index>(a), static_cast<node_index>(b)));
      });
}

}  // namespace numaplace
