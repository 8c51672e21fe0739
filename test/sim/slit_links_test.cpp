// Links and routes read off SLIT (slit_links.hpp) for machines nobody described: the link sets
// and routes of the kinds of tables machines print. from_slit()'s use of them is in
// cost_model_test.cpp.
#include <doctest/doctest.h>

#include <numaplace/sim/machine_costs.hpp>
#include <numaplace/sim/random.hpp>
#include <numaplace/sim/slit_links.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <utility>
#include <vector>

using namespace numaplace;
using namespace numaplace::sim;

namespace {

using route_table = std::vector<std::vector<std::uint32_t>>;

// Every pair of `n` nodes, lower index first, in nearest_links()'s order.
std::vector<node_pair> every_pair(std::size_t n) {
  std::vector<node_pair> out;
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = a + 1; b < n; ++b) out.emplace_back(a, b);
  }
  return out;
}

// The link joining a and b in `links`.
std::uint32_t link_of(const std::vector<node_pair>& links, node_index a, node_index b) {
  const auto it = std::find(links.begin(), links.end(), node_pair(std::min(a, b), std::max(a, b)));
  REQUIRE(it != links.end());
  return static_cast<std::uint32_t>(it - links.begin());
}

// Every route is the one link joining its two nodes.
void check_direct_routes(const dynamic_topology& t, const std::vector<node_pair>& links, const route_table& routes) {
  const std::size_t n = t.node_count();
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = 0; b < n; ++b) {
      INFO(a << " -> " << b);
      if (a == b) CHECK(routes[a * n + b].empty());
      else CHECK(routes[a * n + b] == std::vector<std::uint32_t>{link_of(links, a, b)});
    }
  }
}

// The route from a to b as the nodes it passes, a first.
std::vector<node_index> nodes_on(const std::vector<node_pair>& links, const route_table& routes, std::size_t n,
                                 node_index a, node_index b) {
  std::vector<node_index> out{a};
  for (const auto l : routes[a * n + b]) out.push_back(links[l].first == out.back() ? links[l].second : links[l].first);
  return out;
}

}  // namespace

TEST_CASE("SLIT links: an all-equal table is a full mesh, every pair one link apart") {
  const dynamic_topology t = generate::fully_connected(4, 20);
  const auto links = nearest_links(t);
  CHECK(links == every_pair(4));
  check_direct_routes(t, links, cheapest_routes(t, links));
}

TEST_CASE("SLIT links: a backplane table (seed 000's 10/12/17/19) is a full mesh too") {
  // 19 - 10 = 9 straight across the quads; through the partner first, 2 + 9 = 11.
  const dynamic_topology t = presets::find("seed000-8node")->build();
  const auto links = nearest_links(t);
  CHECK(links == every_pair(8));
  check_direct_routes(t, links, cheapest_routes(t, links));
  const dynamic_topology two_level = generate::two_level_backplane(2, 4, 12, 20);
  CHECK(nearest_links(two_level) == every_pair(8));
}

