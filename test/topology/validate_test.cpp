// Validation of distance matrices and node attributes: every problem kind is reported with its
// row, column and value; asymmetric matrices are accepted and reported.
#include <doctest/doctest.h>

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/error.hpp>
#include <numaplace/topology/validate.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

using rows_t = std::vector<std::vector<long long>>;

// The topology_error that building `rows` throws (fails the test if none is thrown).
topology_error error_for(const rows_t& rows, std::vector<node_attributes> nodes = {}) {
  try {
    const dynamic_topology t(rows, std::move(nodes));
    FAIL("no topology_error for a matrix of " << rows.size() << " rows, " << t.node_count() << " nodes built");
  } catch (const topology_error& e) {
    return e;
  }
  return topology_error({}, "unreachable");
}

matrix_problem problem_of(const rows_t& rows) {
  return find_matrix_problem(
      rows.size(), [&](std::size_t r) { return rows[r].size(); }, [&](std::size_t r, std::size_t c) { return rows[r][c]; });
}

rows_t uniform(std::size_t n, long long local, long long remote) {
  rows_t rows(n, std::vector<long long>(n, remote));
  for (std::size_t i = 0; i < n; ++i) rows[i][i] = local;
  return rows;
}

std::vector<node_attributes> nodes_with_ids(std::vector<node_id> ids) {
  std::vector<node_attributes> nodes(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) nodes[i].id = ids[i];
  return nodes;
}

// The same checker runs at compile time for static topologies.
constexpr matrix_problem constexpr_problem(long long a, long long b, long long c, long long d) {
  const long long m[2][2] = {{a, b}, {c, d}};
  return find_matrix_problem(2, [](std::size_t) { return std::size_t{2}; },
                             [&](std::size_t r, std::size_t col) { return m[r][col]; });
}
static_assert(!constexpr_problem(10, 20, 20, 10));
static_assert(constexpr_problem(10, 20, 0, 10).kind == matrix_problem_kind::not_positive);
static_assert(constexpr_problem(10, 20, 0, 10).row == 1 && constexpr_problem(10, 20, 0, 10).column == 0);
static_assert(constexpr_problem(10, 256, 20, 10).kind == matrix_problem_kind::out_of_range);
static_assert(constexpr_problem(10, 20, 20, 12).kind == matrix_problem_kind::unequal_local);
static_assert(constexpr_problem(10, 10, 20, 10).kind == matrix_problem_kind::diagonal_not_smallest);

}  // namespace

TEST_CASE("a valid matrix builds, with no problem found") {
  const rows_t rows{{10, 20, 30}, {20, 10, 20}, {30, 20, 10}};
  CHECK_FALSE(problem_of(rows));
  CHECK(problem_of(rows).kind == matrix_problem_kind::none);
  CHECK_NOTHROW(dynamic_topology{rows});
  const dynamic_topology t(rows);
  CHECK(t.node_count() == 3);
  CHECK(t.distance(0, 2) == 30);
  CHECK(t.asymmetries().empty());
}

TEST_CASE("an empty matrix") {
  const auto e = error_for({});
  CHECK(std::string(e.what()) == "distance matrix: the distance matrix is empty");
  CHECK_FALSE(e.where().row.has_value());
  CHECK_FALSE(e.where().column.has_value());
  CHECK(problem_of({}).kind == matrix_problem_kind::empty);
}

TEST_CASE("a matrix that is not square names the row and its length") {
  SUBCASE("a short row") {
    const auto e = error_for({{10, 20}, {20}});
    CHECK(std::string(e.what()) ==
          "distance matrix: row 1: the row has 1 entries but the matrix has 2 rows: a distance matrix must be square");
    CHECK(e.where().row == std::optional<std::size_t>(1));
    CHECK_FALSE(e.where().column.has_value());
    CHECK(e.where().source == "distance matrix");
  }
  SUBCASE("more columns than rows") {
    const auto p = problem_of({{10, 20, 30}, {20, 10, 30}});
    CHECK(p.kind == matrix_problem_kind::not_square);
    CHECK(p.row == 0);
    CHECK(p.value == 3);
    CHECK(p.expected == 2);
  }
  SUBCASE("shape is checked before values") {
    CHECK(problem_of({{-1, 20}, {20, 10, 5}}).kind == matrix_problem_kind::not_square);
  }
}

TEST_CASE("zero and negative distances name the row, column and value") {
  SUBCASE("zero") {
    const auto e = error_for({{10, 20}, {20, 0}});
    CHECK(std::string(e.what()) == "distance matrix: row 1, column 1: distance 0 is not positive");
    CHECK(e.where().row == std::optional<std::size_t>(1));
    CHECK(e.where().column == std::optional<std::size_t>(1));
    CHECK(e.reason() == "distance 0 is not positive");
  }
  SUBCASE("negative") {
    const auto e = error_for({{10, 20, 20}, {20, 10, 20}, {20, -7, 10}});
    CHECK(std::string(e.what()) == "distance matrix: row 2, column 1: distance -7 is not positive");
    const auto p = problem_of({{10, 20, 20}, {20, 10, 20}, {20, -7, 10}});
    CHECK(p.kind == matrix_problem_kind::not_positive);
    CHECK(p.value == -7);
  }
}

