// linux-modern against an independent transcription of the modern kernel
// (bench/kernel_style.hpp: run-time branches on the topology type, node masks, no
// precomputation). Random topologies of every kind, some with CPU-less nodes or asymmetric
// distances, and random faults (sparse, tied, all zero, ungrouped), fixed seeds; glueless
// machines of 8 to 64 nodes with counts on both sides of 2^56, where neighbour_weighting's
// reciprocals give way to the kernel's division.

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/stacks.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/generators.hpp>

#include "../../bench/kernel_style.hpp"
#include "../../bench/workloads.hpp"

using namespace numaplace;
using numaplace_bench::splitmix64;

namespace {

std::vector<std::vector<long long>> rows_of(const dynamic_topology& t) {
  const std::size_t n = t.node_count();
  std::vector<std::vector<long long>> rows(n, std::vector<long long>(n));
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) rows[a][b] = t.distance(static_cast<node_index>(a), static_cast<node_index>(b));
  }
  return rows;
}

// The same distances with some nodes (never all) CPU-less, as PMEM or CXL memory would be.
dynamic_topology with_cpu_less_nodes(const dynamic_topology& t, splitmix64& rng) {
  const std::size_t n = t.node_count();
  std::vector<node_attributes> nodes(n);
  std::size_t with_cpu = 0;
  for (std::size_t i = 0; i < n; ++i) {
    nodes[i].id = static_cast<node_id>(i);
    nodes[i].has_cpu = rng.below(3) != 0;
    with_cpu += nodes[i].has_cpu ? 1 : 0;
  }
  if (with_cpu == 0) nodes[rng.below(n)].has_cpu = true;
  return dynamic_topology(rows_of(t), std::move(nodes));
}

// A random distance matrix over a few values, symmetric or not.
dynamic_topology random_matrix(std::size_t n, splitmix64& rng) {
  const bool symmetric = rng.below(2) == 0;
  const std::size_t values = 1 + rng.below(4);
  std::vector<long long> pool;
  for (std::size_t v = 0; v < values; ++v) pool.push_back(11 + static_cast<long long>(rng.below(60)));
  std::vector<std::vector<long long>> rows(n, std::vector<long long>(n, 10));
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b || (symmetric && b < a)) continue;
      rows[a][b] = pool[rng.below(pool.size())];
      if (symmetric) rows[b][a] = rows[a][b];
    }
  }
  return dynamic_topology(rows);
}

// A random connected graph: a random tree plus a few extra links.
dynamic_topology random_graph(std::size_t n, splitmix64& rng) {
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t i = 1; i < n; ++i) links.emplace_back(rng.below(i), i);
  const std::size_t extra = rng.below(n);
  for (std::size_t e = 0; e < extra; ++e) links.emplace_back(rng.below(n), rng.below(n));
  // Diameter < n, so n-1 hops must fit in 255.
  const auto per_hop = static_cast<distance_t>(1 + rng.below(std::min<std::uint64_t>(12, 245 / (n - 1))));
  return generate::from_links(n, links, per_hop);
}

dynamic_topology random_hierarchy(splitmix64& rng) {
  const std::size_t depth = 2 + rng.below(2);
  std::vector<generate::level> levels;
  long long d = 10;
  for (std::size_t l = 0; l < depth; ++l) {
    d += 1 + static_cast<long long>(rng.below(15));
    levels.push_back({2 + rng.below(3), static_cast<distance_t>(d)});
  }
  return generate::hierarchical(levels);
}

dynamic_topology random_topology(std::size_t shape, splitmix64& rng) {
  switch (shape) {
    case 0: return generate::fully_connected(1 + rng.below(24), static_cast<distance_t>(11 + rng.below(200)));
    case 1: {
      const std::size_t n = 3 + rng.below(30);
      return generate::ring(n, static_cast<distance_t>(1 + rng.below(std::min<std::uint64_t>(20, 245 / (n / 2)))));
    }
    case 2: return generate::ladder(2 + rng.below(8), rng.below(2) == 0, static_cast<distance_t>(1 + rng.below(20)));
    case 3:
      return generate::two_level_backplane(2 + rng.below(4), 1 + rng.below(6), static_cast<distance_t>(11 + rng.below(20)),
                                           static_cast<distance_t>(32 + rng.below(40)));
    case 4: return random_hierarchy(rng);
    case 5: return random_graph(2 + rng.below(30), rng);
    default: return random_matrix(1 + rng.below(20), rng);
  }
}

