#pragma once
// Checks a distance matrix before any topology is built from it.
// One constexpr checker serves both paths: a run-time topology turns the first problem into
// a topology_error; a compile-time topology turns it into a compile error named after it.

#include <cstddef>
#include <cstdint>
#include <string>

#include "error.hpp"
#include "types.hpp"

namespace numaplace {

enum class matrix_problem_kind : std::uint8_t {
  none,
  empty,                  ///< no rows
  too_many_nodes,         ///< more than max_nodes rows
  not_square,             ///< a row whose length differs from the row count
  not_positive,           ///< zero or negative distance
  out_of_range,           ///< below 10 or above 255, which Linux rejects
  local_not_10,           ///< node 0's own distance is not 10, the SLIT local distance
  unequal_local,          ///< a diagonal entry that differs from row 0's
  diagonal_not_smallest,  ///< an off-diagonal entry not larger than the row's own distance
};

/// The first problem found, in row-major order; `kind == none` when the matrix is valid.
struct matrix_problem {
  matrix_problem_kind kind = matrix_problem_kind::none;
  std::size_t row = 0;
  std::size_t column = 0;
  long long value = 0;     ///< the offending entry (or row length, or row count)
  long long expected = 0;  ///< what it was compared against, where that helps

  constexpr explicit operator bool() const noexcept { return kind != matrix_problem_kind::none; }
};

/// Finds the first problem of a matrix given by its row count, each row's length and an
/// accessor `at(row, column)` returning a signed value (so negative input is seen as such).
template <class RowLength, class At>
constexpr matrix_problem find_matrix_problem(std::size_t rows, RowLength row_length, At at) {
  using k = matrix_problem_kind;
  if (rows == 0) return {k::empty, 0, 0, 0, 0};
  if (rows > max_nodes) return {k::too_many_nodes, 0, 0, static_cast<long long>(rows), max_nodes};
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t len = row_length(r);
    if (len != rows) {
      return {k::not_square, r, 0, static_cast<long long>(len), static_cast<long long>(rows)};
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < rows; ++c) {
      const long long v = at(r, c);
      if (v <= 0) return {k::not_positive, r, c, v, 0};
      if (v < slit_local_distance || v > max_valid_distance) return {k::out_of_range, r, c, v, 0};
    }
  }
  // Linux (numa_set_distance, the device-tree parser) refuses a local distance other than 10,
  // and its formulas divide by max - 10: accepting another would give answers no kernel gives.
  const long long local = at(0, 0);
  if (local != slit_local_distance) return {k::local_not_10, 0, 0, local, slit_local_distance};
  for (std::size_t r = 1; r < rows; ++r) {
    if (at(r, r) != local) return {k::unequal_local, r, r, at(r, r), local};
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < rows; ++c) {
      if (c != r && at(r, c) <= local) return {k::diagonal_not_smallest, r, c, at(r, c), local};
    }
  }
  return {};
}

/// A distance that differs from its mirror entry. Linux uses such matrices as given (it only
/// warns), and so does numaplace; loaders report them as warnings.
struct asymmetry {
  std::size_t row = 0;
  std::size_t column = 0;
  distance_t forward = 0;   ///< distance(row, column)
  distance_t backward = 0;  ///< distance(column, row)
};

/// Human-readable text for a problem, without its location.
inline std::string describe(const matrix_problem& p) {
  using k = matrix_problem_kind;
  const std::string v = std::to_string(p.value);
  const std::string e = std::to_string(p.expected);
  switch (p.kind) {
    case k::none: return "no problem";
    case k::empty: return "the distance matrix is empty";
    case k::too_many_nodes: return "the distance matrix has " + v + " nodes, more than the " + e + " supported";
    case k::not_square: return "the row has " + v + " entries but the matrix has " + e + " rows: a distance matrix must be square";
    case k::not_positive: return "distance " + v + " is not positive";
    case k::out_of_range: return "distance " + v + " is outside 10..255, the range Linux accepts";
    case k::local_not_10: return "local distance " + v + " is not " + e + ", the local distance of SLIT and Linux";
    case k::unequal_local: return "local distance " + v + " differs from node 0's local distance " + e;
    case k::diagonal_not_smallest:
      return "distance " + v + " to another node is not larger than the local distance " + e;
  }
  return "unknown problem";
}

/// The error a run-time topology throws for `p`, located at its row and column.
inline topology_error to_error(const matrix_problem& p, std::string source = "distance matrix") {
  error_location where{std::move(source), 0, std::nullopt, std::nullopt};
  using k = matrix_problem_kind;
  if (p.kind != k::empty && p.kind != k::too_many_nodes) {
    where.row = p.row;
    if (p.kind != k::not_square) where.column = p.column;
  }
  return topology_error(std::move(where), describe(p));
}

}  // namespace numaplace