TEST_CASE("distances outside 10..255 are rejected as Linux rejects them") {
  CHECK(std::string(error_for({{10, 300}, {300, 10}}).what()) ==
        "distance matrix: row 0, column 1: distance 300 is outside 10..255, the range Linux accepts");
  CHECK(std::string(error_for({{10, 20}, {256, 10}}).what()) ==
        "distance matrix: row 1, column 0: distance 256 is outside 10..255, the range Linux accepts");
  CHECK(std::string(error_for({{9, 20}, {20, 9}}).what()) ==
        "distance matrix: row 0, column 0: distance 9 is outside 10..255, the range Linux accepts");
  CHECK_NOTHROW(dynamic_topology{rows_t{{10, 255}, {255, 10}}});
}

TEST_CASE("local distances must be equal") {
  const auto e = error_for({{10, 20, 20}, {20, 10, 20}, {20, 20, 12}});
  CHECK(std::string(e.what()) == "distance matrix: row 2, column 2: local distance 12 differs from node 0's local distance 10");
  const auto p = problem_of({{10, 20, 20}, {20, 10, 20}, {20, 20, 12}});
  CHECK(p.kind == matrix_problem_kind::unequal_local);
  CHECK(p.value == 12);
  CHECK(p.expected == 10);
}

TEST_CASE("the diagonal must be the smallest entry of its row") {
  SUBCASE("equal to the local distance") {
    const auto e = error_for({{10, 20, 20}, {20, 10, 10}, {20, 10, 10}});
    CHECK(std::string(e.what()) ==
          "distance matrix: row 1, column 2: distance 10 to another node is not larger than the local distance 10");
  }
}

TEST_CASE("the local distance is 10, as SLIT and Linux fix it") {
  const auto p = problem_of({{20, 15}, {15, 20}});
  CHECK(p.kind == matrix_problem_kind::local_not_10);
  CHECK(p.value == 20);
  CHECK(p.expected == 10);
  CHECK(std::string(error_for({{20, 40}, {40, 20}}).what()) ==
        "distance matrix: row 0, column 0: local distance 20 is not 10, the local distance of SLIT and Linux");
}

TEST_CASE("up to 1024 nodes are accepted, 1025 are not") {
  const dynamic_topology big(uniform(1024, 10, 20));
  CHECK(big.node_count() == 1024);
  CHECK(big.distance(1023, 0) == 20);
  CHECK(big.kind() == numa_kind::direct);
  CHECK(big.index_of(1023) == std::optional<node_index>(1023));

  const auto e = error_for(uniform(1025, 10, 20));
  CHECK(std::string(e.what()) == "distance matrix: the distance matrix has 1025 nodes, more than the 1024 supported");
  CHECK_FALSE(e.where().row.has_value());
}

TEST_CASE("asymmetric matrices are accepted and reported") {
  const dynamic_topology t(rows_t{{10, 20, 30}, {21, 10, 20}, {30, 25, 10}});
  CHECK(t.distance(0, 1) == 20);  // used as given, as Linux does
  CHECK(t.distance(1, 0) == 21);
  const auto a = t.asymmetries();
  REQUIRE(a.size() == 2);
  CHECK(a[0].row == 0);
  CHECK(a[0].column == 1);
  CHECK(a[0].forward == 20);
  CHECK(a[0].backward == 21);
  CHECK(a[1].row == 1);
  CHECK(a[1].column == 2);
  CHECK(a[1].forward == 20);
  CHECK(a[1].backward == 25);
}

TEST_CASE("node attributes: count, negative ids and duplicate ids") {
  const rows_t rows = uniform(3, 10, 20);
  SUBCASE("sparse ids are fine and can be looked up") {
    const dynamic_topology t(rows, nodes_with_ids({0, 4, 9}));
    CHECK(t.id_of(2) == 9);
    CHECK(t.index_of(4) == std::optional<node_index>(1));
    CHECK_FALSE(t.index_of(3).has_value());
  }
  SUBCASE("wrong count") {
    const auto e = error_for(rows, nodes_with_ids({0, 1}));
    CHECK(std::string(e.what()) == "node attributes: 2 node records for a 3-node distance matrix");
  }
  SUBCASE("negative id") {
    const auto e = error_for(rows, nodes_with_ids({0, -1, 2}));
    CHECK(std::string(e.what()) == "node attributes: row 1: node id -1 is negative");
    CHECK(e.where().row == std::optional<std::size_t>(1));
  }
  SUBCASE("duplicate id") {
    const auto e = error_for(rows, nodes_with_ids({4, 0, 4}));
    CHECK(e.reason() == "node id 4 appears twice");
    REQUIRE(e.where().row.has_value());
    CHECK((*e.where().row == 0 || *e.where().row == 2));
    CHECK(e.where().source == "node attributes");
  }
}

TEST_CASE("an error can be relocated into a file, keeping row and column") {
  const auto e = error_for({{10, 0}, {20, 10}}).located("machine.txt", 3);
  CHECK(std::string(e.what()) == "machine.txt:3: row 0, column 1: distance 0 is not positive");
  CHECK(e.where().line == 3);
  CHECK(e.reason() == "distance 0 is not positive");
}
