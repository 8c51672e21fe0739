// Memory tiers: the kernel's abstract distance from a node's latency and bandwidth, the tier it
// falls in, and the running kernel's tiers read from a copied memory_tiering folder.
#include <doctest/doctest.h>

#include "../support/topology_errors.hpp"

#include <numaplace/topology/memory_tiers.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace numaplace;
using numaplace::test::error_of;
using numaplace::test::mentions;

namespace {
std::string tree(const char* name) { return std::string(NUMAPLACE_TEST_DATA) + "/sysfs-tiers/" + name; }
}  // namespace

TEST_CASE("memory tiers: DRAM sits in tier 4, a slower node further down") {
  const memory_performance dram{100, 100, 20000, 20000};
  CHECK(abstract_distance(dram, dram) == 576);  // MEMTIER_ADISTANCE_DRAM
  CHECK(memory_tier_id(576) == 4);
  // A CXL expander at 2.5x the latency and half the bandwidth: 576 * 500 / 200 = 1440, then
  // * 40000 / 20000 = 2880, tier 22 (2880 / 128 = 22.5).
  const memory_performance cxl{250, 250, 10000, 10000};
  CHECK(abstract_distance(cxl, dram) == 2880);
  CHECK(memory_tier_id(abstract_distance(cxl, dram)) == 22);
  // The kernel divides as it goes: 576 * 202 / 200 = 581 (581.76), * 40000 / 39998 = 581.
  const memory_performance near{101, 101, 19999, 19999};
  CHECK(abstract_distance(near, dram) == 581);
  CHECK(memory_tier_id(581) == 4);
  // No latency or no bandwidth: the kernel refuses (-EINVAL) and the node keeps its default.
  CHECK(abstract_distance({0, 0, 10000, 10000}, dram) == -1);
  CHECK(abstract_distance(cxl, {100, 100, 0, 0}) == -1);
}

TEST_CASE("memory tiers: the kernel's tiers from sysfs, fastest first") {
  const auto tiers = load::sysfs_memory_tiers(tree("cxl/devices/virtual/memory_tiering"));
  REQUIRE(tiers.size() == 2);
  CHECK(tiers[0].id == 4);
  CHECK(tiers[0].nodes == std::vector<unsigned>{0, 1});
  CHECK(tiers[1].id == 22);
  CHECK(tiers[1].nodes == std::vector<unsigned>{2});
  CHECK(load::sysfs_memory_tiers(tree("absent")).empty());  // no tiering in this kernel
}

TEST_CASE("memory tiers: a bad tier names its file; other entries are not tiers") {
  const std::string e = error_of([] { (void)load::detail::parse_memory_tier("memory_tier4", "0-x", "t/memory_tier4/nodelist"); });
  CHECK(mentions(e, "memory_tier4/nodelist"));
  CHECK(mentions(e, "0-x"));
  CHECK(!load::detail::parse_memory_tier("uevent", "", "t"));
  CHECK(!load::detail::parse_memory_tier("memory_tierX", "0", "t"));
  const auto t = load::detail::parse_memory_tier("memory_tier22", "2,5-6\n", "t");
  REQUIRE(t);
  CHECK(t->id == 22);
  CHECK(t->nodes == std::vector<unsigned>{2, 5, 6});
}

TEST_CASE("memory tiers: the top tier ends at the slowest tier holding CPUs") {
  const auto cpus_on = [](std::vector<unsigned> nodes) {
    return [nodes](unsigned id) { return std::find(nodes.begin(), nodes.end(), id) != nodes.end(); };
  };
  // DRAM 0-1 with CPUs in tier 4, a CXL expander in 22, a slower one in 50.
  const std::vector<memory_tier> cxl{{4, {0, 1}}, {22, {3}}, {50, {2}}};
  CHECK(lower_tier_nodes(cxl, cpus_on({0, 1})) == std::vector<unsigned>{2, 3});
  // A CPU node in tier 22 (say, an HBM machine's DRAM ranked below its HBM) makes 22 top tier:
  // tier 4 above it too, though it has no CPUs.
  const std::vector<memory_tier> hbm{{3, {2}}, {4, {0}}, {22, {1}}, {50, {3}}};
  CHECK(lower_tier_nodes(hbm, cpus_on({0, 1})) == std::vector<unsigned>{3});
  // One tier, or none with CPUs: nothing below.
  CHECK(lower_tier_nodes({{4, {0, 1, 2}}}, cpus_on({0, 1})).empty());
  CHECK(lower_tier_nodes(cxl, cpus_on({})).empty());
  CHECK(lower_tier_nodes({}, cpus_on({0})).empty());
}

TEST_CASE("memory tiers: grouped from each node's tier, fastest first") {
  const auto tiers = group_memory_tiers({{3, 22}, {0, 4}, {2, 22}, {1, 4}, {4, 143}});
  REQUIRE(tiers.size() == 3);
  CHECK(tiers[0].id == 4);
  CHECK(tiers[0].nodes == std::vector<unsigned>{0, 1});
  CHECK(tiers[1].id == 22);
  CHECK(tiers[1].nodes == std::vector<unsigned>{2, 3});
  CHECK(tiers[2].id == 143);
  CHECK(group_memory_tiers({}).empty());
}

TEST_CASE("memory tiers: found beside a node folder shaped like /sys's, not beside a bare tree") {
  const auto beside = load::sysfs_memory_tiers_beside(tree("cxl/devices/system/node"));
  REQUIRE(beside.size() == 2);
  CHECK(beside[1].nodes == std::vector<unsigned>{2});
  CHECK(load::sysfs_memory_tiers_beside(tree("cxl/devices/system/node/")).size() == 2);
  CHECK(load::sysfs_memory_tiers_beside(std::string(NUMAPLACE_TEST_DATA) + "/sysfs/cxl").empty());
}
