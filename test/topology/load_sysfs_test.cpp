// The sysfs loader on fixture trees under test/data/sysfs (see its README): holes in node ids,
// a CXL-style CPU-less memory node, an offline node, the seed 000 machine, and broken trees.
#include <doctest/doctest.h>

#include "../support/topology_errors.hpp"

#include <numaplace/topology/load_matrix.hpp>
#include <numaplace/topology/load_sysfs.hpp>
#include <numaplace/topology/presets.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

using namespace numaplace;
using numaplace::test::error_of;
using numaplace::test::mentions;

namespace {



std::string tree(const char* name) { return std::string(NUMAPLACE_TEST_DATA) + "/sysfs/" + name; }

std::vector<unsigned> cpus_of(const dynamic_topology& t, node_index i) { return {t.cpus(i).begin(), t.cpus(i).end()}; }

constexpr std::uint64_t kib = 1024;

}  // namespace

TEST_CASE("sysfs: node ids with holes") {
  const auto t = load::sysfs(tree("holes"));
  REQUIRE(t.node_count() == 3);
  CHECK(t.id_of(0) == 0);
  CHECK(t.id_of(1) == 2);
  CHECK(t.id_of(2) == 3);
  CHECK(t.index_of(3) == node_index{2});
  CHECK_FALSE(t.index_of(1).has_value());
  CHECK(cpus_of(t, 1) == std::vector<unsigned>{4, 5, 6, 7});
  CHECK(t.memory_bytes(2) == 8388608 * kib);
  CHECK(t.kind() == numa_kind::direct);
  CHECK(t.max_distance() == 20);
}

TEST_CASE("sysfs: a CXL memory node without CPUs") {
  const auto t = load::sysfs(tree("cxl"));
  REQUIRE(t.node_count() == 3);
  CHECK(t.has_cpu(0));
  CHECK(t.has_cpu(1));
  CHECK_FALSE(t.has_cpu(2));
  CHECK(t.cpus(2).empty());
  CHECK(t.has_memory(2));
  CHECK(t.memory_bytes(2) == 134217728 * kib);
  CHECK(t.distance(0, 2) == 50);
  // The modern kernel sees only nodes 0 and 1: a direct 10/20 box.
  CHECK(t.kind() == numa_kind::direct);
  CHECK(t.max_distance() == 20);
  // The same distances with every node CPU-bearing: 50 becomes the far level and no node is
  // within 50 of both 0 and 2, so the kernel would call it a backplane.
  const auto all_cpu = load::matrix_text("10 20 50\n20 10 50\n50 50 10\n");
  CHECK(all_cpu.kind() == numa_kind::backplane);
  CHECK(all_cpu.max_distance() == 50);
}

TEST_CASE("sysfs: an offline node's folder is skipped") {
  // node2's folder holds a garbage distance file: reading it would fail.
  const auto t = load::sysfs(tree("offline"));
  REQUIRE(t.node_count() == 2);
  CHECK(t.id_of(1) == 1);
  CHECK_FALSE(t.index_of(2).has_value());
  // No has_cpu / has_memory files: every online node is taken to have both.
  CHECK(t.has_cpu(1));
  CHECK(t.has_memory(1));
  CHECK(t.memory_bytes(1) == 0);  // no meminfo: unknown
  CHECK(t.max_distance() == 21);
}

TEST_CASE("sysfs: the seed 000 machine as a full tree") {
  const auto t = load::sysfs(tree("seed000"));
  const auto& preset = presets::seed000_8node;
  REQUIRE(t.node_count() == 8);
  for (node_index a = 0; a < 8; ++a) {
    for (node_index b = 0; b < 8; ++b) CHECK(t.distance(a, b) == preset.distance(a, b));
    CHECK(t.cpus(a).size() == 20);
  }
  CHECK(cpus_of(t, 2).front() == 20);
  CHECK(cpus_of(t, 2).back() == 109);
  CHECK(t.memory_bytes(0) == std::uint64_t{64177} << 20);
  CHECK(t.kind() == numa_kind::backplane);
  CHECK(t.max_distance() == 19);
}

TEST_CASE("sysfs: broken trees name the file and the problem") {
  SUBCASE("a truncated distance row") {
    const auto m = error_of([] { load::sysfs(tree("bad-truncated-row")); });
    CHECK(mentions(m, "node1/distance:1:"));
    CHECK(mentions(m, "has 1 distances but 2 nodes are online"));
  }
  SUBCASE("a garbage cpulist") {
    const auto m = error_of([] { load::sysfs(tree("bad-cpulist")); });
    CHECK(mentions(m, "node1/cpulist:1:"));
    CHECK(mentions(m, "'x' is not a number"));
  }
  SUBCASE("a missing distance file") {
    const auto m = error_of([] { load::sysfs(tree("bad-missing-distance")); });
    CHECK(mentions(m, "node1/distance"));
    CHECK(mentions(m, "no such file"));
  }
  SUBCASE("a distance Linux would reject") {
    const auto m = error_of([] { load::sysfs(tree("bad-distance-value")); });
    CHECK(mentions(m, "node1/distance:1:"));
    CHECK(mentions(m, "row 1, column 1"));
    CHECK(mentions(m, "300 is outside 10..255"));
  }
  SUBCASE("an online node without its folder") {
    const auto m = error_of([] { load::sysfs(tree("bad-missing-folder")); });
    CHECK(mentions(m, "bad-missing-folder/node1"));
    CHECK(mentions(m, "node 1 is online but its folder is missing"));
  }
  SUBCASE("no such tree") {
    const auto m = error_of([] { load::sysfs(tree("no-such-tree")); });
    CHECK(mentions(m, "no-such-tree"));
    CHECK(mentions(m, "no such folder"));
  }
  SUBCASE("a file where the tree should be") {
    const auto m = error_of([] { load::sysfs(tree("holes/online")); });
    CHECK(mentions(m, "is not a folder"));
  }
}

