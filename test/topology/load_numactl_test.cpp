// The `numactl --hardware` loader: real outputs (wrapped cpu lists, trailing spaces), holes in
// node ids, CPU-less and memory-less nodes, and bad input.
#include <doctest/doctest.h>

#include "../support/topology_errors.hpp"

#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/load_numactl.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace numaplace;
using numaplace::test::error_of;
using numaplace::test::mentions;

namespace {



constexpr std::uint64_t mib = std::uint64_t{1} << 20;

// A small machine with holes in its ids, a CPU-less node (4) and a memory-less node (5).
constexpr const char* holes =
    "available: 4 nodes (0-1,4-5)\n"
    "node 0 cpus: 0 1 2 3\n"
    "node 0 size: 16000 MB\n"
    "node 0 free: 15000 MB\n"
    "node 1 cpus: 4 5 6 7\n"
    "node 1 size: 16000 MB\n"
    "node 1 free: 15000 MB\n"
    "node 4 cpus:\n"
    "node 4 size: 65536 MB\n"
    "node 4 free: 65536 MB\n"
    "node 5 cpus: 8 9\n"
    "node 5 size: 0 MB\n"
    "node 5 free: 0 MB\n"
    "node distances:\n"
    "node   0   1   4   5 \n"
    "  0:  10  20  40  20 \n"
    "  1:  20  10  40  20 \n"
    "  4:  40  40  10  40 \n"
    "  5:  20  20  40  10 \n";

}  // namespace

TEST_CASE("numactl output with holes, a CPU-less node and a memory-less node") {
  const auto t = load::numactl_text(holes);
  REQUIRE(t.node_count() == 4);
  CHECK(t.id_of(0) == 0);
  CHECK(t.id_of(1) == 1);
  CHECK(t.id_of(2) == 4);
  CHECK(t.id_of(3) == 5);
  CHECK(t.distance(0, 2) == 40);
  CHECK(t.distance(3, 0) == 20);
  CHECK(t.has_cpu(0));
  CHECK_FALSE(t.has_cpu(2));
  CHECK(t.cpus(2).empty());
  CHECK(t.has_memory(2));
  CHECK(t.memory_bytes(2) == 65536 * mib);
  CHECK_FALSE(t.has_memory(3));
  CHECK(t.has_cpu(3));
  CHECK(std::vector<unsigned>(t.cpus(3).begin(), t.cpus(3).end()) == std::vector<unsigned>{8, 9});
  CHECK(t.memory_bytes(0) == 16000 * mib);
  // The CPU-less node's 40 is invisible to the modern kernel: 10/20 only, direct.
  CHECK(t.kind() == numa_kind::direct);
  CHECK(t.max_distance() == 20);
}

TEST_CASE("the wrapped cpu lists of the LKML mail") {
  const auto t =
      load::numactl_file(std::string(NUMAPLACE_TEST_DATA) + "/topologies/intel-xeon-e7-4870-8s-8node.numactl");
  REQUIRE(t.node_count() == 8);
  for (node_index i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK(t.cpus(i).size() == 20);
    CHECK(t.has_cpu(i));
    CHECK(t.has_memory(i));
  }
  const auto node2 = t.cpus(2);
  CHECK(std::find(node2.begin(), node2.end(), 109u) != node2.end());
  CHECK(std::find(node2.begin(), node2.end(), 20u) != node2.end());
  CHECK(t.cpus(7).back() == 159);
  CHECK(t.memory_bytes(0) == 64177 * mib);
  CHECK(t.memory_bytes(7) == 64480 * mib);
  CHECK(t.kind() == numa_kind::backplane);
  CHECK(t.max_distance() == 19);
}

