// Generators: exact distances and kinds, and errors that name the generator.
#include <doctest/doctest.h>

#include <numaplace/topology/error.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

using namespace numaplace;

namespace {

using matrix = std::vector<std::vector<int>>;

template <class T>
matrix distances_of(const T& t) {
  matrix m(t.node_count(), std::vector<int>(t.node_count()));
  for (node_index a = 0; a < t.node_count(); ++a) {
    for (node_index b = 0; b < t.node_count(); ++b) m[a][b] = t.distance(a, b);
  }
  return m;
}

std::vector<distance_t> levels_of(const dynamic_topology& t) { return {t.levels().begin(), t.levels().end()}; }

// The message of the topology_error `f` throws, or "" (and a test failure) when it throws none.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const topology_error& e) {
    return e.what();
  }
  FAIL("no topology_error thrown");
  return "";
}

using links_t = std::vector<std::pair<std::size_t, std::size_t>>;

}  // namespace

TEST_CASE("fully_connected") {
  const auto t = generate::fully_connected(3, 25);
  CHECK(distances_of(t) == matrix{{10, 25, 25}, {25, 10, 25}, {25, 25, 10}});
  CHECK(t.kind() == numa_kind::direct);
  CHECK(t.max_distance() == 25);
  CHECK(t.id_of(2) == 2);

  SUBCASE("node shape: consecutive CPUs by node, memory per node") {
    const auto s = generate::fully_connected(3, 20, {2, 4096});
    CHECK(std::vector<unsigned>(s.cpus(0).begin(), s.cpus(0).end()) == std::vector<unsigned>{0, 1});
    CHECK(std::vector<unsigned>(s.cpus(2).begin(), s.cpus(2).end()) == std::vector<unsigned>{4, 5});
    CHECK(s.memory_bytes(1) == 4096);
  }
  SUBCASE("bad parameters") {
    CHECK(error_of([] { generate::fully_connected(0); }) == "generator fully_connected: needs at least one node");
    CHECK(error_of([] { generate::fully_connected(1025); }) ==
          "generator fully_connected: 1025 nodes is more than the 1024 supported");
    CHECK(error_of([] { generate::fully_connected(2, 10); }) ==
          "generator fully_connected: distance matrix: row 0, column 1: distance 10 to another node is not larger "
          "than the local distance 10");
    CHECK(error_of([] { generate::fully_connected(2, 256); }).find("generator fully_connected: ") == 0);
  }
}

TEST_CASE("hierarchical") {
  SUBCASE("HT siblings as nodes under sockets: pairs 11 apart, pairs of pairs 20 apart") {
    const generate::level levels[] = {{2, 11}, {4, 20}};
    const auto t = generate::hierarchical(levels);
    REQUIRE(t.node_count() == 8);
    CHECK(t.distance(0, 1) == 11);
    CHECK(t.distance(6, 7) == 11);
    CHECK(t.distance(0, 2) == 20);
    CHECK(t.distance(1, 7) == 20);
    CHECK(levels_of(t) == std::vector<distance_t>{10, 11, 20});
    CHECK(t.kind() == numa_kind::backplane);
  }
  SUBCASE("three levels reproduce the seed 000 matrix") {
    const generate::level levels[] = {{2, 12}, {2, 17}, {2, 19}};
    const auto t = generate::hierarchical(levels);
    CHECK(distances_of(t) == distances_of(presets::seed000_8node));
    CHECK(t.kind() == presets::seed000_8node.kind());
  }
  SUBCASE("bad parameters") {
    CHECK(error_of([] { generate::hierarchical({}); }) == "generator hierarchical: needs at least one level");
    CHECK(error_of([] {
            const generate::level levels[] = {{2, 20}, {0, 30}};
            generate::hierarchical(levels);
          }) == "generator hierarchical: level 1 has fan-out 0");
    CHECK(error_of([] {
            const generate::level levels[] = {{32, 20}, {33, 30}};
            generate::hierarchical(levels);
          }) == "generator hierarchical: more than 1024 nodes");
  }
}

TEST_CASE("two_level_backplane") {
  const auto t = generate::two_level_backplane(2, 4, 20, 30);
  CHECK(distances_of(t) == matrix{
                               {10, 20, 20, 20, 30, 30, 30, 30},
                               {20, 10, 20, 20, 30, 30, 30, 30},
                               {20, 20, 10, 20, 30, 30, 30, 30},
                               {20, 20, 20, 10, 30, 30, 30, 30},
                               {30, 30, 30, 30, 10, 20, 20, 20},
                               {30, 30, 30, 30, 20, 10, 20, 20},
                               {30, 30, 30, 30, 20, 20, 10, 20},
                               {30, 30, 30, 30, 20, 20, 20, 10},
                           });
  CHECK(t.kind() == numa_kind::backplane);
  CHECK(t.max_distance() == 30);
  // Equal distances inside and across: one remote level, so direct.
  CHECK(generate::two_level_backplane(3, 2, 20, 20).kind() == numa_kind::direct);
  CHECK(error_of([] { generate::two_level_backplane(0, 4); }) ==
        "generator two_level_backplane: groups and nodes per group must be positive");
  CHECK(error_of([] { generate::two_level_backplane(2, 0); }) ==
        "generator two_level_backplane: groups and nodes per group must be positive");
}

