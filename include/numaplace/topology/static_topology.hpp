#pragma once
// A topology known at compile time. Everything about it (validity, levels, kind, neighbour
// order) is computed by the compiler, and a malformed matrix is a compile error whose message
// names the problem.

#include <array>
#include <cstddef>
#include <span>

#include "classify.hpp"
#include "neighbour_order.hpp"
#include "types.hpp"
#include "validate.hpp"

namespace numaplace {

/// Declared, never defined: a static topology's constructor calls one of these, which the
/// compiler refuses in a constant expression, so the error message names the problem.
namespace compile_time_error {
void distance_matrix_has_a_distance_that_is_not_positive(std::size_t row, std::size_t column, long long value);
void distance_matrix_has_a_distance_outside_10_to_255(std::size_t row, std::size_t column, long long value);
void distance_matrix_local_distance_is_not_10(long long value);
void distance_matrix_local_distances_differ_between_rows(std::size_t row, long long value, long long node0_local);
void distance_matrix_has_an_off_diagonal_distance_not_larger_than_the_local_distance(std::size_t row,
                                                                                   std::size_t column,
                                                                                   long long value);
void node_ids_must_be_non_negative_and_unique(std::size_t index, node_id id);
}  // namespace compile_time_error

template <std::size_t N>
class static_topology {
  static_assert(N >= 1, "numaplace: a static topology needs at least one node");
  static_assert(N <= max_nodes, "numaplace: a static topology has at most max_nodes (1024) nodes");

 public:
  using input_matrix = std::array<std::array<int, N>, N>;

  /// Builds from a matrix of distances, node ids 0..N-1.
  consteval explicit static_topology(const input_matrix& m) : static_topology(m, iota_ids()) {}

  /// Builds from a matrix and the OS node ids of its rows (which may have holes).
  consteval static_topology(const input_matrix& m, const std::array<node_id, N>& ids) : ids_(ids) {
    check(m);
    for (std::size_t r = 0; r < N; ++r) {
      for (std::size_t c = 0; c < N; ++c) distances_[r][c] = static_cast<distance_t>(m[r][c]);
    }
    classification_ = numaplace::classify(*this);
    for (node_index i = 0; i < N; ++i) detail::fill_neighbour_order(*this, i, std::span<node_index>(neighbours_[i]));
  }

  static constexpr std::size_t node_count() noexcept { return N; }
  constexpr distance_t distance(node_index a, node_index b) const noexcept { return distances_[a][b]; }
  constexpr node_id id_of(node_index i) const noexcept { return ids_[i]; }
  static constexpr bool has_cpu(node_index) noexcept { return true; }
  static constexpr bool has_memory(node_index) noexcept { return true; }

  /// The modern kernel's classification, computed at compile time.
  constexpr const classification& classification_info() const noexcept { return classification_; }
  constexpr numa_kind kind() const noexcept { return classification_.kind; }
  constexpr distance_t max_distance() const noexcept { return classification_.max_distance; }
  constexpr distance_t local_distance() const noexcept { return classification_.local_distance; }
  constexpr const distance_levels& levels() const noexcept { return classification_.levels; }

  /// Every node ordered by distance from `from` (then by index); `from` itself first.
  constexpr std::span<const node_index> neighbours(node_index from) const noexcept {
    return std::span<const node_index>(neighbours_[from]);
  }

 private:
  static constexpr std::array<node_id, N> iota_ids() {
    std::array<node_id, N> ids{};
    for (std::size_t i = 0; i < N; ++i) ids[i] = static_cast<node_id>(i);
    return ids;
  }

  consteval void check(const input_matrix& m) const {
    const matrix_problem p =
        find_matrix_problem(N, [](std::size_t) { return N; }, [&](std::size_t r, std::size_t c) -> long long { return m[r][c]; });
    using k = matrix_problem_kind;
    switch (p.kind) {
      case k::not_positive:
        compile_time_error::distance_matrix_has_a_distance_that_is_not_positive(p.row, p.column, p.value);
        break;
      case k::out_of_range:
        compile_time_error::distance_matrix_has_a_distance_outside_10_to_255(p.row, p.column, p.value);
        break;
      case k::local_not_10:
        compile_time_error::distance_matrix_local_distance_is_not_10(p.value);
        break;
      case k::unequal_local:
        compile_time_error::distance_matrix_local_distances_differ_between_rows(p.row, p.value, p.expected);
        break;
      case k::diagonal_not_smallest:
        compile_time_error::distance_matrix_has_an_off_diagonal_distance_not_larger_than_the_local_distance(
            p.row, p.column, p.value);
        break;
      default:
        break;  // empty, too many and not square are ruled out by the type
    }
    for (std::size_t i = 0; i < N; ++i) {
      bool bad = ids_[i] < 0;
      for (std::size_t j = 0; j < i; ++j) bad = bad || ids_[j] == ids_[i];
      if (bad) compile_time_error::node_ids_must_be_non_negative_and_unique(i, ids_[i]);
    }
  }

  std::array<std::array<distance_t, N>, N> distances_{};
  std::array<node_id, N> ids_{};
  classification classification_{};
  std::array<std::array<node_index, N>, N> neighbours_{};
};

/// `constexpr auto t = make_static_topology({{10, 20}, {20, 10}});`
/// A non-square matrix fails with a static_assert naming it.
template <std::size_t Rows, std::size_t Columns>
consteval auto make_static_topology(const int (&m)[Rows][Columns]) {
  static_assert(Rows == Columns, "numaplace: a distance matrix must be square (as many columns as rows)");
  typename static_topology<Rows>::input_matrix a{};
  for (std::size_t r = 0; r < Rows; ++r) {
    for (std::size_t c = 0; c < Columns; ++c) a[r][c] = m[r][c];
  }
  return static_topology<Rows>(a);
}

}  // namespace numaplace
