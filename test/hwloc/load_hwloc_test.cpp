// The hwloc loader: nodes, CPUs and memory from hwloc objects, distances from its distances API.
#include <doctest/doctest.h>

#include <numaplace/topology/load_hwloc.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hwloc_distances_fixture.hpp"

using namespace numaplace;
using numaplace::load::hwloc_distances_origin;

namespace {

// Seed 000's machine: two quads behind node controllers, BACKPLANE.
const std::vector<std::vector<hwloc_uint64_t>> seed000_rows{
    {10, 12, 17, 17, 19, 19, 19, 19}, {12, 10, 17, 17, 19, 19, 19, 19}, {17, 17, 10, 12, 19, 19, 19, 19},
    {17, 17, 12, 10, 19, 19, 19, 19}, {19, 19, 19, 19, 10, 12, 17, 17}, {19, 19, 19, 19, 12, 10, 17, 17},
    {19, 19, 19, 19, 17, 17, 10, 12}, {19, 19, 19, 19, 17, 17, 12, 10},
};

// A 4-node ring 10/20/30: the kernel's GLUELESS_MESH example.
const std::vector<std::vector<hwloc_uint64_t>> ring4_rows{
    {10, 20, 30, 20}, {20, 10, 20, 30}, {30, 20, 10, 20}, {20, 30, 20, 10}};

std::vector<distance_t> levels_of(const dynamic_topology& t) { return {t.levels().begin(), t.levels().end()}; }

}  // namespace

