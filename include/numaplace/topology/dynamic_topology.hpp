#pragma once
// A topology built at run time (from sysfs, a file, hwloc or a generator), up to max_nodes
// nodes. Validated on construction; derived facts are computed once, here, not in decisions.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "classify.hpp"
#include "error.hpp"
#include "neighbour_order.hpp"
#include "static_topology.hpp"
#include "types.hpp"
#include "validate.hpp"

namespace numaplace {

/// What a loader knows about one node besides its distances.
struct node_attributes {
  node_id id = 0;
  std::vector<unsigned> cpus;      ///< logical CPU numbers; empty when unknown or CPU-less
  std::uint64_t memory_bytes = 0;  ///< 0 when unknown
  bool has_cpu = true;
  bool has_memory = true;
};

class dynamic_topology {
 public:
  /// From rows of distances (signed, so negative input is reported rather than wrapped) and,
  /// optionally, one attribute record per row. Without attributes, ids are 0..n-1 and every
  /// node has CPUs and memory. Throws topology_error naming the row, column and value.
  explicit dynamic_topology(const std::vector<std::vector<long long>>& rows,
                            std::vector<node_attributes> nodes = {}) {
    const matrix_problem p = find_matrix_problem(
        rows.size(), [&](std::size_t r) { return rows[r].size(); },
        [&](std::size_t r, std::size_t c) { return rows[r][c]; });
    if (p) throw to_error(p);
    n_ = rows.size();
    distances_.resize(n_ * n_);
    for (std::size_t r = 0; r < n_; ++r) {
      for (std::size_t c = 0; c < n_; ++c) distances_[r * n_ + c] = static_cast<distance_t>(rows[r][c]);
    }
    set_nodes(std::move(nodes));
    derive();
  }

  /// The run-time copy of a compile-time topology.
  template <std::size_t N>
  explicit dynamic_topology(const static_topology<N>& s) : n_(N), distances_(N * N) {
    std::vector<node_attributes> nodes(N);
    for (node_index a = 0; a < N; ++a) {
      nodes[a].id = s.id_of(a);
      for (node_index b = 0; b < N; ++b) distances_[a * N + b] = s.distance(a, b);
    }
    set_nodes(std::move(nodes));
    derive();
  }

  std::size_t node_count() const noexcept { return n_; }
  distance_t distance(node_index a, node_index b) const noexcept { return distances_[a * n_ + b]; }

  node_id id_of(node_index i) const noexcept { return nodes_[i].id; }
  /// The dense index of an OS node id, if the topology has that node.
  std::optional<node_index> index_of(node_id id) const noexcept {
    const auto it = std::lower_bound(id_order_.begin(), id_order_.end(), id,
                                     [&](node_index i, node_id v) { return nodes_[i].id < v; });
    if (it == id_order_.end() || nodes_[*it].id != id) return std::nullopt;
    return *it;
  }
  bool has_cpu(node_index i) const noexcept { return nodes_[i].has_cpu; }
  bool has_memory(node_index i) const noexcept { return nodes_[i].has_memory; }
  std::span<const unsigned> cpus(node_index i) const noexcept { return nodes_[i].cpus; }
  std::uint64_t memory_bytes(node_index i) const noexcept { return nodes_[i].memory_bytes; }
  const node_attributes& node(node_index i) const noexcept { return nodes_[i]; }

  /// The modern kernel's classification, computed at construction.
  const classification& classification_info() const noexcept { return classification_; }
  numa_kind kind() const noexcept { return classification_.kind; }
  distance_t max_distance() const noexcept { return classification_.max_distance; }
  distance_t local_distance() const noexcept { return classification_.local_distance; }
  const distance_levels& levels() const noexcept { return classification_.levels; }

  /// Every node ordered by distance from `from` (then by index); `from` itself first.
  std::span<const node_index> neighbours(node_index from) const noexcept {
    return std::span<const node_index>(neighbours_).subspan(std::size_t{from} * n_, n_);
  }

  /// Pairs whose distance differs from the mirror entry (used as given, as Linux does).
  std::span<const asymmetry> asymmetries() const noexcept { return asymmetries_; }

 private:
  void set_nodes(std::vector<node_attributes> nodes) {
    if (nodes.empty()) {
      nodes.resize(n_);
      for (std::size_t i = 0; i < n_; ++i) nodes[i].id = static_cast<node_id>(i);
    }
    if (nodes.size() != n_) {
      throw topology_error({"node attributes", 0, std::nullopt, std::nullopt},
                           std::to_string(nodes.size()) + " node records for a " + std::to_string(n_) +
                               "-node distance matrix");
    }
    nodes_ = std::move(nodes);
    id_order_.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      id_order_[i] = static_cast<node_index>(i);
      if (nodes_[i].id < 0) {
        throw topology_error({"node attributes", 0, i, std::nullopt},
                             "node id " + std::to_string(nodes_[i].id) + " is negative");
      }
    }
    std::sort(id_order_.begin(), id_order_.end(),
              [&](node_index a, node_index b) { return nodes_[a].id < nodes_[b].id; });
    for (std::size_t i = 1; i < n_; ++i) {
      if (nodes_[id_order_[i]].id == nodes_[id_order_[i - 1]].id) {
        throw topology_error({"node attributes", 0, id_order_[i], std::nullopt},
                             "node id " + std::to_string(nodes_[id_order_[i]].id) + " appears twice");
      }
    }
  }

  void derive() {
    classification_ = classify(*this);
    neighbours_.resize(n_ * n_);
    for (node_index i = 0; i < n_; ++i) {
      detail::fill_neighbour_order(*this, i, std::span<node_index>(neighbours_).subspan(std::size_t{i} * n_, n_));
    }
    for (std::size_t r = 0; r < n_; ++r) {
      for (std::size_t c = r + 1; c < n_; ++c) {
        const auto f = distance(static_cast<node_index>(r), static_cast<node_index>(c));
        const auto b = distance(static_cast<node_index>(c), static_cast<node_index>(r));
        if (f != b) asymmetries_.push_back({r, c, f, b});
      }
    }
  }

  std::size_t n_ = 0;
  std::vector<distance_t> distances_;
  std::vector<node_attributes> nodes_;
  std::vector<node_index> id_order_;  // dense indices sorted by OS id, for index_of
  classification classification_{};
  std::vector<node_index> neighbours_;
  std::vector<asymmetry> asymmetries_;
};

}  // namespace numaplace
