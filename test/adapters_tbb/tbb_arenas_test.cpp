// tbb_node_arenas: which arena takes a node's work, and what runs where.
#include <doctest/doctest.h>

#include <numaplace/adapters/tbb_arenas.hpp>
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

using namespace numaplace;
using adapters::node_cpu_lists;
using adapters::tbb_node_arenas;

TEST_CASE("an arena per node with CPUs; a memory-only node's work goes to the nearest") {
  const dynamic_topology t = presets::find("ibm-power9-gpu")->build();
  // The preset's CPU nodes with two CPUs each, not 88: arenas beyond the host's CPUs only warn.
  node_cpu_lists cpus(t.node_count());
  cpus[0] = {0, 1};
  cpus[1] = {2, 3};
  tbb_node_arenas arenas(t, cpus);
  CHECK(arenas.has_arena(0));
  CHECK(arenas.has_arena(1));
  CHECK_FALSE(arenas.has_arena(2));
  CHECK(arenas.arena(0).max_concurrency() == 2);
  CHECK(arenas.arena_node(1) == 1);
  CHECK(arenas.arena_node(5) == 0);  // every GPU node is 80 from both CPU nodes: the lower index
  CHECK(&arenas.arena(5) == &arenas.arena(0));
  CHECK(arenas.cpus(3).empty());
  CHECK_THROWS_WITH_AS(arenas.cpus(8), "tbb_node_arenas: node index 8 is not in the 8-node topology",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(arenas.arena_node(no_node), "tbb_node_arenas: node index no_node is not in the 8-node topology",
                       std::invalid_argument);
}

TEST_CASE("bad input names what was wrong") {
  const dynamic_topology t = generate::fully_connected(2);
  CHECK_THROWS_WITH_AS(tbb_node_arenas(t, node_cpu_lists(2)), "tbb_node_arenas: no node has a usable CPU",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tbb_node_arenas(t, node_cpu_lists(3)), "tbb_node_arenas: 3 CPU lists for 2 nodes",
                       std::invalid_argument);
}

TEST_CASE("work executed in this machine's arena runs on its CPUs; the caller gets its CPUs back") {
  const auto usable = os::usable_machine::this_process();
  tbb_node_arenas arenas(usable);
  const node_index n = usable.usable_nodes().front();
  const std::vector<unsigned> before = os::calling_thread_affinity();
  const unsigned cpu = arenas.execute(n, [] { return os::current_cpu(); });
  CHECK(std::find(arenas.cpus(n).begin(), arenas.cpus(n).end(), cpu) != arenas.cpus(n).end());
  CHECK(os::calling_thread_affinity() == before);
  CHECK(arenas.pinning_failures() == 0);
}

TEST_CASE("an execute nested in another node's work returns the thread to the outer node's CPUs") {
  const std::vector<unsigned> mine = os::calling_thread_affinity();
  if (mine.size() < 2) {
    MESSAGE("skipped: needs two usable CPUs");
    return;
  }
  // Two nodes of one CPU each, made of this thread's first two CPUs.
  tbb_node_arenas arenas(generate::fully_connected(2), node_cpu_lists{{mine[0]}, {mine[1]}});
  std::vector<unsigned> inner, outer_after;
  arenas.execute(0, [&] {
    arenas.execute(1, [&] { inner = os::calling_thread_affinity(); });
    outer_after = os::calling_thread_affinity();
  });
  CHECK(inner == std::vector<unsigned>{mine[1]});
  CHECK(outer_after == std::vector<unsigned>{mine[0]});
  CHECK(os::calling_thread_affinity() == mine);
  CHECK(arenas.pinning_failures() == 0);
}

TEST_CASE("a group's work goes to its preferred node, or the fallback while it has no faults") {
  const dynamic_topology t = presets::find("seed000-8node")->build();
  with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
    fault_stats group(t.node_count());
    CHECK(adapters::preferred_node_or(pl, group, 3) == 3);
    group.record(6, 0, access::private_access, 400);
    group.end_window(40'000'000, 100'000'000);
    CHECK(adapters::preferred_node_or(pl, group, 3) == 6);
  });
}