TEST_CASE("a synthetic topology gives its NUMA nodes, CPUs and memory") {
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc_synthetic("pack:2 numa:2 core:2 pu:2", &details);
  REQUIRE(t.node_count() == 4);
  for (node_index i = 0; i < 4; ++i) {
    CHECK(t.id_of(i) == static_cast<node_id>(i));
    CHECK(t.has_cpu(i));
    CHECK(t.has_memory(i));
    CHECK(t.memory_bytes(i) > 0);
  }
  CHECK(std::vector<unsigned>(t.cpus(0).begin(), t.cpus(0).end()) == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(std::vector<unsigned>(t.cpus(3).begin(), t.cpus(3).end()) == std::vector<unsigned>{12, 13, 14, 15});
}

TEST_CASE("without a distance matrix, 10 local / 20 remote is assumed and reported") {
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc_synthetic("pack:2 numa:2 core:1 pu:1", &details);
  CHECK(details.origin == hwloc_distances_origin::assumed);
  CHECK(details.matrix_name.empty());
  CHECK(t.distance(0, 0) == 10);
  CHECK(t.distance(0, 3) == 20);
  CHECK(t.kind() == numa_kind::direct);
  CHECK(levels_of(t) == std::vector<distance_t>{10, 20});
}

TEST_CASE("a single NUMA node needs no matrix") {
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc_synthetic("pack:1 core:4 pu:1", &details);
  REQUIRE(t.node_count() == 1);
  CHECK(details.origin == hwloc_distances_origin::single_node);
  CHECK(t.kind() == numa_kind::direct);
  CHECK(t.cpus(0).size() == 4);
}

TEST_CASE("an OS latency matrix gives the kernel's kind: backplane") {
  auto topo = load::hwloc_open_synthetic("pack:2 numa:4 core:1 pu:2");
  numaplace_test::add_numa_distances(topo.get(), seed000_rows, numaplace_test::os_latency, "NUMALatency");
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc(topo.get(), &details);
  CHECK(details.origin == hwloc_distances_origin::os_latency);
  CHECK(details.matrix_name == "NUMALatency");
  CHECK(t.kind() == numa_kind::backplane);
  CHECK(levels_of(t) == std::vector<distance_t>{10, 12, 17, 19});
  CHECK(t.max_distance() == 19);
}

TEST_CASE("a user latency matrix gives the kernel's kind: glueless mesh") {
  auto topo = load::hwloc_open_synthetic("numa:4 core:1 pu:1");
  numaplace_test::add_numa_distances(topo.get(), ring4_rows, numaplace_test::user_latency, "ring");
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc(topo.get(), &details);
  CHECK(details.origin == hwloc_distances_origin::latency);
  CHECK(t.kind() == numa_kind::glueless_mesh);
  CHECK(t.max_distance() == 30);
}

TEST_CASE("hwloc's object order is mapped to ours (nodes by OS index)") {
  auto topo = load::hwloc_open_synthetic("numa:4 core:1 pu:1");
  // Rows given for nodes 3 2 1 0: node 3 is 11 from node 2, everything else 20 apart.
  const std::vector<std::vector<hwloc_uint64_t>> reversed{
      {10, 11, 20, 20}, {11, 10, 20, 20}, {20, 20, 10, 20}, {20, 20, 20, 10}};
  numaplace_test::add_numa_distances(topo.get(), reversed, {3, 2, 1, 0}, numaplace_test::os_latency, "reversed");
  const dynamic_topology t = load::hwloc(topo.get());
  CHECK(t.distance(3, 2) == 11);
  CHECK(t.distance(2, 3) == 11);
  CHECK(t.distance(0, 1) == 20);
  CHECK(t.neighbours(3)[1] == 2);
}

TEST_CASE("an OS latency matrix is preferred over a user one") {
  auto topo = load::hwloc_open_synthetic("numa:4 core:1 pu:1");
  numaplace_test::add_numa_distances(topo.get(), ring4_rows, numaplace_test::user_latency, "user");
  numaplace_test::add_numa_distances(topo.get(),
                                     {{10, 21, 21, 21}, {21, 10, 21, 21}, {21, 21, 10, 21}, {21, 21, 21, 10}},
                                     numaplace_test::os_latency, "os");
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc(topo.get(), &details);
  CHECK(details.matrix_name == "os");
  CHECK(t.distance(0, 2) == 21);
}

TEST_CASE("bandwidth matrices and matrices missing nodes are not used") {
  auto topo = load::hwloc_open_synthetic("numa:4 core:1 pu:1");
  numaplace_test::add_numa_distances(
      topo.get(), {{900, 100, 100, 100}, {100, 900, 100, 100}, {100, 100, 900, 100}, {100, 100, 100, 900}},
      numaplace_test::user_bandwidth, "bandwidth");
  numaplace_test::add_numa_distances(topo.get(), {{10, 12}, {12, 10}}, {0, 1}, numaplace_test::os_latency, "half");
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc(topo.get(), &details);
  CHECK(details.origin == hwloc_distances_origin::assumed);
  CHECK(t.distance(0, 1) == 20);
}

TEST_CASE("a matrix Linux would reject is a topology_error naming the hwloc matrix") {
  auto topo = load::hwloc_open_synthetic("numa:2 core:1 pu:1");
  numaplace_test::add_numa_distances(topo.get(), {{10, 300}, {300, 10}}, numaplace_test::os_latency, "NUMALatency");
  CHECK_THROWS_WITH_AS(load::hwloc(topo.get()),
                       doctest::Contains("hwloc distances matrix \"NUMALatency\": row 0, column 1: distance 300"),
                       topology_error);
}

TEST_CASE("an invalid synthetic description is a topology_error naming it") {
  CHECK_THROWS_WITH_AS(load::hwloc_synthetic("pack:two"),
                       doctest::Contains("hwloc synthetic description \"pack:two\": at character 6: expected a count"), topology_error);
}

TEST_CASE("a synthetic description hwloc would take minutes to build is refused first") {
  CHECK_THROWS_WITH_AS(load::hwloc_synthetic("pack:16 numa:4 core:64 pu:4"),
                       doctest::Contains("at character 24: describes more than 8192 processing units"), topology_error);
  CHECK_THROWS_WITH_AS(load::hwloc_synthetic("numa:2 pu:4096"),
                       doctest::Contains("at character 11: '4096': more than 1024 objects in one level"), topology_error);
  CHECK_THROWS_WITH_AS(load::hwloc_synthetic("pack:2 numa:99999999999999999999999 pu:1"),
                       doctest::Contains("more than 1024"), topology_error);
  CHECK_THROWS_WITH_AS(load::hwloc_synthetic(std::string("pack:2 numa:2\0 pu:1", 19)),
                       doctest::Contains("contains a NUL byte"), topology_error);  // found by fuzz_hwloc_synthetic
  CHECK(load::hwloc_synthetic("pack:2 numa:2(memory=4GB) core:16 pu:2").node_count() == 4);
  CHECK(load::hwloc_synthetic("pack:8 numa:2 core:64 pu:8").node_count() == 16);  // 8192 PUs
}

TEST_CASE("a synthetic description is read strictly, so that its bounds cannot be written around") {
  // Each of these is a description hwloc 2.9 accepts and would build (found by fuzz_hwloc_synthetic:
  // "group:1024 numa\322\322\322: 9pu:1" is 9216 NUMA nodes, 12 s under ASan).
  const auto refused = [](const std::string& description, const std::string& what) {
    const std::string expected = "hwloc synthetic description \"" + description + "\": " + what;
    CHECK_THROWS_WITH_AS(load::hwloc_synthetic(description), doctest::Contains(expected.c_str()), topology_error);
  };
  refused("pack:2 numa:0x400 pu:1", "at character 13: expected a count from 1 to 1024 in decimal");
  refused("pack:2 numa:+2 pu:1", "at character 13: expected a count from 1 to 1024 in decimal");
  refused("pack:2 numa:010 pu:1", "at character 13: expected a count from 1 to 1024 in decimal");
  refused("pack:2 numa : 2 pu:1", "at character 12: expected ':' right after the type 'numa'");
  refused("pack:2 numa\t:2 pu:1", "at character 12: expected ':' right after the type 'numa'");
  refused("group:1024 nu\xd2:9 pu:1", "at character 14: expected ':' right after the type 'nu'");
  refused("pack:2 cheese:2 pu:1", "at character 8: 'cheese' is not a hwloc object type");
  refused("pack:2(memory=1GB pu:1", "at character 23: an attribute list is not closed with ')'");
  refused("pack:2 [numa pu:1", "at character 13: expected ']'");
  refused("", "describes no level");
  // The bounds, counted as hwloc would build: NUMA nodes of a level and attached to each object.
  refused("group:2 numa:513 pu:1", "at character 9: describes more than 1024 NUMA nodes");
  refused("group:1024 nu:8 pu:1", "at character 12: describes more than 1024 NUMA nodes");
  refused("pack:1024 [numa][numa] pu:1", "at character 17: describes more than 1024 NUMA nodes");
  refused("pack:8 group:1024 l3:1 l2:1 l1:1 core:1 pu:1", "at character 29: describes more than 32768 objects in all");
  CHECK(load::hwloc_synthetic("group:2 numa:512 pu:1").node_count() == 1024);
  CHECK(load::hwloc_synthetic("pack:2 [numa][numa] core:2 pu:1").node_count() == 4);
  CHECK(load::hwloc_synthetic("(memory=1GB) pack:2(indexes=1,0) [numa(memory=2GB)] l2:2 pu:2").node_count() == 2);
}

TEST_CASE("memory attached beside a node shares its CPUs in hwloc: each CPU gets one node, as in Linux") {
  // Two NUMA nodes on each package (KNL's DDR and MCDRAM, or DRAM and a CXL expander): hwloc
  // lists the package's CPUs under both; Linux shows the second CPU-less (found by
  // fuzz_hwloc_synthetic: CPU 0 was on two nodes).
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc_synthetic("pack:2 [numa][numa] core:2 pu:1", &details);
  REQUIRE(t.node_count() == 4);
  std::vector<unsigned> all;
  for (node_index i = 0; i < t.node_count(); ++i) all.insert(all.end(), t.cpus(i).begin(), t.cpus(i).end());
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(t.has_cpu(0));
  CHECK(!t.has_cpu(1));
  CHECK(t.has_cpu(2));
  CHECK(!t.has_cpu(3));
  CHECK(details.sharing_cpus == std::vector<node_id>{1, 3});

  load::hwloc_details plain;
  (void)load::hwloc_synthetic("pack:2 numa:2 core:2 pu:1", &plain);
  CHECK(plain.sharing_cpus.empty());
}

TEST_CASE("a hwloc topology with more NUMA nodes than numaplace numbers is refused before a matrix is built") {
  // Built by hwloc directly (an XML file could say the same): 1026 nodes.
  hwloc_topology_t raw = nullptr;
  REQUIRE(hwloc_topology_init(&raw) == 0);
  const load::hwloc_topology_ptr t(raw);
  REQUIRE(hwloc_topology_set_synthetic(raw, "group:2 numa:513 pu:1") == 0);
  REQUIRE(hwloc_topology_load(raw) == 0);
  CHECK_THROWS_WITH_AS(load::hwloc(raw), doctest::Contains("hwloc reports 1026 NUMA nodes, more than the 1024 supported"),
                       topology_error);
}

TEST_CASE("a hwloc XML file: nodes, CPUs, memory and its OS latency matrix") {
  const std::string data = NUMAPLACE_TEST_DATA;
  load::hwloc_details details;
  const dynamic_topology t = load::hwloc_xml(data + "/hwloc/backplane-4node-os-latency.xml", &details);
  REQUIRE(t.node_count() == 4);
  CHECK(details.origin == hwloc_distances_origin::os_latency);
  CHECK(details.matrix_name == "NUMALatency");
  CHECK(t.distance(0, 1) == 12);
  CHECK(t.distance(0, 2) == 32);
  CHECK(std::vector<unsigned>(t.cpus(1).begin(), t.cpus(1).end()) == std::vector<unsigned>{2, 3});
  CHECK(t.memory_bytes(3) == (std::uint64_t{1} << 30));

  // lstopo --if synthetic --input "pack:2 numa:2 core:2 pu:1" --of xml: no distances.
  const dynamic_topology plain = load::hwloc_xml(data + "/hwloc/pack2-numa2-core2.xml", &details);
  CHECK(plain.node_count() == 4);
  CHECK(details.origin == hwloc_distances_origin::assumed);
  CHECK(plain.distance(0, 3) == 20);
}

TEST_CASE("a missing, a folder or a non-XML file is a topology_error naming the file") {
  const std::string data = NUMAPLACE_TEST_DATA;
  CHECK_THROWS_WITH_AS(load::hwloc_xml(data + "/hwloc/no-such.xml"), doctest::Contains("no-such.xml: no such file"),
                       topology_error);
  CHECK_THROWS_WITH_AS(load::hwloc_xml(data + "/hwloc"), doctest::Contains("is a folder"), topology_error);
  const std::string not_xml = data + "/topologies/intel-xeon-e7-4870-4s-4node-dell-r910.txt";
  CHECK_THROWS_WITH_AS(load::hwloc_xml(not_xml),
                       doctest::Contains((not_xml + ": hwloc cannot read it as a topology XML file").c_str()), topology_error);
}

TEST_CASE("a bad matrix in a XML file names the file and the matrix") {
  const std::string file = std::string(NUMAPLACE_TEST_DATA) + "/fuzz/hwloc-xml/invalid-distances.xml";
  CHECK_THROWS_WITH_AS(load::hwloc_xml(file), doctest::Contains((file + ": hwloc distances matrix").c_str()), topology_error);
}

TEST_CASE("this machine loads") {
  const dynamic_topology t = load::hwloc_this_machine();
  CHECK(t.node_count() >= 1);
  CHECK(t.local_distance() == 10);
}
