// numad 0.5's -w rule (numad_nodes.hpp) on machines small enough to work by hand. Each case
// says what numad counts and why it answers as it does.
#include <doctest/doctest.h>

#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/numad_nodes.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace numaplace;

namespace {

// Two pairs of nodes: 20 within a pair, 30 across.
dynamic_topology two_pairs() {
  return dynamic_topology({{10, 20, 30, 30}, {20, 10, 30, 30}, {30, 30, 10, 20}, {30, 30, 20, 10}});
}

std::vector<numad_node> nodes_of(std::vector<std::uint64_t> free_mib, std::uint64_t cpus = 4, std::uint64_t total_mib = 1000) {
  std::vector<numad_node> v;
  for (const std::uint64_t f : free_mib) v.push_back({total_mib, f, cpus, std::nullopt});
  return v;
}

std::vector<node_index> pick(const dynamic_topology& t, const std::vector<numad_node>& n, std::uint64_t cpus,
                             std::uint64_t mib, numad_settings s = {}, std::vector<node_index> order = {}) {
  return numad_pick_nodes(t, n, cpus * 100, mib, s, std::move(order)).nodes;
}

}  // namespace

TEST_CASE("numad counts a sibling beyond a core's first at -t percent of a CPU (update_nodes)") {
  numad_settings s;
  s.threads_per_core = 2;
  // 20 logical CPUs, 10 two-thread cores: 10 * 100 + 10 * 1 * 20.
  CHECK(numad_cpu_total(20, s) == 1200);
  // 21 logical CPUs are still 10 whole cores (integer division, as numad's).
  CHECK(numad_cpu_total(21, s) == 1200);
  s.threads_per_core = 4;  // POWER's SMT4: 6 cores * 100 + 6 * 3 * 20
  CHECK(numad_cpu_total(24, s) == 960);
  s.htt_percent = 100;  // -t 100: every logical CPU whole
  CHECK(numad_cpu_total(24, s) == 2400);
  s = {};
  CHECK(numad_cpu_total(20, s) == 2000);  // one thread per core
  // Idle CPUs less the siblings' discount: (20 - 10) * (100 - 20) off 2000 leaves the total.
  s.threads_per_core = 2;
  CHECK(numad_cpu_free({1000, 1000, 20, std::nullopt}, s) == 1200);
  CHECK(numad_cpu_free({1000, 1000, 20, 1500}, s) == 700);  // 1500 idle - 800
  CHECK(numad_cpu_free({1000, 1000, 20, 100}, s) == 1);     // never under 1 hundredth
  CHECK(numad_cpu_free({1000, 1000, 0, std::nullopt}, s) == 1);
}

TEST_CASE("numad's magnitude weighs what a node covers of the demand above what it has beyond it") {
  // 400 MiB and 2 CPUs from 500 MiB and 4 CPUs: (4000 + 400) * (1200 + 200).
  CHECK(numad_magnitude(400, 200, 500, 400) == 4400u * 1400u);
  // Short of memory: only what it has, at 10.
  CHECK(numad_magnitude(400, 200, 300, 400) == 3000u * 1400u);
}

TEST_CASE("numad takes the best centre, then nodes one by one, with a 100 MB margin each") {
  const dynamic_topology t = two_pairs();
  const auto n = nodes_of({500, 900, 300, 800});
  // -w 2:400: one node wanted (400 MiB of a 1000 MiB first node, 200 of its 400 CPU).
  // Magnitudes (x 1400): node 1 (4000 + 2000) beats node 3 (5600), node 0 (4400), node 2 (3000);
  // node 1 has 900 >= 400 + 100 free.
  const numad_choice c = numad_pick_nodes(t, n, 200, 400, {});
  CHECK(c.nodes == std::vector<node_index>{1});
  CHECK(c.centre == 1);
  CHECK(c.wanted == 1);
  CHECK(c.met);
  // -w 2:850: node 1 is still the centre (8700 x 1400), but 900 < 850 + 100: it gives 800 and
  // 50 MiB are left, which node 0 (distance 20, before the pair at 30) covers. numaplace's own
  // rule would stop at node 1, whose 900 MiB cover 850.
  CHECK(pick(t, n, 2, 850) == std::vector<node_index>{0, 1});
  // -w 6:100: 600 of 400 CPU wants 2 nodes; from node 1, node 0 is nearest.
  CHECK(pick(t, n, 6, 100) == std::vector<node_index>{0, 1});
  // -u never changes a -w answer in numad 0.5.
  numad_settings u50;
  u50.target_utilization = 50;
  CHECK(pick(t, n, 6, 100, u50) == pick(t, n, 6, 100));
  CHECK(pick(t, n, 2, 850, u50) == pick(t, n, 2, 850));
}

TEST_CASE("numad: a node with under 100 MB free raises what is left to find") {
  // Node 0: 99 MiB free, 64 CPUs; node 1: 1000 MiB free, 1 CPU; 20 apart. -w 1:10:
  // node 0's magnitude (100 + 89 * 4) * (600 + 6300) = 3146400 beats node 1's
  // (100 + 990 * 4) * 600 = 2436000, so node 0 is the centre; it has 99 < 10 + 100 free, so
  // 10 - (99 - 100) = 11 MiB are left and node 1 is taken too. numaplace's rule gives node 0.
  const dynamic_topology t({{10, 20}, {20, 10}});
  const std::vector<numad_node> n{{1000, 99, 64, std::nullopt}, {1000, 1000, 1, std::nullopt}};
  const numad_choice c = numad_pick_nodes(t, n, 100, 10, {});
  CHECK(c.centre == 0);
  CHECK(c.taken == std::vector<node_index>{0, 1});
  CHECK(c.met);
}

