// Classification as the kernel's sched_init_numa() and init_numa_topology_type() do it, per era.
#include <doctest/doctest.h>

#include <numaplace/topology/classify.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/static_topology.hpp>

#include <vector>

using namespace numaplace;

// Compile-time facts: the headline requirement.
static_assert(classify(presets::seed000_8node).kind == numa_kind::backplane);
static_assert(presets::seed000_8node.max_distance() == 19);
static_assert(presets::amd_opteron_8node.kind() == numa_kind::glueless_mesh);
static_assert(presets::direct_4node.kind() == numa_kind::direct);

namespace {
std::vector<distance_t> levels_of(const classification& c) { return {c.levels.begin(), c.levels.end()}; }
}  // namespace

TEST_CASE("worked examples, one or more per kind") {
  SUBCASE("4 nodes all 20 apart: direct now, direct in v3.19, backplane in the v4.16 window") {
    const auto& t = presets::direct_4node;
    CHECK(classify(t).kind == numa_kind::direct);
    CHECK(levels_of(classify(t)) == std::vector<distance_t>{10, 20});
    CHECK(classify(t, kernel_era::v3_19).kind == numa_kind::direct);
    CHECK(levels_of(classify(t, kernel_era::v3_19)) == std::vector<distance_t>{20});
    CHECK(classify(t, kernel_era::v4_16).kind == numa_kind::backplane);
  }
  SUBCASE("AMD Opteron 10/16/22 is a glueless mesh") {
    const auto c = classify(presets::amd_opteron_8node);
    CHECK(c.kind == numa_kind::glueless_mesh);
    CHECK(c.max_distance == 22);
    CHECK(levels_of(c) == std::vector<distance_t>{10, 16, 22});
  }
  SUBCASE("2 groups x 4 nodes, 20 inside, 30 across, is a backplane") {
    const auto t = generate::two_level_backplane(2, 4, 20, 30);
    CHECK(t.kind() == numa_kind::backplane);
    CHECK(t.max_distance() == 30);
  }
  SUBCASE("a 4-node ring 10/20/30 is a glueless mesh") {
    const auto t = generate::ring(4, 10);
    CHECK(t.kind() == numa_kind::glueless_mesh);
    CHECK(levels_of(t.classification_info()) == std::vector<distance_t>{10, 20, 30});
  }
}

TEST_CASE("a single node is direct with no remote level") {
  const auto t = make_static_topology({{10}});
  CHECK(classify(t).kind == numa_kind::direct);
  CHECK(classify(t).max_distance == 10);
  CHECK(classify(t, kernel_era::v3_19).max_distance == 0);
  CHECK(classify(t, kernel_era::v3_19).levels.empty());
}

TEST_CASE("old kernels read node 0's row only; modern ones every pair") {
  // Distance 30 appears only between nodes 1 and 2: invisible to a row-0 scan.
  const dynamic_topology t({{10, 20, 20}, {20, 10, 30}, {20, 30, 10}});
  CHECK(levels_of(classify(t)) == std::vector<distance_t>{10, 20, 30});
  CHECK(classify(t).max_distance == 30);
  CHECK(classify(t).kind == numa_kind::glueless_mesh);  // node 0 is within 20 of both
  CHECK(levels_of(classify(t, kernel_era::v3_19)) == std::vector<distance_t>{20});
  CHECK(classify(t, kernel_era::v3_19).kind == numa_kind::direct);
}

TEST_CASE("the first far pair decides, in (a, b) order") {
  // Pair (0,3) at 30 has node 1 within reach of both: glueless. Pair (4,5) at 30 would be a
  // backplane pair, but the kernel never looks at it.
  const dynamic_topology t({
      {10, 20, 20, 30, 30, 30},
      {20, 10, 20, 20, 30, 30},
      {20, 20, 10, 20, 30, 30},
      {30, 20, 20, 10, 30, 30},
      {30, 30, 30, 30, 10, 30},
      {30, 30, 30, 30, 30, 10},
  });
  CHECK(t.kind() == numa_kind::glueless_mesh);
}

TEST_CASE("CPU-less nodes are ignored by the modern kernel only") {
  const auto t = presets::find("ibm-power9-gpu")->build();
  CHECK_FALSE(t.has_cpu(2));
  CHECK(classify(t).kind == numa_kind::direct);
  CHECK(classify(t).max_distance == 40);
  CHECK(classify(t, kernel_era::v3_19).max_distance == 80);
  CHECK(classify(t, kernel_era::v3_19).kind == numa_kind::backplane);
}

TEST_CASE("is_level is the kernel's find_numa_distance") {
  const auto c = classify(presets::seed000_8node);
  CHECK(c.is_level(10));
  CHECK(c.is_level(17));
  CHECK_FALSE(c.is_level(18));
}

TEST_CASE("every preset classifies as documented") {
  struct expectation {
    const char* name;
    numa_kind kind;
    distance_t max;
  };
  const expectation expected[] = {
      {"seed000-8node", numa_kind::backplane, 19},     {"seed001-4node", numa_kind::direct, 20},
      {"seed002-ht", numa_kind::direct, 20},           {"seed003-4node", numa_kind::direct, 20},
      {"seed004-2socket", numa_kind::direct, 20},      {"amd-opteron-8node", numa_kind::glueless_mesh, 22},
      {"intel-r910-4node", numa_kind::direct, 20},     {"amd-epyc-7742-nps4", numa_kind::backplane, 32},
      {"ibm-power7-sparse", numa_kind::backplane, 40}, {"ibm-power9-gpu", numa_kind::direct, 40},
      {"intel-gold6230-snc2", numa_kind::backplane, 21},
      // The CXL nodes have no CPUs and do not count: two sockets at 21.
      {"intel-spr-2s-cxl", numa_kind::direct, 21},
  };
  CHECK(presets::all().size() == std::size(expected));
  for (const auto& e : expected) {
    CAPTURE(e.name);
    const auto* p = presets::find(e.name);
    REQUIRE(p != nullptr);
    const auto t = p->build();
    CHECK(t.kind() == e.kind);
    CHECK(t.max_distance() == e.max);
  }
  CHECK(presets::find("no-such-machine") == nullptr);
}