// Faults for `n` nodes: each input picks a style, so ties and zeros are common.
struct fault_case {
  std::vector<std::uint64_t> task, group;
  decision_input in;
};

void fill(std::vector<std::uint64_t>& v, std::size_t n, std::size_t style, splitmix64& rng) {
  v.assign(2 * n, 0);
  for (auto& x : v) {
    switch (style) {
      case 0: x = 0; break;                                     // nothing recorded yet
      case 1: x = rng.below(3); break;                          // many ties
      case 2: x = rng.below(4) == 0 ? rng.below(1000) : 0; break;  // sparse
      case 4: x = (std::uint64_t{1} << 55) - rng.below(2); break;  // a pair just below 2^56, or at it
      case 5: x = rng.below(2) == 0 ? rng() : rng.below(1000); break;  // products that wrap
      default: x = rng.below(100000); break;
    }
  }
}

fault_case make_faults(std::size_t n, splitmix64& rng) {
  fault_case c;
  fill(c.task, n, rng.below(4), rng);
  const bool grouped = rng.below(5) != 0;
  if (grouped) fill(c.group, n, rng.below(4), rng);
  std::uint64_t task_total = 0, group_total = 0;
  for (auto x : c.task) task_total += x;
  for (auto x : c.group) group_total += x;
  c.in.task = fault_view{c.task, {}, task_total};
  if (grouped) c.in.group = fault_view{c.group, {}, group_total};
  return c;
}

std::string describe(const dynamic_topology& t, const decision_input& in) {
  std::string s = "distances:";
  for (node_index a = 0; a < t.node_count(); ++a) {
    s += "\n ";
    for (node_index b = 0; b < t.node_count(); ++b) s += " " + std::to_string(t.distance(a, b));
    if (!t.has_cpu(a)) s += "  (no CPU)";
  }
  s += "\ntask faults:";
  for (auto x : in.task.memory) s += " " + std::to_string(x);
  s += "\ngroup faults:";
  for (auto x : in.group.memory) s += " " + std::to_string(x);
  return s;
}

}  // namespace

TEST_CASE("linux-modern decides as the kernel-style transcription, on random topologies and faults") {
  splitmix64 rng{0x5eed0000cafe};
  std::size_t by_kind[3] = {};
  std::size_t cpu_less_cases = 0, decisions = 0;
  for (std::size_t round = 0; round < 420; ++round) {
    dynamic_topology t = random_topology(round % 7, rng);
    if (rng.below(4) == 0) {
      t = with_cpu_less_nodes(t, rng);
      ++cpu_less_cases;
    }
    const kernel_style::numa_state ks = kernel_style::boot(t);
    with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
      ++by_kind[static_cast<int>(pl.kind)];
      // The transcription classifies on its own: the kinds must agree too.
      REQUIRE(static_cast<int>(ks.sched_numa_topology_type) == static_cast<int>(pl.kind));
      REQUIRE(ks.sched_max_numa_distance == pl.topology().max_distance());
      for (int i = 0; i < 8; ++i) {
        const fault_case c = make_faults(t.node_count(), rng);
        const node_index lib = pl.preferred_node(c.in);
        const node_index kern = kernel_style::preferred_node(ks, c.in);
        ++decisions;
        if (lib != kern) {
          INFO("round ", round, ", kind ", to_string(pl.kind), "\n", describe(t, c.in));
          CHECK(lib == kern);
        }
      }
    });
  }
  MESSAGE("cross-checked ", decisions, " decisions: ", by_kind[0], " direct, ", by_kind[1], " glueless, ", by_kind[2],
          " backplane topologies (", cpu_less_cases, " with CPU-less nodes)");
  CHECK(by_kind[0] > 20);
  CHECK(by_kind[1] > 20);
  CHECK(by_kind[2] > 20);
}

// A w x h wrap-around mesh, 6 per hop: AMD's glueless boards (10/16/22/...).
dynamic_topology amd_mesh(std::size_t w, std::size_t h) {
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < w; ++x) {
      links.emplace_back(y * w + x, y * w + (x + 1) % w);
      links.emplace_back(y * w + x, ((y + 1) % h) * w + x);
    }
  }
  return generate::from_links(w * h, links, 6);
}

