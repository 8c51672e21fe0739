// A new job's nodes (job_nodes.hpp) and its demand as numad's -w writes it (job_demand.hpp):
// whole distance circles around the best centre, memory deciding only when the machine says
// how much each node has.
#include <doctest/doctest.h>

#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/job_nodes.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace numaplace;

namespace {

constexpr std::uint64_t mib = 1024 * 1024;

// Two pairs of nodes: 20 within a pair, 30 across.
dynamic_topology two_pairs() {
  return dynamic_topology({{10, 20, 30, 30}, {20, 10, 30, 30}, {30, 30, 10, 20}, {30, 30, 20, 10}});
}

node_supply four_cpus_each(std::vector<std::uint64_t> free_mib) {
  node_supply s;
  for (const std::uint64_t m : free_mib) {
    s.cpus.push_back(4);
    s.free_bytes.push_back(m * mib);
  }
  s.memory_known = true;
  return s;
}

std::string complaint(const std::string& text) {
  try {
    parse_job_demand(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a demand is NCPUS or NCPUS:MB, whole numbers, at least one CPU") {
  const job_demand cpus_only = parse_job_demand("4");
  CHECK(cpus_only.cpus == 4);
  CHECK_FALSE(cpus_only.mib.has_value());
  const job_demand both = parse_job_demand("4:2048");
  CHECK(both.cpus == 4);
  CHECK(both.mib == 2048u);
  // Each complaint starts with the demand, so that a caller can say which option it came from.
  CHECK(complaint("0") == "0: asks for 0 CPUs; a job needs at least one");
  CHECK(complaint("4:") == "4:: the memory (MB) is missing (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("1.5") == "1.5: CPU count '1.5' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("4:-1") == "4:-1: memory (MB) '-1' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  CHECK(complaint("99999999999") == "99999999999: CPU count 99999999999 is too large");
}

TEST_CASE("a job that fits one node gets one node, the lowest on a tie") {
  const auto t = two_pairs();
  const job_nodes n = choose_job_nodes(t, four_cpus_each({1024, 1024, 1024, 1024}), parse_job_demand("4:512"));
  CHECK(n.enough);
  CHECK(n.nodes == std::vector<node_index>{0});
  CHECK(n.reach == 10);
}

TEST_CASE("a larger job takes whole circles: its pair, then the other pair together") {
  const auto t = two_pairs();
  const node_supply s = four_cpus_each({1024, 1024, 1024, 1024});
  const job_nodes pair = choose_job_nodes(t, s, parse_job_demand("6"));
  CHECK(pair.nodes == std::vector<node_index>{0, 1});
  CHECK(pair.reach == 20);
  const job_nodes all = choose_job_nodes(t, s, parse_job_demand("9"));
  CHECK(all.enough);
  CHECK(all.nodes.size() == 4);
  CHECK(all.reach == 30);
}

TEST_CASE("memory decides the centre when the machine gives free memory, and only breaks ties when not") {
  const auto t = two_pairs();
  node_supply s = four_cpus_each({100, 100, 2048, 100});
  CHECK(choose_job_nodes(t, s, parse_job_demand("1:512")).nodes == std::vector<node_index>{2});
  // Short even with every node: every node, not enough.
  const job_nodes short_of_memory = choose_job_nodes(t, s, parse_job_demand("1:4096"));
  CHECK_FALSE(short_of_memory.enough);
  CHECK(short_of_memory.nodes.size() == 4);
  // Without sizes the MB do not count towards enough; free memory still breaks ties.
  s.memory_known = false;
  const job_nodes unknown = choose_job_nodes(t, s, parse_job_demand("1:4096"));
  CHECK(unknown.enough);
  CHECK(unknown.nodes == std::vector<node_index>{2});
}

TEST_CASE("free memory sums saturate instead of wrapping") {
  const auto t = two_pairs();
  node_supply s = four_cpus_each({0, 0, 0, 0});
  s.free_bytes = {std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max(), 0, 0};
  const job_nodes n = choose_job_nodes(t, s, parse_job_demand("5:1"));
  CHECK(n.nodes == std::vector<node_index>{0, 1});
  CHECK(n.free_bytes == std::numeric_limits<std::uint64_t>::max());
}

namespace {

// Two sockets (0, 1) and a CPU-less expander beside each (2 beside 0, 3 beside 1), the
// distances of a Sapphire Rapids box with CXL memory: the expander is nearer than the other
// socket.
dynamic_topology sockets_and_expanders() {
  return dynamic_topology({{10, 21, 14, 24}, {21, 10, 24, 14}, {14, 24, 10, 26}, {24, 14, 26, 10}});
}

node_supply expanders_below(std::vector<std::uint64_t> free_mib) {
  node_supply s = four_cpus_each(std::move(free_mib));
  s.cpus[2] = s.cpus[3] = 0;
  s.lower_tier = {false, false, true, true};
  return s;
}

}  // namespace

TEST_CASE("a lower memory tier's node joins only when the top tier within reach is short of memory") {
  const auto t = sockets_and_expanders();
  node_supply s = expanders_below({1000, 1000, 4000, 4000});
  // 6 CPUs: the circle at 14 brings expander 2 before the circle at 21 brings socket 1. With
  // the tiers known, the sockets' 2000 MiB cover 500: the expander stays out.
  const job_nodes fast = choose_job_nodes(t, s, parse_job_demand("6:500"));
  CHECK(fast.enough);
  CHECK(fast.nodes == std::vector<node_index>{0, 1});
  CHECK(fast.reach == 21);
  CHECK(fast.free_bytes == 2000 * mib);
  // 1500 MiB on 2 CPUs: socket 0's 1000 are short and the expander at 14 is nearer than
  // socket 1 at 21, as the kernel's allocation falls back: socket 0 and its expander.
  const job_nodes spill = choose_job_nodes(t, s, parse_job_demand("2:1500"));
  CHECK(spill.nodes == std::vector<node_index>{0, 2});
  CHECK(spill.free_bytes == 5000 * mib);
  // Beyond the sockets' 2000 MiB with 6 CPUs: every node within reach, expander 2 among them.
  const job_nodes all = choose_job_nodes(t, s, parse_job_demand("6:2500"));
  CHECK(all.nodes == std::vector<node_index>{0, 2, 1});
  // Unknown tiers: the expander is any other node, and the 6-CPU job takes it on the way.
  s.lower_tier.clear();
  CHECK(choose_job_nodes(t, s, parse_job_demand("6:500")).nodes == std::vector<node_index>{0, 2, 1});
}

TEST_CASE("a lower memory tier's node is never a job's centre") {
  // Expander 2 sits 12 from both sockets, which are 30 apart: as a centre it would reach both
  // sockets at 12, nearer than either socket reaches the other.
  const dynamic_topology t({{10, 30, 12}, {30, 10, 12}, {12, 12, 10}});
  node_supply s;
  s.cpus = {4, 4, 0};
  s.free_bytes = {1000 * mib, 1000 * mib, 4000 * mib};
  s.memory_known = true;
  const job_nodes untiered = choose_job_nodes(t, s, parse_job_demand("8:100"));
  CHECK(untiered.nodes.front() == 2);
  CHECK(untiered.reach == 12);
  s.lower_tier = {false, false, true};
  const job_nodes tiered = choose_job_nodes(t, s, parse_job_demand("8:100"));
  CHECK(tiered.nodes == std::vector<node_index>{0, 1});
  CHECK(tiered.reach == 30);
}

TEST_CASE("property: over random machines and tiers, lower-tier memory is a spill, never a home") {
  std::mt19937 rng(20261207);
  for (int round = 0; round < 400; ++round) {
    const std::size_t n = 2 + rng() % 7;
    std::vector<std::vector<long long>> d(n, std::vector<long long>(n, 10));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) d[i][j] = d[j][i] = 11 + static_cast<long long>(rng() % 30);
    }
    const dynamic_topology t(d);
    node_supply s;
    s.memory_known = true;
    s.lower_tier.assign(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      // Node 0 is always top tier with CPUs, so a machine can run; others are CPU nodes or
      // CPU-less, and a CPU-less one may be a lower tier.
      const bool cpuless = i != 0 && rng() % 3 == 0;
      s.cpus.push_back(cpuless ? 0 : 1 + rng() % 8);
      s.lower_tier[i] = cpuless && rng() % 2 == 0;
      s.free_bytes.push_back((rng() % 4000) * mib);
    }
    const job_demand demand = parse_job_demand(std::to_string(1 + rng() % 16) + ":" + std::to_string(rng() % 8000));
    const job_nodes c = choose_job_nodes(t, s, demand);
    INFO("round " << round);
    REQUIRE_FALSE(c.nodes.empty());
    CHECK_FALSE(s.is_lower_tier(c.nodes.front()));
    std::uint64_t fast = 0, all = 0;
    std::size_t cpus = 0;
    bool any_slow = false;
    for (const node_index i : c.nodes) {
      all += s.free_bytes[i];
      if (s.is_lower_tier(i)) {
        any_slow = true;
      } else {
        fast += s.free_bytes[i];
        cpus += s.cpus[i];
      }
    }
    CHECK(cpus == c.cpus);
    CHECK(c.free_bytes == all);
    if (!c.enough) continue;
    CHECK(c.cpus >= demand.cpus);
    CHECK(all / mib >= *demand.mib);
    // A lower tier joins only when the top tier alone is short, and then all of it in reach.
    if (any_slow) CHECK(fast / mib < *demand.mib);
    const node_index centre = c.nodes.front();
    for (node_index i = 0; i < n; ++i) {
      if (!s.is_lower_tier(i) || t.distance(centre, i) > c.reach) continue;
      const bool taken = std::find(c.nodes.begin(), c.nodes.end(), i) != c.nodes.end();
      CHECK(taken == any_slow);
    }
  }
}
