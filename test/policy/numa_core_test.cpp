// numa_core (seed 003's kernel, numa/core v17, Nov 2012): shared tasks go to the node with the
// most buddies that is not full, private tasks to a clearly idler node, and with patch 33 a
// shared task's memory interleaves over the nodes that run it or its buddies.
#include <doctest/doctest.h>

#include <numaplace/policy/numa_core.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>
#include <numaplace/topology/presets.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../support/test_machine.hpp"

using namespace numaplace;

namespace {

const dynamic_topology& seed003() {
  static const dynamic_topology t = presets::find("seed003-4node")->build();
  return t;
}

// The task's memory faults, shared then private per node.
struct task_faults {
  std::vector<std::uint64_t> memory;
  fault_view view() const {
    std::uint64_t total = 0;
    for (auto v : memory) total += v;
    return {memory, {}, total};
  }
};
// Mostly shared faults (a task that shares its memory), most of them on node 3.
const task_faults sharing{{10, 0, 10, 0, 10, 0, 40, 5}};
// Mostly private faults, most of them on node 3.
const task_faults private_faults{{0, 10, 0, 10, 0, 10, 5, 40}};

// Where the task and its buddies run on the seed's 4 x 8-CPU box; the task is on `current`.
struct buddies {
  std::array<std::uint32_t, 4> running;
  std::array<std::uint32_t, 4> idle{0, 0, 0, 0};
  node_index current = 0;
  std::array<std::uint32_t, 4> cpus{8, 8, 8, 8};
  buddy_view view() const { return {running, cpus, idle, current}; }
};

template <class Stack = stacks::numa_core>
node_index preferred(const task_faults& f, const buddies& b) {
  node_index nid = no_node;
  const decision_input in{f.view(), {}, b.view()};
  with_placement<Stack>(seed003(), [&](const auto& pl) { nid = pl.preferred_node(in); });
  return nid;
}

template <class Stack = stacks::numa_core_interleave>
std::vector<bool> mask(const decision_input& in) {
  std::array<bool, 4> out;
  out.fill(true);  // the policy must clear what it does not set
  with_placement<Stack>(seed003(), [&](const auto& pl) { pl.interleave_nodes(in, out); });
  return std::vector<bool>(out.begin(), out.end());
}

}  // namespace

TEST_CASE("shared or private: shared faults at least the private ones (patch 32's first verdict)") {
  CHECK(numa_core_rules::is_shared(sharing.view()));
  CHECK_FALSE(numa_core_rules::is_shared(private_faults.view()));
  const task_faults even{{5, 5, 0, 0, 0, 0, 0, 0}};
  CHECK(numa_core_rules::is_shared(even.view()));
}

TEST_CASE("a shared task goes to the node with the most buddies") {
  // On node 0 with one buddy (itself); node 1 runs 5 of its group, node 2 runs 2.
  CHECK(preferred(sharing, {{1, 5, 2, 0}}) == 1);
  SUBCASE("the first node on ties, as the kernel's strict comparison") {
    CHECK(preferred(sharing, {{1, 4, 4, 0}}) == 1);
  }
  SUBCASE("already on the node with most buddies: it stays") {
    CHECK(preferred(sharing, {{5, 3, 0, 0}, {}, 0}) == 0);
  }
  SUBCASE("its faults do not matter: most of them are on node 3, which runs no buddy") {
    CHECK(preferred(sharing, {{2, 3, 0, 0}}) == 1);
  }
}

TEST_CASE("a shared task does not go to a node at full capacity") {
  // Node 1 has all 8 CPUs running buddies: the next best, node 2, wins.
  CHECK(preferred(sharing, {{1, 8, 2, 0}}) == 2);
  // Every node with buddies is full but the task's own: it stays.
  CHECK(preferred(sharing, {{8, 1, 8, 0}, {}, 1}) == 1);
}

TEST_CASE("a private task goes to a node with at least two more idle CPUs") {
  // Node 2 has 3 idle CPUs, the task's node 0 none: it goes there.
  CHECK(preferred(private_faults, {{1, 6, 0, 0}, {0, 1, 3, 0}, 0}) == 2);
  // Two idle against one: not idle enough, it stays.
  CHECK(preferred(private_faults, {{1, 6, 0, 0}, {1, 2, 0, 0}, 0}) == 0);
  // Buddies do not pull a private task.
  CHECK(preferred(private_faults, {{1, 7, 0, 0}, {0, 0, 0, 0}, 0}) == 0);
}

TEST_CASE("without buddy counts the task follows its fault maximum (numa_max_node)") {
  node_index nid = no_node;
  with_placement<stacks::numa_core>(seed003(), [&](const auto& pl) {
    nid = pl.preferred_node(decision_input{private_faults.view(), {}});
  });
  CHECK(nid == 3);
  // Counts for another node count do not fit: the fault maximum as well.
  const std::array<std::uint32_t, 2> two{1, 1};
  with_placement<stacks::numa_core>(seed003(), [&](const auto& pl) {
    nid = pl.preferred_node(decision_input{sharing.view(), {}, buddy_view{two, two, two, 0}});
  });
  CHECK(nid == 3);
}