TEST_CASE("other numactl forms") {
  SUBCASE("only the table") {
    const auto t = load::numactl_text("node distances:\nnode 0 1\n0: 10 20\n1: 20 10\n");
    CHECK(t.node_count() == 2);
    CHECK(t.has_cpu(1));  // no cpus line: unknown, not CPU-less
  }
  SUBCASE("rows in another order than the header") {
    const auto t = load::numactl_text("node distances:\nnode 0 1 2\n2: 30 20 10\n0: 10 20 30\n1: 20 10 20\n");
    CHECK(t.distance(2, 0) == 30);
    CHECK(t.distance(0, 2) == 30);
    CHECK(t.distance(1, 2) == 20);
  }
  SUBCASE("memory not available and DOS line ends") {
    const auto t = load::numactl_text(
        "available: 1 nodes (0)\r\nnode 0 cpus: 0 1\r\nnode 0 size: <not available>\r\n"
        "node 0 free: <not available>\r\nnode distances:\r\nnode 0\r\n0: 10\r\n");
    CHECK(t.memory_bytes(0) == 0);
    CHECK(t.has_memory(0));
  }
}

TEST_CASE("bad numactl output names the source, the line and the problem") {
  struct bad_case {
    const char* text;
    const char* at;
    const char* says;
  };
  const bad_case cases[] = {
      {"", "n.txt:", "no 'node distances:' table"},
      {"available: 1 nodes (0)\nnode 0 cpus: 0\n", "n.txt:", "no 'node distances:' table"},
      {"node distances:\n", "n.txt:1:", "no header row"},
      {"node distances:\n0: 10\n", "n.txt:2:", "expected the header row"},
      {"node distances:\nnode 0 1\n0: 10 20\n", "n.txt:2:", "no distance row for node 1"},
      {"node distances:\nnode 0 1\n0: 10 20\n1: 20\n", "n.txt:4:", "has 1 distances but the header lists 2"},
      {"node distances:\nnode 0 1\n0: 10 20\n1: 20 10 30\n", "n.txt:4:", "has 3 distances"},
      {"node distances:\nnode 0 1\n0: 10 20\n7: 20 10\n", "n.txt:4:", "row for node 7, which the header does not list"},
      {"node distances:\nnode 0 1\n0: 10 20\n0: 20 10\n", "n.txt:4:", "a second row for node 0"},
      {"node distances:\nnode 0 0\n", "n.txt:2:", "node 0 appears twice"},
      {"node distances:\nnode 0 1\n0: 10 2O\n1: 20 10\n", "n.txt:3:", "'2O' is not a whole number"},
      {"node distances:\nnode 0 1\n0: 10 -20\n1: 20 10\n", "n.txt:3:", "-20 is not positive"},
      {"node distances:\nnode 0 1\n0: 10 65556\n1: 20 10\n", "n.txt:3:", "65556 is outside 10..255"},
      {"node distances:\nnode 0 1\n0: 10 99999999999999999999\n1: 20 10\n", "n.txt:3:", "too large"},
      {"node distances:\nnode 0 1\n0: 10 20\n1: 20 12\n", "n.txt:4:", "local distance 12"},
      {"node distances:\nnode 0 x\n", "n.txt:2:", "'x' is not a whole number"},
      {"node distances:\nnode 0 2000\n", "n.txt:2:", "2000 is larger than 1023"},
      {"node distances:\nnode 0\nzero: 10\n", "n.txt:3:", "node id 'zero' is not a whole number"},
      {"node distances:\nnode 0\n0 10\n", "n.txt:3:", "expected a distance row"},
      {"available: 3 nodes (0-1)\nnode distances:\nnode 0 1\n0: 10 20\n1: 20 10\n", "n.txt:1:", "lists 2"},
      {"available: 3 nodes (0-2)\nnode distances:\nnode 0 1\n0: 10 20\n1: 20 10\n",
       "n.txt:1:", "says 3 nodes but the table has 2"},
      {"available: 2 nodes (0,4)\nnode distances:\nnode 0 1\n0: 10 20\n1: 20 10\n",
       "n.txt:1:", "node 4 is available but not"},
      {"available: two nodes\n", "n.txt:1:", "expected 'available: N nodes (list)'"},
      {"node 0 cpus: 0 1\nnode 0 cpus: 2\n", "n.txt:2:", "a second 'cpus:' line for node 0"},
      {"node 0 cpus: 0 x\n", "n.txt:1:", "CPU number 'x'"},
      {"node 0 cpus: 0 99999\n", "n.txt:1:", "larger than 65535"},
      {"node 0 size: lots\n", "n.txt:1:", "expected a size"},
      {"node 0 size: 12 TB\n", "n.txt:1:", "unknown size unit 'TB'"},
      {"node 0 size: -1 MB\n", "n.txt:1:", "size -1 is negative"},
      {"node 0 size: -0 MB\n", "n.txt:1:", "size -0 has a sign; expected a whole number from 0"},
      {"node distances:\nnode 0 -00\n", "n.txt:2:", "-00 has a sign"},
      {"node 0 size: 18446744073709551615 MB\n", "n.txt:1:", "memory size is too large"},
      {"node 0 flavour: vanilla\n", "n.txt:1:", "unknown line"},
      {"node 0 size: 10 MB\n109\n", "n.txt:2:", "unknown line '109'"},
      {"$ numactl --hardware\n", "n.txt:1:", "unknown line '$ numactl --hardware'"},
      {"No distance information available.\n", "n.txt:1:", "no distance information"},
      {"node 3 cpus: 0\nnode distances:\nnode 0\n0: 10\n",
       "n.txt:1:", "node 3 is described but not in the distance table"},
      {"node 0 cpus: 0 1\nnode 1 cpus: 1 2\nnode distances:\nnode 0 1\n0: 10 20\n1: 20 10\n",
       "n.txt:2:", "CPU 1 is listed for both node 0 and node 1"},
  };
  for (const auto& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    const auto m = error_of([&] { load::numactl_text(c.text, "n.txt"); });
    CAPTURE(m);
    CHECK(mentions(m, c.at));
    CHECK(mentions(m, c.says));
  }
}

