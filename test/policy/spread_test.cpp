// concentric_spread (seed 002): circles of nodes around a node, nearest first; at low load each
// task gets a node of its own, then the nearest circle with an idle CPU.
#include <doctest/doctest.h>

#include <numaplace/policy/concentric_spread.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

#include <array>
#include <iterator>
#include <vector>

using namespace numaplace;

namespace {

using spreading = stack<kernel_era::modern, fault_scoring<>, concentric_spread>;

static_assert(std::input_iterator<circles_around<dynamic_topology>::iterator>);

struct circle_copy {
  distance_t distance;
  std::vector<node_index> nodes;
  bool operator==(const circle_copy&) const = default;
};

template <class Topology>
std::vector<circle_copy> all_circles(const Topology& t, node_index centre) {
  std::vector<circle_copy> out;
  for (const circle c : circles(t, centre)) out.push_back({c.distance, {c.nodes.begin(), c.nodes.end()}});
  return out;
}

// spread_target on `t` from `from` with these counts.
node_index target(const dynamic_topology& t, node_index from, const std::vector<unsigned>& running,
                  const std::vector<unsigned>& cpus) {
  return with_placement<spreading>(t, [&](const auto& pl) {
    return pl.template policy<1>().spread_target(pl, from, running, cpus);
  });
}

std::vector<unsigned> cpus_of(const dynamic_topology& t) {
  std::vector<unsigned> cpus;
  for (node_index n = 0; n < t.node_count(); ++n) cpus.push_back(static_cast<unsigned>(t.cpus(n).size()));
  return cpus;
}

}  // namespace

TEST_CASE("circles: the node, then each distance outwards") {
  const auto t = presets::find("seed000-8node")->build();
  CHECK(all_circles(t, 5) == std::vector<circle_copy>{{10, {5}}, {12, {4}}, {17, {6, 7}}, {19, {0, 1, 2, 3}}});
  CHECK(all_circles(t, 0) == std::vector<circle_copy>{{10, {0}}, {12, {1}}, {17, {2, 3}}, {19, {4, 5, 6, 7}}});
  const auto direct = presets::find("seed003-4node")->build();
  CHECK(all_circles(direct, 2) == std::vector<circle_copy>{{10, {2}}, {20, {0, 1, 3}}});
  // Through a kinded view as well, as policies see it.
  with_placement<spreading>(t, [&](const auto& pl) { CHECK(all_circles(pl.topology(), 7).size() == 4); });
}

TEST_CASE("seed 002: make -j4 on 4 HT cores mapped as nodes gets a core per task") {
  const auto t = presets::find("seed002-ht")->build();  // 4 nodes x 2 siblings
  const auto cpus = cpus_of(t);
  CHECK(cpus == std::vector<unsigned>{2, 2, 2, 2});
  std::vector<unsigned> running(4, 0);
  // Every job is forked by make on node 0; each one lands where spread_target says.
  std::vector<node_index> placed;
  for (int job = 0; job < 4; ++job) {
    const node_index n = target(t, 0, running, cpus);
    placed.push_back(n);
    ++running[n];
  }
  CHECK(placed == std::vector<node_index>{0, 1, 2, 3});
  // A fifth job doubles up, on the nearest node with an idle sibling: make's own.
  CHECK(target(t, 0, running, cpus) == 0);
  CHECK(target(t, 2, running, cpus) == 2);
  // A full machine: stay put.
  CHECK(target(t, 1, {2, 2, 2, 2}, cpus) == 1);
}

TEST_CASE("the nearest circle with an empty node wins at low load") {
  const auto t = presets::find("seed000-8node")->build();
  const auto cpus = cpus_of(t);  // 20 each
  SUBCASE("the node itself when it runs nothing") {
    CHECK(target(t, 0, {0, 0, 0, 0, 0, 0, 0, 0}, cpus) == 0);
  }
  SUBCASE("its pair partner at 12 before the far side of the quad at 17") {
    CHECK(target(t, 0, {1, 0, 0, 0, 0, 0, 0, 0}, cpus) == 1);
  }
  SUBCASE("inside the quad at 17 before the other quad at 19") {
    CHECK(target(t, 0, {1, 1, 5, 0, 0, 0, 0, 0}, cpus) == 3);
  }
  SUBCASE("the other quad only when its own quad has no empty node") {
    CHECK(target(t, 0, {1, 1, 5, 3, 2, 0, 9, 0}, cpus) == 5);  // first empty node at 19
  }
}

TEST_CASE("once every node is busy: the nearest circle with an idle CPU, least loaded there") {
  const auto t = presets::find("seed000-8node")->build();
  const auto cpus = cpus_of(t);
  CHECK(target(t, 0, {3, 20, 20, 20, 1, 1, 1, 1}, cpus) == 0);      // idle CPUs at home
  CHECK(target(t, 0, {20, 20, 15, 9, 1, 1, 1, 1}, cpus) == 3);      // at 17, 9/20 over 15/20
  CHECK(target(t, 0, {20, 20, 20, 20, 7, 3, 12, 3}, cpus) == 5);    // at 19: 3/20, first on ties
  CHECK(target(t, 0, {20, 20, 20, 20, 20, 20, 20, 20}, cpus) == 0);  // full: stay
}

TEST_CASE("load is compared per CPU, and CPU-less nodes are never chosen") {
  const auto t = presets::find("seed003-4node")->build();
  // Node 1 has 4 of 8 CPUs busy (1/2), node 2 2 of 3 (2/3), node 3 has no CPUs.
  CHECK(target(t, 0, {8, 4, 2, 0}, {8, 8, 3, 0}) == 1);
  CHECK(target(t, 0, {8, 4, 1, 0}, {8, 8, 3, 0}) == 2);  // 1/3 beats 1/2
  CHECK(target(t, 3, {1, 1, 1, 0}, {8, 8, 8, 0}) == 0);  // from a CPU-less node: outwards
}

TEST_CASE("bad input: no node, or counts that do not cover every node") {
  const auto t = presets::find("seed003-4node")->build();
  CHECK(target(t, 4, {0, 0, 0, 0}, {8, 8, 8, 8}) == no_node);
  CHECK(target(t, 0, {1, 0}, {8, 8, 8, 8}) == 1);  // nodes beyond the counts have no CPUs
  CHECK(target(t, 2, {}, {}) == 2);                // nothing known: stay
}
