// Memory tiers: the kernel's abstract distance from a node's latency and bandwidth, the tier it
// falls in, and the running kernel's tiers read from a copied memory_tiering folder.
#include <doctest/doctest.h>

#include "../support/topology_errors.hpp"

#include <numaplace/topology/memory_tiers.hpp>

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