TEST_CASE("numad: SMT siblings at 20 % decide how many nodes a job wants") {
  // Two nodes of 20 logical CPUs (10 two-thread cores): 1200 each at -t 20, so 13 CPUs want
  // both; at -t 100 (or unknown siblings) 2000 each, and one node holds them.
  const dynamic_topology t({{10, 20}, {20, 10}});
  const auto n = nodes_of({1000, 1000}, 20);
  numad_settings smt;
  smt.threads_per_core = 2;
  CHECK(pick(t, n, 13, 0, smt) == std::vector<node_index>{0, 1});
  CHECK(pick(t, n, 12, 0, smt) == std::vector<node_index>{0});
  smt.htt_percent = 100;
  CHECK(pick(t, n, 13, 0, smt) == std::vector<node_index>{0});
  CHECK(pick(t, n, 13, 0) == std::vector<node_index>{0});
}

TEST_CASE("numad: more than the machine has gives every node, and says the demand was not met") {
  const dynamic_topology t({{10, 20}, {20, 10}});
  const numad_choice c = numad_pick_nodes(t, nodes_of({900, 900}), 100, 5000, {});
  CHECK(c.nodes == std::vector<node_index>{0, 1});
  CHECK_FALSE(c.met);
  CHECK(c.mib_left == 5000 - 800 - 800);  // each node gave 900 less the 100 MB margin
  const numad_choice cpus = numad_pick_nodes(t, nodes_of({900, 900}), 900, 0, {});
  CHECK(cpus.nodes == std::vector<node_index>{0, 1});
  CHECK_FALSE(cpus.met);
  CHECK(cpus.cpu_left == 100);  // 900 of 2 * 400
}

TEST_CASE("numad: equal nodes are taken in the order its sort leaves its directory listing") {
  // Three nodes 20 apart, equal in everything: two wanted (6 CPUs of 4 each). Every centre
  // scores the same, so the first (node 0) wins; its selection sort over the listing 2 1 0
  // swaps node 0 to the front and leaves 1 before 2; over 0 2 1 it keeps 2 before 1.
  const dynamic_topology t({{10, 20, 20}, {20, 10, 20}, {20, 20, 10}});
  const auto n = nodes_of({1000, 1000, 1000});
  CHECK(pick(t, n, 6, 0, {}, {2, 1, 0}) == std::vector<node_index>{0, 1});
  CHECK(pick(t, n, 6, 0, {}, {0, 2, 1}) == std::vector<node_index>{0, 2});
  CHECK(pick(t, n, 6, 0) == std::vector<node_index>{0, 1});
}

TEST_CASE("numad_pick_nodes refuses what numad's options refuse, and records that do not fit") {
  const dynamic_topology t({{10, 20}, {20, 10}});
  const auto n = nodes_of({900, 900});
  numad_settings s;
  s.htt_percent = 101;
  CHECK_THROWS_WITH_AS(numad_pick_nodes(t, n, 100, 0, s), "-t 101: numad takes 0 to 100 (percent of a CPU)",
                       std::invalid_argument);
  s = {};
  s.target_utilization = 9;
  CHECK_THROWS_WITH_AS(numad_pick_nodes(t, n, 100, 0, s), "-u 9: numad takes 10 to 130 (percent)", std::invalid_argument);
  CHECK_THROWS_AS(numad_pick_nodes(t, nodes_of({900}), 100, 0, {}), std::invalid_argument);
  CHECK_THROWS_AS(numad_pick_nodes(t, n, 100, 0, {}, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(numad_pick_nodes(t, n, 100, 0, {}, {1}), std::invalid_argument);
}

TEST_CASE("parse_numad_demand reads CPUs in hundredths, as numad's parse_two_arg_values does") {
  CHECK(parse_numad_demand("4").cpu_hundredths == 400);
  CHECK_FALSE(parse_numad_demand("4").mib.has_value());
  CHECK(parse_numad_demand("1.5").cpu_hundredths == 150);
  const numad_demand quarter = parse_numad_demand("0.25:2048");
  CHECK(quarter.cpu_hundredths == 25);
  CHECK(quarter.mib == 2048);
  CHECK(parse_numad_demand("1.559").cpu_hundredths == 155);  // numad drops the third decimal
  CHECK_THROWS_WITH_AS(parse_numad_demand("0.00"), "0.00: asks for 0 CPUs; a job needs some", std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_numad_demand("1."), "1.: the CPU fraction '' is not decimal digits (expected e.g. 1.5 or 0.25)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(parse_numad_demand("1.x:5"),
                       "1.x:5: the CPU fraction 'x' is not decimal digits (expected e.g. 1.5 or 0.25)", std::invalid_argument);
  CHECK_THROWS_AS(parse_numad_demand(".5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_numad_demand("1.5:"), std::invalid_argument);
}