TEST_CASE("from_links") {
  SUBCASE("a line of three: shortest paths") {
    const links_t links{{0, 1}, {1, 2}};
    const auto t = generate::from_links(3, links, 10);
    CHECK(distances_of(t) == matrix{{10, 20, 30}, {20, 10, 20}, {30, 20, 10}});
    CHECK(t.kind() == numa_kind::glueless_mesh);
  }
  SUBCASE("duplicate links change nothing") {
    const links_t links{{0, 1}, {1, 0}, {0, 1}};
    CHECK(distances_of(generate::from_links(2, links, 7)) == matrix{{10, 17}, {17, 10}});
  }
  SUBCASE("an unreachable node") {
    const links_t links{{0, 1}};
    CHECK(error_of([&] { generate::from_links(3, links, 10); }) ==
          "generator from_links: node 2 cannot be reached from node 0");
  }
  SUBCASE("a link to a node that does not exist") {
    const links_t links{{0, 1}, {1, 3}};
    CHECK(error_of([&] { generate::from_links(3, links, 10); }) ==
          "generator from_links: link 1-3 names a node beyond 2");
  }
  SUBCASE("zero per hop, and the generator's own name") {
    const links_t links{{0, 1}};
    CHECK(error_of([&] { generate::from_links(2, links, 0, {}, "mesh"); }) ==
          "generator mesh: distance per hop must be positive");
    CHECK(error_of([&] { generate::from_links(0, links, 10); }) == "generator from_links: needs at least one node");
  }
  SUBCASE("paths too long for a byte-sized distance") {
    links_t links;
    for (std::size_t i = 0; i + 1 < 30; ++i) links.emplace_back(i, i + 1);
    const std::string e = error_of([&] { generate::from_links(30, links, 10); });
    CHECK(e.find("generator from_links: ") == 0);
    CHECK(e.find("row 0, column 25") != std::string::npos);
    CHECK(e.find("outside 10..255") != std::string::npos);
    // 24 hops (250) still fit.
    CHECK(generate::from_links(25, links_t(links.begin(), links.begin() + 24), 10).max_distance() == 250);
  }
}

TEST_CASE("ring") {
  const auto t = generate::ring(4, 10);
  CHECK(distances_of(t) == matrix{{10, 20, 30, 20}, {20, 10, 20, 30}, {30, 20, 10, 20}, {20, 30, 20, 10}});
  CHECK(t.kind() == numa_kind::glueless_mesh);
  const auto neighbours = t.neighbours(0);
  CHECK(std::vector<node_index>(neighbours.begin(), neighbours.end()) == std::vector<node_index>{0, 1, 3, 2});

  CHECK(distances_of(generate::ring(1)) == matrix{{10}});
  CHECK(distances_of(generate::ring(2, 5)) == matrix{{10, 15}, {15, 10}});
  const auto five = generate::ring(5, 10);
  CHECK(five.distance(0, 2) == 30);
  CHECK(five.distance(0, 3) == 30);
  CHECK(five.distance(0, 4) == 20);
  CHECK(five.kind() == numa_kind::glueless_mesh);
  CHECK(error_of([] { generate::ring(0); }) == "generator ring: needs at least one node");
}

TEST_CASE("ladder, straight and twisted") {
  SUBCASE("two rungs make a square") {
    const auto t = generate::ladder(2, false, 6);
    CHECK(distances_of(t) == matrix{{10, 16, 16, 22}, {16, 10, 22, 16}, {16, 22, 10, 16}, {22, 16, 16, 10}});
    CHECK(t.kind() == numa_kind::glueless_mesh);
  }
  SUBCASE("a straight ladder of four rungs: opposite corners are four hops apart") {
    const auto t = generate::ladder(4, false, 6);
    REQUIRE(t.node_count() == 8);
    CHECK(t.distance(0, 3) == 28);  // along a rail
    CHECK(t.distance(0, 4) == 16);  // the rung
    CHECK(t.distance(0, 7) == 34);
    CHECK(t.max_distance() == 34);
    CHECK(levels_of(t) == std::vector<distance_t>{10, 16, 22, 28, 34});
    CHECK(t.kind() == numa_kind::glueless_mesh);
  }
  SUBCASE("twisted: every node within two hops") {
    const auto t = generate::ladder(4, true, 6);
    CHECK(distances_of(t) == matrix{
                                 {10, 16, 22, 22, 16, 22, 22, 16},
                                 {16, 10, 16, 22, 22, 16, 22, 22},
                                 {22, 16, 10, 16, 22, 22, 16, 22},
                                 {22, 22, 16, 10, 16, 22, 22, 16},
                                 {16, 22, 22, 16, 10, 16, 22, 22},
                                 {22, 16, 22, 22, 16, 10, 16, 22},
                                 {22, 22, 16, 22, 22, 16, 10, 16},
                                 {16, 22, 22, 16, 22, 22, 16, 10},
                             });
    CHECK(t.max_distance() == 22);
    CHECK(t.kind() == numa_kind::glueless_mesh);
  }
  SUBCASE("bad parameters name the variant") {
    CHECK(error_of([] { generate::ladder(1, false); }) == "generator ladder: needs at least two rungs");
    CHECK(error_of([] { generate::ladder(1, true); }) == "generator twisted_ladder: needs at least two rungs");
  }
}
