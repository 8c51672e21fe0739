// check_topology: numa_topology's laws on any model. Asymmetry is lawful; each broken law is
// reported at its row and column.
#include <doctest/doctest.h>

#include <numaplace/topology/check_topology.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <cstddef>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

// A model that checks nothing itself: a node count and a row-major matrix, as given.
struct raw_topology {
  std::size_t n;
  std::vector<int> d;
  std::size_t node_count() const { return n; }
  distance_t distance(node_index a, node_index b) const { return static_cast<distance_t>(d[a * n + b]); }
};
static_assert(numa_topology<raw_topology>);

std::string located(const raw_topology& t) { return to_error(check_topology(t), "topology").what(); }

}  // namespace

static_assert(!check_topology(presets::seed000_8node));  // a compile-time topology, checked by the compiler

TEST_CASE("lawful topologies pass, an asymmetric one included") {
  CHECK_FALSE(check_topology(generate::ring(4, 10)));
  CHECK_FALSE(check_topology(dynamic_topology({{10, 20}, {30, 10}})));
  CHECK_FALSE(check_topology(raw_topology{2, {10, 20, 30, 10}}));
}

TEST_CASE("each law, broken, is found where it is broken") {
  CHECK(check_topology(raw_topology{0, {}}).kind == matrix_problem_kind::empty);
  CHECK(check_topology(raw_topology{2, {10, 20, 20, 12}}).kind == matrix_problem_kind::unequal_local);
  CHECK(located(raw_topology{2, {10, 20, 20, 12}}) == "topology: row 1, column 1: local distance 12 differs from node 0's local distance 10");
  CHECK(check_topology(raw_topology{2, {11, 20, 20, 11}}).kind == matrix_problem_kind::local_not_10);
  CHECK(check_topology(raw_topology{2, {10, 10, 20, 10}}).kind == matrix_problem_kind::diagonal_not_smallest);
  CHECK(located(raw_topology{2, {10, 20, 5, 10}}) == "topology: row 1, column 0: distance 5 is outside 10..255, the range Linux accepts");
}
