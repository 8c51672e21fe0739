#pragma once
// capacity_check: numa_has_capacity() (v4.1..v4.18). Seed 001's fix (v4.2)
// compares loads with the imbalance_pct margin, so a slightly busier destination is no
// longer refused outright.

#include <algorithm>
#include <cstdint>

#include "inputs.hpp"

namespace numaplace {

enum class capacity_rule : std::uint8_t {
  v4_1,  ///< dst accepted only if strictly less loaded per capacity than src
  v4_2,  ///< the same comparison with imbalance_pct (the seed 001 fix)
};

template <capacity_rule Rule>
struct capacity_check {
  static constexpr capacity_rule rule = Rule;
  /// task_numa_migrate's env.imbalance_pct before v5.10 (100 + (125 - 100) / 2).
  unsigned imbalance_pct = 112;

  /// Whether a node can take one more task: nr_running below its task capacity.
  static constexpr bool has_free_capacity(const node_load& n) noexcept {
    if (n.cpus == 0 || n.compute_capacity == 0) return false;
    const std::uint64_t smt = (1024 * std::uint64_t{n.cpus} + n.compute_capacity - 1) / n.compute_capacity;
    const std::uint64_t task_capacity =
        std::min<std::uint64_t>(n.cpus / smt, (n.compute_capacity + 512) / 1024);
    return n.nr_running < task_capacity;
  }

  constexpr bool has_capacity(const node_load& src, const node_load& dst) const noexcept {
    if (has_free_capacity(src) && !has_free_capacity(dst)) return false;
    if constexpr (Rule == capacity_rule::v4_1) {
      return src.load * dst.compute_capacity > dst.load * src.compute_capacity;
    } else {
      return src.load * dst.compute_capacity * imbalance_pct > dst.load * src.compute_capacity * 100;
    }
  }
};

}  // namespace numaplace