TEST_CASE("SLIT links: a ring's table gives the ring back, routed the short way round") {
  const dynamic_topology t = generate::ring(6);
  const auto links = nearest_links(t);
  CHECK(links == std::vector<node_pair>{{0, 1}, {0, 5}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
  const auto routes = cheapest_routes(t, links);
  CHECK(nodes_on(links, routes, 6, 0, 2) == std::vector<node_index>{0, 1, 2});
  CHECK(nodes_on(links, routes, 6, 0, 4) == std::vector<node_index>{0, 5, 4});
  CHECK(nodes_on(links, routes, 6, 4, 1) == std::vector<node_index>{4, 5, 0, 1});
  // Halfway round both ways cost 30: the tie goes to the way found first, by lower nodes.
  CHECK(nodes_on(links, routes, 6, 0, 3) == std::vector<node_index>{0, 1, 2, 3});
  CHECK(nodes_on(links, routes, 6, 3, 0) == std::vector<node_index>{3, 2, 1, 0});
}

TEST_CASE("SLIT links: a generated 3x3 mesh gives its links back, routed along its rows and columns") {
  std::vector<std::pair<std::size_t, std::size_t>> grid;
  for (std::size_t y = 0; y < 3; ++y) {
    for (std::size_t x = 0; x < 3; ++x) {
      if (x + 1 < 3) grid.emplace_back(y * 3 + x, y * 3 + x + 1);
      if (y + 1 < 3) grid.emplace_back(y * 3 + x, (y + 1) * 3 + x);
    }
  }
  const dynamic_topology t = generate::from_links(9, grid, 10);
  const auto links = nearest_links(t);
  std::vector<node_pair> given;
  for (const auto& [a, b] : grid) given.emplace_back(node_index(a), node_index(b));
  std::sort(given.begin(), given.end());
  CHECK(links == given);
  const auto routes = cheapest_routes(t, links);
  for (node_index a = 0; a < 9; ++a) {
    for (node_index b = 0; b < 9; ++b) {
      // As many links as the Manhattan distance, each one step along a row or a column.
      const auto on = nodes_on(links, routes, 9, a, b);
      const std::size_t manhattan = std::size_t(std::abs(int(a % 3) - int(b % 3)) + std::abs(int(a / 3) - int(b / 3)));
      CHECK(on.size() == manhattan + 1);
      CHECK(on.back() == b);
    }
  }
  // Corner to corner: four steps, and the tie goes first along the row of lower nodes.
  CHECK(nodes_on(links, routes, 9, 0, 8) == std::vector<node_index>{0, 1, 2, 5, 8});
}

TEST_CASE("SLIT routes take the least distance, not the fewest links") {
  // A chain 0-1-2-3 of short links (2 each over local) and a detour 0-4-3 of long ones (5
  // each): 0 to 3 costs 6 along the chain and 10 over the detour, though the detour is shorter
  // in links.
  const dynamic_topology t({{10, 12, 14, 16, 15},
                            {12, 10, 12, 14, 17},
                            {14, 12, 10, 12, 17},
                            {16, 14, 12, 10, 15},
                            {15, 17, 17, 15, 10}});
  const auto links = nearest_links(t);
  CHECK(links == std::vector<node_pair>{{0, 1}, {0, 4}, {1, 2}, {2, 3}, {3, 4}});
  const auto routes = cheapest_routes(t, links);
  CHECK(nodes_on(links, routes, 5, 0, 3) == std::vector<node_index>{0, 1, 2, 3});
  CHECK(nodes_on(links, routes, 5, 1, 4) == std::vector<node_index>{1, 0, 4});
  // The fewest-link routes a preset's links get would take the detour.
  machine_costs fewest;
  fewest.node_bandwidth_gbs.assign(5, 10.0);
  for (const auto& [a, b] : links) fewest.links.push_back({a, b, 1.0});
  complete_routes(fewest);
  CHECK(fewest.route(0, 3).size() == 2);
}

TEST_CASE("SLIT links join every node to every other, for any valid table") {
  random_engine rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 2 + random_index(rng, 11);
    std::vector<std::vector<long long>> rows(n, std::vector<long long>(n, 10));
    const bool symmetric = trial % 2 == 0;
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (a == b || (symmetric && b < a)) continue;
        rows[a][b] = 11 + static_cast<long long>(random_index(rng, 60));
        if (symmetric) rows[b][a] = rows[a][b];
      }
    }
    const dynamic_topology t(rows);
    const auto links = nearest_links(t);
    const auto routes = cheapest_routes(t, links);
    for (node_index a = 0; a < n; ++a) {
      for (node_index b = 0; b < n; ++b) {
        INFO("trial " << trial << ": " << a << " -> " << b);
        CHECK((a == b) == routes[a * n + b].empty());
        CHECK(nodes_on(links, routes, n, a, b).back() == b);
      }
    }
  }
}