namespace {

// A throw-away sysfs tree for the cases not worth a fixture folder each.
class scratch_tree {
 public:
  explicit scratch_tree(const std::vector<std::pair<std::string, std::string>>& files) {
    root_ = std::filesystem::temp_directory_path() /
            ("numaplace-sysfs-" + std::to_string(std::random_device{}()) + "-" + std::to_string(counter()++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    for (const auto& [name, content] : files) {
      const auto path = root_ / name;
      std::filesystem::create_directories(path.parent_path());
      std::ofstream(path) << content;
    }
  }
  scratch_tree(const scratch_tree&) = delete;
  scratch_tree& operator=(const scratch_tree&) = delete;
  ~scratch_tree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::filesystem::path& root() const { return root_; }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path root_;
};

std::string sysfs_error(const std::vector<std::pair<std::string, std::string>>& files) {
  const scratch_tree t(files);
  return error_of([&] { load::sysfs(t.root()); });
}

}  // namespace

TEST_CASE("sysfs: more broken trees") {
  const std::pair<std::string, std::string> node0{"node0/distance", "10 20\n"};
  const std::pair<std::string, std::string> node1{"node1/distance", "20 10\n"};
  struct bad_case {
    std::vector<std::pair<std::string, std::string>> files;
    const char* at;
    const char* says;
  };
  const bad_case cases[] = {
      {{{"online", "1-0\n"}, node0, node1}, "online:1:", "reversed range '1-0'"},
      {{{"online", "zero\n"}, node0, node1}, "online:1:", "'zero' is not a number"},
      {{{"online", "\n"}, node0, node1}, "online:1:", "no online nodes"},
      {{{"online", "0-1,2000\n"}, node0, node1}, "online:1:", "node id 2000 is outside 0..1023"},
      {{{"online", "0-1\n"}, {"has_cpu", "0,?\n"}, node0, node1}, "has_cpu:1:", "'?' is not a number"},
      {{{"online", "0-1\n"}, {"has_memory", "0-\n"}, node0, node1}, "has_memory:1:", "'0-' is not a number"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "\n"}}, "node1/distance", "is empty"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "20 10\n20 10\n"}}, "node1/distance:2:", "more than one line"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "20 10 30\n"}}, "node1/distance:1:", "has 3 distances but 2"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "20 ten\n"}},
       "node1/distance:1:",
       "'ten' is not a whole number"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "-20 10\n"}}, "node1/distance:1:", "-20 is not positive"},
      {{{"online", "0-1\n"}, node0, {"node1/distance", "20 99999999999999999999\n"}}, "node1/distance:1:", "too large"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/cpulist", "9-4\n"}}, "node1/cpulist:1:", "reversed range '9-4'"},
      {{{"online", "0-1\n"}, node0, node1, {"node0/cpulist", "0-3\n"}, {"node1/cpulist", "3-5\n"}},
       "node1/cpulist:1:",
       "CPU 3 is listed for both node 0 and node 1"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/meminfo", "Node 1 MemFree: 5 kB\n"}},
       "node1/meminfo",
       "no MemTotal"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/meminfo", "Node 1 MemTotal: lots kB\n"}},
       "node1/meminfo:1:",
       "'lots' is not a whole number"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/meminfo", "Node 0 MemTotal: 5 kB\n"}},
       "node1/meminfo:1:",
       "for node 0, not node 1"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/meminfo", "Node 1 MemTotal: 5 MB\n"}},
       "node1/meminfo:1:",
       "expected 'Node 1 MemTotal: <number> kB'"},
      {{{"online", "0-1\n"}, node0, node1, {"node1/meminfo", "Node 1 MemTotal: 18446744073709551615 kB\n"}},
       "node1/meminfo:1:",
       "memory size is too large"},
  };
  for (const auto& c : cases) {
    const auto m = sysfs_error(c.files);
    CAPTURE(m);
    CHECK(mentions(m, c.at));
    CHECK(mentions(m, c.says));
  }
}

TEST_CASE("sysfs: without an online file, every nodeN folder counts") {
  const scratch_tree t({{"node0/distance", "10 20\n"},
                        {"node3/distance", "20 10\n"},
                        {"node3/cpulist", "0-1\n"},
                        {"node3/meminfo", "Node 3 MemTotal:  1024 kB\nNode 3 MemFree: 10 kB\n"},
                        {"possible", "0-3\n"},
                        {"nodeX/distance", "junk\n"}});
  const auto topo = load::sysfs(t.root());
  REQUIRE(topo.node_count() == 2);
  CHECK(topo.id_of(1) == 3);
  CHECK(topo.memory_bytes(1) == 1024 * kib);
  CHECK(cpus_of(topo, 1) == std::vector<unsigned>{0, 1});
  // Node 0 offline leaves the kernel's leading space (" 20 10"): still one row of two.
  const scratch_tree lead({{"online", "1,3\n"}, {"node1/distance", " 10 20\n"}, {"node3/distance", " 20 10\n"}});
  CHECK(load::sysfs(lead.root()).node_count() == 2);
}
