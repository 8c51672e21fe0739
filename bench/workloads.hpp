#pragma once
// What the benchmarks and the instruction counter decide on: one generated topology per kind
// and size, deterministic pseudo-random faults, and the two baselines (the hand-written argmax
// and the kernel-style transcription in kernel_style.hpp).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <numaplace/stats/fault_view.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/types.hpp>

namespace numaplace_bench {

using numaplace::decision_input;
using numaplace::dynamic_topology;
using numaplace::fault_view;
using numaplace::node_index;
using numaplace::numa_kind;

inline constexpr std::array<std::size_t, 7> sizes = {2, 4, 8, 16, 64, 256, 1024};
inline constexpr std::array<numa_kind, 3> kinds = {numa_kind::direct, numa_kind::glueless_mesh, numa_kind::backplane};

/// Short names used in benchmark names and on the command line.
constexpr std::string_view kind_name(numa_kind k) {
  switch (k) {
    case numa_kind::direct: return "direct";
    case numa_kind::glueless_mesh: return "glueless";
    case numa_kind::backplane: return "backplane";
  }
  return "?";
}

inline std::optional<numa_kind> kind_from_name(std::string_view s) {
  for (numa_kind k : kinds) {
    if (kind_name(k) == s) return k;
  }
  return std::nullopt;
}

/// A w x h torus (wrap-around 2D mesh) with per-hop distances that keep the diameter <= 255.
inline dynamic_topology torus(std::size_t w, std::size_t h) {
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < w; ++x) {
      const std::size_t a = y * w + x;
      links.emplace_back(a, y * w + (x + 1) % w);
      links.emplace_back(a, ((y + 1) % h) * w + x);
    }
  }
  const std::size_t diameter = w / 2 + h / 2;
  const std::size_t per_hop = std::min<std::size_t>(10, (numaplace::max_valid_distance - 10) / diameter);
  return numaplace::generate::from_links(w * h, links, static_cast<numaplace::distance_t>(per_hop), {}, "torus");
}

/// The topology benchmarked for kind `k` at `n` nodes, or nullopt when no machine of that kind
/// has `n` nodes (2 nodes are always direct: a 2-node machine has a single remote distance).
///   direct     fully_connected(n), 10/20
///   glueless   ring(n) up to 16 nodes (10 per hop); an 8x8, 16x16 or 32x32 torus beyond
///              (10, 10 and 7 per hop, so the diameter stays within 255)
///   backplane  2x2, 2x4 and 4x4 two-level backplanes (20 inside a group, 30 across); beyond,
///              three levels: 4-node boards (12) in racks (20) joined by a backplane (30):
///              4x4x4, 4x8x8 and 4x16x16
inline std::optional<dynamic_topology> make_topology(numa_kind k, std::size_t n) {
  namespace gen = numaplace::generate;
  if (n < 4 && k != numa_kind::direct) return std::nullopt;
  switch (k) {
    case numa_kind::direct: return gen::fully_connected(n);
    case numa_kind::glueless_mesh:
      if (n <= 16) return gen::ring(n);
      if (n == 64) return torus(8, 8);
      if (n == 256) return torus(16, 16);
      if (n == 1024) return torus(32, 32);
      return std::nullopt;
    case numa_kind::backplane:
      if (n <= 16) return gen::two_level_backplane(n == 16 ? 4 : 2, n / (n == 16 ? 4 : 2));
      {
        const std::size_t racks = n == 64 ? 4 : n == 256 ? 8 : 16;
        const gen::level levels[] = {{4, 12}, {n / 4 / racks, 20}, {racks, 30}};
        return gen::hierarchical(levels);
      }
  }
  return std::nullopt;
}

/// splitmix64: a fixed-seed generator, identical on every platform.
struct splitmix64 {
  std::uint64_t state;
  std::uint64_t operator()() noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t bound) noexcept { return (*this)() % bound; }
};

/// `count` grouped tasks' decayed faults on an n-node machine: about a quarter of the nodes
/// have none, the others up to 1000 per counter; totals are the sums, as the kernel keeps them.
class fault_inputs {
 public:
  fault_inputs(std::size_t nodes, std::size_t count, std::uint64_t seed) : storage_(2 * count) {
    splitmix64 rng{seed ^ (nodes * 0x100000001b3ULL)};
    auto fill = [&](std::vector<std::uint64_t>& v) {
      v.resize(2 * nodes);
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < nodes; ++i) {
        const bool idle = rng.below(4) == 0;
        v[2 * i] = idle ? 0 : rng.below(1000);
        v[2 * i + 1] = idle ? 0 : rng.below(1000);
        total += v[2 * i] + v[2 * i + 1];
      }
      return total;
    };
    for (std::size_t c = 0; c < count; ++c) {
      const std::uint64_t task_total = fill(storage_[2 * c]);
      const std::uint64_t group_total = fill(storage_[2 * c + 1]);
      inputs_.push_back({fault_view{storage_[2 * c], {}, task_total}, fault_view{storage_[2 * c + 1], {}, group_total}});
    }
  }
  fault_inputs(const fault_inputs&) = delete;
  fault_inputs& operator=(const fault_inputs&) = delete;

  const std::vector<decision_input>& inputs() const noexcept { return inputs_; }

 private:
  std::vector<std::vector<std::uint64_t>> storage_;
  std::vector<decision_input> inputs_;
};

/// How many inputs a benchmark rotates through (a power of two).
inline constexpr std::size_t input_count = 16;
inline constexpr std::uint64_t fault_seed = 20240601;

/// The hand-written baseline: what linux-modern computes on a direct topology, written the
/// way anyone would write it. The first node with the strictly largest faults (the group's
/// when the task has a group), or no_node when every count is zero.
inline node_index argmax_preferred(const decision_input& in) noexcept {
  const fault_view& f = in.has_group() ? in.group : in.task;
  const std::size_t n = f.memory.size() / 2;
  std::uint64_t max_faults = 0;
  node_index max_nid = numaplace::no_node;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t v = f.memory[2 * i] + f.memory[2 * i + 1];
    if (v > max_faults) {
      max_faults = v;
      max_nid = static_cast<node_index>(i);
    }
  }
  return max_nid;
}

}  // namespace numaplace_bench
