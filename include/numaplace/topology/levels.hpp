#pragma once
// A sorted set of distinct distances: the kernel's sched_domains_numa_distance[].

#include <array>
#include <cstddef>
#include <cstdint>

#include "types.hpp"

namespace numaplace {

/// Distinct distances in ascending order, at most 256 of them (distances fit a byte).
/// A constexpr value type: a static topology's levels are known at compile time.
class distance_levels {
 public:
  constexpr distance_levels() = default;

  constexpr std::size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr distance_t operator[](std::size_t i) const noexcept { return values_[i]; }
  constexpr const distance_t* begin() const noexcept { return values_.data(); }
  constexpr const distance_t* end() const noexcept { return values_.data() + size_; }
  constexpr distance_t front() const noexcept { return values_[0]; }
  constexpr distance_t back() const noexcept { return values_[size_ - 1]; }

  constexpr bool contains(distance_t d) const noexcept {
    for (std::size_t i = 0; i < size_; ++i) {
      if (values_[i] == d) return true;
    }
    return false;
  }

  /// Inserts `d` keeping the order; a value already present is ignored.
  constexpr void insert(distance_t d) noexcept {
    std::size_t pos = 0;
    while (pos < size_ && values_[pos] < d) ++pos;
    if (pos < size_ && values_[pos] == d) return;
    if (size_ == values_.size()) return;  // cannot happen for byte-sized distances
    for (std::size_t i = size_; i > pos; --i) values_[i] = values_[i - 1];
    values_[pos] = d;
    ++size_;
  }

  friend constexpr bool operator==(const distance_levels& a, const distance_levels& b) noexcept {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i) {
      if (a.values_[i] != b.values_[i]) return false;
    }
    return true;
  }

 private:
  std::array<distance_t, 256> values_{};
  std::size_t size_ = 0;
};

}  // namespace numaplace