TEST_CASE("a corrupt word is quoted by its start and length, not whole") {
  const std::string word(2'000'000, '7');
  const auto m = error_of([&] { load::numactl_text("node 0 cpus: 0 " + word + "\n", "n.txt"); });
  CAPTURE(m.substr(0, 200));
  CHECK(m.size() < 200);
  CHECK(mentions(m, "(2000000 characters) is larger than 65535"));
  const auto line = error_of([&] { load::numactl_text("node 0 " + word + ": 1\n", "n.txt"); });
  CHECK(line.size() < 200);
  CHECK(mentions(line, "unknown line"));
}

TEST_CASE("numactl files: errors name the file") {
  const auto m = error_of([] { load::numactl_file(std::string(NUMAPLACE_TEST_DATA) + "/no-such.numactl"); });
  CHECK(mentions(m, "no-such.numactl"));
  CHECK(mentions(m, "no such file"));
}

TEST_CASE("the free: lines are kept in numactl_details, checked against the size") {
  const std::string dump =
      "available: 2 nodes (0,2)\nnode 0 cpus: 0\nnode 0 size: 1000 MB\nnode 0 free: 100 MB\n"
      "node 2 cpus: 1\nnode 2 size: 1 GB\nnode 2 free: <not available>\nnode distances:\nnode 0 2\n"
      "0: 10 20\n2: 20 10\n";
  load::numactl_details details;
  const dynamic_topology t = load::text(dump, "dump", &details);
  CHECK(t.node_count() == 2);
  REQUIRE(details.free_bytes.size() == 1);
  CHECK(details.free_bytes.at(0) == 100ull << 20);
  CHECK(load::numactl_text(dump, "dump").node_count() == 2);  // details are optional
  std::string twice = dump;
  twice.insert(twice.find("node 2 cpus"), "node 0 free: 90 MB\n");
  CHECK(error_of([&] { load::numactl_text(twice, "dump"); }) == "dump:5: a second 'free:' line for node 0");
  std::string more = dump;
  more.replace(more.find("100 MB"), 6, "1001 MB");
  CHECK(error_of([&] { load::numactl_text(more, "dump"); }) == "dump:4: node 0 has more memory free (1001 MB) than its size (1000 MB)");
}
