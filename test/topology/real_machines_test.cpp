// Every real machine in test/data/topologies loads through load::file and classifies as the
// kernel's rule gives. A new file there without an expectation here fails the test.
#include <doctest/doctest.h>

#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/presets.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

struct expectation {
  const char* file;
  std::size_t nodes;
  numa_kind kind;
  distance_t max;
  std::vector<node_id> ids;  // empty: 0..nodes-1
};

const std::vector<expectation>& expectations() {
  static const std::vector<expectation> list = {
      {"intel-xeon-e7-4870-8s-8node-redhat-lkml.txt", 8, numa_kind::backplane, 19, {}},
      {"amd-opteron-6134-4s-8node-supermicro-h8qg6.txt", 8, numa_kind::glueless_mesh, 22, {}},
      {"amd-epyc-7742-2s-nps4-8node-dardel.txt", 8, numa_kind::backplane, 32, {}},
      {"ibm-power7-8node-sparse-ids.txt", 8, numa_kind::backplane, 40, {0, 1, 4, 5, 8, 9, 12, 13}},
      // A plain matrix cannot say that nodes 250-255 are CPU-less GPU memory, so every node
      // counts: levels 10/40/80, and the first far pair (0, 250) at 80 has no node within 80
      // of both (node 0 is 80 from 250, node 8 is 80 from 250): BACKPLANE. The preset, which
      // knows those nodes are CPU-less, is DIRECT with max 40 (see classify_test.cpp).
      {"ibm-power9-ac922-8335gtw-2cpu-6gpu-nodes.txt",
       8,
       numa_kind::backplane,
       80,
       {0, 8, 250, 251, 252, 253, 254, 255}},
      {"intel-xeon-e7-4870-4s-4node-dell-r910.txt", 4, numa_kind::direct, 20, {}},
      {"intel-xeon-gold6230-2s-snc2-4node-dell-r740.txt", 4, numa_kind::backplane, 21, {}},
      {"intel-xeon-e7-4870-8s-8node.numactl", 8, numa_kind::backplane, 19, {}},
      // 10/12/21: the first far pair (0, 4) at 21 has no node closer than 21 to both.
      {"leonardo-dcgp-8node.numactl", 8, numa_kind::backplane, 21, {}},
      // Nodes 2 and 3 are CPU-less CXL expanders: not counted, the two sockets are DIRECT at 21.
      {"intel-spr-2s-cxl-4node.numactl", 4, numa_kind::direct, 21, {}},
  };
  return list;
}

}  // namespace

TEST_CASE("every real machine loads and classifies as the kernel would") {
  const std::filesystem::path folder = std::filesystem::path(NUMAPLACE_TEST_DATA) / "topologies";
  std::set<std::string> seen;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const auto ext = entry.path().extension();
    if (ext == ".txt" || ext == ".numactl") seen.insert(entry.path().filename().string());
  }
  std::set<std::string> expected;
  for (const auto& e : expectations()) expected.insert(e.file);
  CHECK(seen == expected);

  for (const auto& e : expectations()) {
    CAPTURE(e.file);
    const auto t = load::file(folder / e.file);
    REQUIRE(t.node_count() == e.nodes);
    CHECK(t.kind() == e.kind);
    CHECK(t.max_distance() == e.max);
    std::vector<node_id> ids;
    for (node_index i = 0; i < t.node_count(); ++i) ids.push_back(t.id_of(i));
    std::vector<node_id> want = e.ids;
    if (want.empty()) {
      for (std::size_t i = 0; i < e.nodes; ++i) want.push_back(static_cast<node_id>(i));
    }
    CHECK(ids == want);
    CHECK(t.asymmetries().empty());
  }
}

TEST_CASE("the LKML matrix and its numactl output describe the same machine") {
  const std::filesystem::path folder = std::filesystem::path(NUMAPLACE_TEST_DATA) / "topologies";
  const auto matrix = load::file(folder / "intel-xeon-e7-4870-8s-8node-redhat-lkml.txt");
  const auto numactl = load::file(folder / "intel-xeon-e7-4870-8s-8node.numactl");
  REQUIRE(matrix.node_count() == numactl.node_count());
  for (node_index a = 0; a < matrix.node_count(); ++a) {
    for (node_index b = 0; b < matrix.node_count(); ++b) CHECK(matrix.distance(a, b) == numactl.distance(a, b));
  }
  CHECK(matrix.cpus(0).empty());        // a matrix does not know CPU numbers
  CHECK(numactl.cpus(0).size() == 20);  // numactl does
  const auto leonardo = load::file(folder / "leonardo-dcgp-8node.numactl");
  CHECK(leonardo.cpus(7).size() == 14);
  CHECK(leonardo.memory_bytes(0) == std::uint64_t{63565} << 20);
}

TEST_CASE("the CXL preset is the numactl output it cites: distances, CPUs and memory per node") {
  const std::filesystem::path folder = std::filesystem::path(NUMAPLACE_TEST_DATA) / "topologies";
  const auto numactl = load::file(folder / "intel-spr-2s-cxl-4node.numactl");
  const auto* p = presets::find("intel-spr-2s-cxl");
  REQUIRE(p != nullptr);
  const auto preset = p->build();
  REQUIRE(preset.node_count() == numactl.node_count());
  for (node_index a = 0; a < preset.node_count(); ++a) {
    CAPTURE(a);
    for (node_index b = 0; b < preset.node_count(); ++b) CHECK(preset.distance(a, b) == numactl.distance(a, b));
    CHECK(preset.cpus(a).size() == numactl.cpus(a).size());
    CHECK(preset.memory_bytes(a) == numactl.memory_bytes(a));
  }
  CHECK(numactl.cpus(0).size() == 104);
  CHECK(numactl.cpus(2).empty());
  CHECK(numactl.memory_bytes(3) == std::uint64_t{131072} << 20);
}
