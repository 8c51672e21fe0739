// Compile-time topologies: facts the compiler derives (static_assert) checked again at run time,
// sparse node ids, neighbour order, and the dynamic copy of a static topology.
#include <doctest/doctest.h>

#include <numaplace/topology/classify.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/static_topology.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

using namespace numaplace;

namespace {

// Four nodes with OS ids 0, 2, 5, 9 (holes, as on machines with offline or absent nodes):
// two pairs 16 apart inside, 22 across, except 0-3 at 28.
constexpr static_topology<4> sparse{
    {{{10, 16, 22, 28}, {16, 10, 22, 22}, {22, 22, 10, 16}, {28, 22, 16, 10}}}, {0, 2, 5, 9}};

template <std::size_t N>
constexpr bool same_order(std::span<const node_index> got, const std::array<node_index, N>& want) {
  if (got.size() != N) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (got[i] != want[i]) return false;
  }
  return true;
}

std::vector<node_index> to_vector(std::span<const node_index> s) { return {s.begin(), s.end()}; }

// --- what the compiler knows ---
static_assert(sparse.node_count() == 4);
static_assert(sparse.id_of(0) == 0 && sparse.id_of(1) == 2 && sparse.id_of(2) == 5 && sparse.id_of(3) == 9);
static_assert(sparse.distance(0, 3) == 28 && sparse.distance(3, 0) == 28);
static_assert(sparse.local_distance() == 10);
static_assert(sparse.max_distance() == 28);
static_assert(sparse.levels().size() == 4);  // 10, 16, 22, 28
static_assert(sparse.levels()[1] == 16 && sparse.levels().back() == 28);
// Pair (0,3) at 28: node 1 is 16 from 0 and 22 from 3, both nearer: a glueless mesh.
static_assert(sparse.kind() == numa_kind::glueless_mesh);
static_assert(sparse.classification_info() == classify(sparse));
static_assert(same_order(sparse.neighbours(0), std::array<node_index, 4>{0, 1, 2, 3}));
static_assert(same_order(sparse.neighbours(3), std::array<node_index, 4>{3, 2, 1, 0}));
static_assert(same_order(sparse.neighbours(1), std::array<node_index, 4>{1, 0, 2, 3}));  // ties by index
static_assert(same_order(presets::amd_opteron_8node.neighbours(0), std::array<node_index, 8>{0, 1, 2, 4, 6, 3, 5, 7}));
static_assert(presets::ibm_power7_sparse.id_of(7) == 13);
static_assert(static_topology<1>::node_count() == 1);
static_assert(make_static_topology({{10, 20}, {20, 10}}).kind() == numa_kind::direct);

}  // namespace

TEST_CASE("a static topology's facts, checked again at run time") {
  // A run-time copy, so these checks read memory rather than fold to constants.
  const auto t = sparse;
  CHECK(t.node_count() == 4);
  CHECK(t.id_of(1) == 2);
  CHECK(t.id_of(3) == 9);
  CHECK(t.distance(1, 3) == 22);
  CHECK(t.max_distance() == 28);
  CHECK(t.kind() == numa_kind::glueless_mesh);
  CHECK(std::vector<distance_t>(t.levels().begin(), t.levels().end()) == std::vector<distance_t>{10, 16, 22, 28});
  CHECK(t.classification_info() == classify(t));
  CHECK(to_vector(t.neighbours(0)) == std::vector<node_index>{0, 1, 2, 3});
  CHECK(to_vector(t.neighbours(1)) == std::vector<node_index>{1, 0, 2, 3});
  CHECK(to_vector(t.neighbours(2)) == std::vector<node_index>{2, 3, 0, 1});
  CHECK(to_vector(t.neighbours(3)) == std::vector<node_index>{3, 2, 1, 0});
}

TEST_CASE("make_static_topology and the constructor agree") {
  constexpr auto made = make_static_topology({{10, 12, 32, 32}, {12, 10, 32, 32}, {32, 32, 10, 12}, {32, 32, 12, 10}});
  constexpr static_topology<4> built{{{{10, 12, 32, 32}, {12, 10, 32, 32}, {32, 32, 10, 12}, {32, 32, 12, 10}}}};
  static_assert(made.kind() == numa_kind::backplane);
  const auto a = made;
  const auto b = built;
  for (node_index r = 0; r < 4; ++r) {
    for (node_index c = 0; c < 4; ++c) CHECK(a.distance(r, c) == b.distance(r, c));
    CHECK(a.id_of(r) == r);
    CHECK(to_vector(a.neighbours(r)) == to_vector(b.neighbours(r)));
  }
  CHECK(a.classification_info() == b.classification_info());
  CHECK(a.kind() == numa_kind::backplane);
}

TEST_CASE("a dynamic topology made from a static one is the same machine") {
  const auto check_same = [](const auto& s) {
    const dynamic_topology d(s);
    REQUIRE(d.node_count() == s.node_count());
    for (node_index a = 0; a < s.node_count(); ++a) {
      CAPTURE(a);
      CHECK(d.id_of(a) == s.id_of(a));
      CHECK(d.index_of(s.id_of(a)) == std::optional<node_index>(a));
      for (node_index b = 0; b < s.node_count(); ++b) CHECK(d.distance(a, b) == s.distance(a, b));
      CHECK(to_vector(d.neighbours(a)) == to_vector(s.neighbours(a)));
    }
    CHECK(d.classification_info() == s.classification_info());
    CHECK(d.asymmetries().empty());
  };
  check_same(sparse);
  check_same(presets::seed000_8node);
  check_same(presets::amd_opteron_8node);
  check_same(presets::ibm_power7_sparse);

  const dynamic_topology d(sparse);
  CHECK(d.index_of(5) == std::optional<node_index>(2));
  CHECK_FALSE(d.index_of(1).has_value());  // a hole
  CHECK_FALSE(d.index_of(10).has_value());
}

TEST_CASE("classification of static presets in older kernel eras, at compile time and run time") {
  constexpr auto v416 = classify(presets::direct_4node, kernel_era::v4_16);
  static_assert(v416.kind == numa_kind::backplane);
  const auto t = presets::direct_4node;
  CHECK(classify(t, kernel_era::v4_16).kind == numa_kind::backplane);
  CHECK(classify(t, kernel_era::v3_19).kind == numa_kind::direct);
  CHECK(classify(t).kind == numa_kind::direct);
}