TEST_CASE("patch 33: a shared task's memory interleaves over the nodes with buddies") {
  const buddies spread{{3, 0, 8, 1}, {}, 0};
  // Node 2 is full and still in the mask; node 1 runs no buddy and is not.
  CHECK(mask(decision_input{sharing.view(), {}, spread.view()}) == std::vector<bool>{true, false, true, true});
  SUBCASE("a group on one node: node-local allocation") {
    const buddies alone{{0, 0, 6, 0}, {}, 2};
    CHECK(mask(decision_input{sharing.view(), {}, alone.view()}) == std::vector<bool>{false, false, true, false});
  }
  SUBCASE("a private task: its preferred node alone") {
    const buddies quiet{{1, 0, 0, 0}, {0, 0, 0, 0}, 0};
    CHECK(mask(decision_input{private_faults.view(), {}, quiet.view()}) ==
          std::vector<bool>{true, false, false, false});
  }
  SUBCASE("numa/core without patch 33: the preferred node alone") {
    // Its preferred node is node 0, the one with most buddies that is not full.
    CHECK(mask<stacks::numa_core>(decision_input{sharing.view(), {}, spread.view()}) ==
          std::vector<bool>{true, false, false, false});
  }
}

TEST_CASE("numa-core and numa-core-interleave are named stacks") {
  std::vector<std::string> names;
  for_each_stack([&](std::string_view name, auto) { names.emplace_back(name); });
  CHECK(std::find(names.begin(), names.end(), "numa-core") != names.end());
  CHECK(std::find(names.begin(), names.end(), "numa-core-interleave") != names.end());
  bool interleaves = true, reads = false, same = false;
  CHECK(with_stack("numa-core", [&](auto type) {
    using S = typename decltype(type)::type;
    same = std::is_same_v<S, stacks::numa_core>;
    with_placement<S>(seed003(), [&](const auto& pl) {
      using Pl = std::decay_t<decltype(pl)>;
      interleaves = Pl::has_interleave_policy();
      reads = Pl::reads_buddies();
    });
  }));
  CHECK(same);
  CHECK_FALSE(interleaves);
  CHECK(reads);
  CHECK(with_stack("numa-core-interleave", [&](auto type) {
    using S = typename decltype(type)::type;
    same = std::is_same_v<S, stacks::numa_core_interleave>;
    with_placement<S>(seed003(), [&](const auto& pl) { interleaves = std::decay_t<decltype(pl)>::has_interleave_policy(); });
  }));
  CHECK(same);
  CHECK(interleaves);
  // Other stacks are not asked for buddy counts.
  with_placement<stacks::linux_modern>(seed003(), [&](const auto& pl) { reads = std::decay_t<decltype(pl)>::reads_buddies(); });
  CHECK_FALSE(reads);
}

TEST_CASE("numa/core's move (sched_rebalance_to): an idle CPU, else a swap with a task it may displace") {
  // Two nodes of two CPUs: CPUs 0,1 on node 0, 2,3 on node 1.
  const dynamic_topology topo = generate::fully_connected(2);
  const auto decide = [&](const testing::test_machine& m, task_index t) {
    return with_placement<stacks::numa_core>(topo, [&](const auto& pl) {
      return pl.task_migration().decide(m, pl, t);
    });
  };
  SUBCASE("an idle CPU on the preferred node: a move, whatever the faults say") {
    testing::test_machine m(topo, 2);
    const auto g = m.add_group({90, 10});
    const auto t = m.add_task(0, {90, 10}, g, 1);  // its memory is on node 0, it prefers node 1
    m.add_task(2, {0, 10}, g, 1);                   // a buddy on CPU 2; CPU 3 idle
    const migrate_decision d = decide(m, t);
    CHECK(d.kind == migrate_kind::move);
    CHECK(d.cpu == 3);
    CHECK(d.preferred_after == 1);
  }
  SUBCASE("no idle CPU: a swap with the task that is not a buddy, never with a buddy") {
    testing::test_machine m(topo, 2);
    const auto g = m.add_group({10, 10});
    const auto t = m.add_task(0, {10, 10}, g, 1);
    m.add_task(1, {10, 10}, g, 0);
    m.add_task(2, {0, 10}, g, 1);                          // a buddy on CPU 2
    const auto stranger = m.add_task(3, {10, 0});         // a private task on CPU 3
    const migrate_decision d = decide(m, t);
    CHECK(d.kind == migrate_kind::swap);
    CHECK(d.cpu == 3);
    CHECK(d.swap_with == stranger);
  }
  SUBCASE("another group's task on its own preferred node is left alone") {
    testing::test_machine m(topo, 2);
    const auto g = m.add_group({10, 10});
    const auto other = m.add_group({0, 10});
    const auto t = m.add_task(0, {10, 10}, g, 1);
    m.add_task(2, {0, 10}, g, 1);
    m.add_task(3, {0, 10}, other, 1);
    CHECK(decide(m, t).kind == migrate_kind::stick);
  }
  SUBCASE("on its preferred node already: stick") {
    testing::test_machine m(topo, 2);
    const auto t = m.add_task(2, {0, 10}, no_group, 1);
    CHECK(decide(m, t).kind == migrate_kind::stick);
  }
}