TEST_CASE("glueless machines of 8 to 64 nodes, grouped: decisions and weights as the kernel-style transcription") {
  splitmix64 rng{0x91ee1e55};
  std::vector<dynamic_topology> machines;
  for (std::size_t n : {8, 16, 32, 64}) machines.push_back(generate::ring(n, 6));
  machines.push_back(amd_mesh(4, 2));
  machines.push_back(amd_mesh(4, 4));
  machines.push_back(amd_mesh(8, 4));
  machines.push_back(amd_mesh(8, 8));
  const std::size_t plain = machines.size();
  for (std::size_t m = 0; m < plain; ++m) machines.push_back(with_cpu_less_nodes(machines[m], rng));
  std::size_t decisions = 0, glueless = 0;
  for (const dynamic_topology& t : machines) {
    const kernel_style::numa_state ks = kernel_style::boot(t);
    with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
      if (pl.kind != numa_kind::glueless_mesh) return;  // a CPU-less pick can make it another kind
      ++glueless;
      const distance_t max = pl.topology().max_distance();
      for (int i = 0; i < 40; ++i) {
        fault_case c;
        fill(c.task, t.node_count(), rng.below(6), rng);
        fill(c.group, t.node_count(), rng.below(6), rng);
        std::uint64_t total = 0;
        for (auto x : c.group) total += x;
        // Totals as kept (the sum), larger (decayed elsewhere), 0, or 1 (weights that wrap).
        const std::uint64_t totals[] = {total, total + rng.below(1u << 20), 0, 1};
        c.in.task = fault_view{c.task, {}, 1};
        c.in.group = fault_view{c.group, {}, totals[rng.below(4)]};
        const kernel_style::numa_group ng{c.group.data(), c.in.group.total};
        const kernel_style::task_struct p{c.task.data(), 1, &ng};
        ++decisions;
        INFO("nodes ", t.node_count(), ", input ", i, "\n", describe(t, c.in));
        CHECK(pl.preferred_node(c.in) == kernel_style::preferred_node(ks, c.in));
        for (node_index node = 0; node < t.node_count(); ++node) {
          CHECK(pl.group_weight(c.in, node, max) == kernel_style::group_weight<1>(ks, p, static_cast<int>(node), max));
        }
      }
    });
  }
  MESSAGE("cross-checked ", decisions, " grouped decisions on ", glueless, " glueless machines of 8 to 64 nodes");
  CHECK(glueless >= plain);
}

TEST_CASE("neighbour_weighting's reciprocal is the kernel's division below 2^56") {
  // Every share the kernel can take (0 < max - d < max - local < 256), at the counts where a
  // rounding error would first show.
  const std::uint64_t below = std::uint64_t{1} << detail::scaled_share::exact_bits;
  for (std::uint64_t divisor = 2; divisor < 256; ++divisor) {
    for (std::uint64_t factor = 1; factor < divisor; ++factor) {
      const std::uint64_t r = detail::scaled_share::reciprocal(factor, divisor);
      for (std::uint64_t f : {std::uint64_t{0}, std::uint64_t{1}, divisor - 1, divisor, divisor + 1, below / divisor * divisor,
                              below / divisor * divisor - 1, below - 2, below - 1}) {
        if (detail::scaled_share::of(f, r) != f * factor / divisor) {
          INFO("f ", f, " * ", factor, " / ", divisor);
          CHECK(detail::scaled_share::of(f, r) == f * factor / divisor);
        }
      }
    }
  }
}

TEST_CASE("the benchmarks' machines: linux-modern, the kernel-style transcription and the argmax agree") {
  for (std::size_t n : {4, 8, 16, 64}) {
    for (numa_kind k : numaplace_bench::kinds) {
      const auto t = numaplace_bench::make_topology(k, n);
      REQUIRE(t.has_value());
      const kernel_style::numa_state ks = kernel_style::boot(*t);
      const numaplace_bench::fault_inputs faults(n, numaplace_bench::input_count, numaplace_bench::fault_seed);
      with_placement<stacks::linux_modern>(*t, [&](const auto& pl) {
        CHECK(pl.kind == k);
        for (const decision_input& in : faults.inputs()) {
          CHECK(pl.preferred_node(in) == kernel_style::preferred_node(ks, in));
          if (k == numa_kind::direct) CHECK(pl.preferred_node(in) == numaplace_bench::argmax_preferred(in));
        }
      });
    }
  }
  CHECK_FALSE(numaplace_bench::make_topology(numa_kind::glueless_mesh, 2).has_value());
  CHECK_FALSE(numaplace_bench::make_topology(numa_kind::backplane, 2).has_value());
}
