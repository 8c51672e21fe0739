// find_idlest_group's NUMA level and find_idlest_group_cpu per kernel rule, on a small machine view.
#include <doctest/doctest.h>

#include <numaplace/policy/fork_placement.hpp>
#include <numaplace/policy/simple_machine_view.hpp>
#include <numaplace/topology/generators.hpp>

#include <cstdint>
#include <vector>

using namespace numaplace;

namespace {

// The reference machine_view on nodes 10/20 apart with the given CPUs; tasks have loads only.
struct machine : simple_machine_view {
  explicit machine(const std::vector<unsigned>& cpus_per_node)
      : simple_machine_view(generate::fully_connected(cpus_per_node.size()), cpus_per_node) {}
  // A task on CPU c with load `load`.
  machine& run(cpu_index c, std::uint64_t load = nice_0_load) {
    tasks[add_task(c)].load = load;
    return *this;
  }
};

fork_args from(node_index parent, unsigned imb_numa_nr = 0, node_index preferred = no_node) {
  fork_args a;
  a.parent = parent;
  a.imb_numa_nr = imb_numa_nr;
  a.preferred = preferred;
  return a;
}

template <fork_placement_rule R>
node_index place(const machine& m, const fork_args& a) {
  return fork_placement<R>{}.find_idlest_node(m, a);
}

}  // namespace

TEST_CASE("fork_placement: machine_view helpers") {
  machine m({2, 2});
  m.run(0, 1024).run(0, 512).run(3, 100);
  CHECK(running_on(m, 0) == 2);
  CHECK(idle_cpus_on(m, 0) == 1);
  CHECK(idle_cpus_on(m, 1) == 1);
  CHECK(load_on_cpu(m, 0) == 1536);
  CHECK(load_on_node(m, 1) == 100);
  CHECK(cpu_count_of(m, 1) == 2);
  CHECK(cpu_idle(m, 1));
}

TEST_CASE("fork_placement: v3.8 goes to the least loaded node unless the parent's is within 12 %") {
  constexpr auto R = fork_placement_rule::v3_8;
  // 2 x 4 CPUs. Parent node 0 load 2048 over 4 CPUs: avg 2048 * 1024 / 4096 = 512.
  // Node 1 load 1024: avg 256. imbalance = 100 + 25 / 2 = 112: 100 * 512 = 51200 is not below
  // 112 * 256 = 28672, so the task goes to node 1.
  machine m({4, 4});
  m.run(0).run(1).run(4);
  CHECK(place<R>(m, from(0)) == 1);
  // Node 1 load 1840 (avg 460): 51200 < 112 * 460 = 51520, stay. Load 1828 (avg 457): 51184, go.
  machine near({4, 4});
  near.run(0).run(1).run(4, 1840);
  CHECK(place<R>(near, from(0)) == 0);
  machine just({4, 4});
  just.run(0).run(1).run(4, 1828);
  CHECK(place<R>(just, from(0)) == 1);
  // Capacity counts: 4 tasks on 8 CPUs (avg 512) against 1 task on 2 CPUs (avg 512): stay.
  machine uneven({8, 2});
  uneven.run(0).run(1).run(2).run(3).run(8);
  CHECK(place<R>(uneven, from(0)) == 0);
}

TEST_CASE("fork_placement: v4.10 uses an absolute margin; v4.19 adds it to the remote node across NUMA") {
  // One CPU per node, so avg = load. Parent 3300, remote 3000.
  // v3.8: 100 * 3300 = 330000 < 112 * 3000 = 336000: stay.
  // v4.10: margin 1024 * 25 / 100 = 256. 3000 > 3300 + 256? no. 3300 < 3000 + 256? no: go.
  machine heavy({1, 1});
  heavy.run(0, 3300).run(1, 3000);
  CHECK(place<fork_placement_rule::v3_8>(heavy, from(0)) == 0);
  CHECK(place<fork_placement_rule::v4_10>(heavy, from(0)) == 1);
  // v4.19 too: 3000 + 256 = 3256 >= 3300? no.
  CHECK(place<fork_placement_rule::v4_17>(heavy, from(0)) == 1);
  // Parent avg 512 (2 tasks on 4 CPUs), remote 256 (1 task). v4.10: 256 > 768? no; 512 < 512? no: go.
  // v4.19: 256 + 256 = 512 >= 512: stay.
  machine m({4, 4});
  m.run(0).run(1).run(4);
  CHECK(place<fork_placement_rule::v4_10>(m, from(0)) == 1);
  CHECK(place<fork_placement_rule::v4_17>(m, from(0)) == 0);
  // Ties keep the first node visited. Parent 2; the ring from 2 is 2, 0, 1. Node 0 (load 0)
  // becomes the idlest; node 1 (load 0) is within the margin of it but not lighter
  // (100 * 0 > 112 * 0 fails), so node 0 stays the idlest.
  machine three({1, 1, 1});
  three.run(2, 1024);
  CHECK(place<fork_placement_rule::v4_10>(three, from(2)) == 0);
}

TEST_CASE("fork_placement: v5.5 keeps the parent node while it has an idle CPU") {
  // 2 x 4 CPUs, 3 tasks on node 0 (1 idle CPU), node 1 empty: both have spare capacity.
  machine m({4, 4});
  m.run(0).run(1).run(2);
  CHECK(place<fork_placement_rule::v5_5>(m, from(0)) == 0);
  // v5.11: 3 tasks is not below 25 % of the domain's 8 CPUs (2): the node with more idle CPUs.
  CHECK(place<fork_placement_rule::v5_11>(m, from(0)) == 1);
  // A full parent node (4 tasks, 4 CPUs) is fully busy: any rule pushes to the node with spare CPUs.
  machine full({4, 4});
  full.run(0).run(1).run(2).run(3);
  CHECK(place<fork_placement_rule::v5_5>(full, from(0)) == 1);
  CHECK(place<fork_placement_rule::v6_0>(full, from(0, 8)) == 1);
  // v4.19 goes too: remote avg 0 + 256 >= parent avg 1024? no; 0 > 1280? no; 1024 < 256? no.
  // The rules part on a lightly loaded parent (above).
  CHECK(place<fork_placement_rule::v4_17>(full, from(0)) == 1);
}

TEST_CASE("fork_placement: v5.11 measures 25 % of the domain, not of the node") {
  // 4 nodes x 4 CPUs: the domain has 16 CPUs, 25 % is 4. The parent runs 3 tasks (3 of its own
  // 4 CPUs, 75 % of the node): still under 4, so the task stays.
  machine m({4, 4, 4, 4});
  m.run(0).run(1).run(2);
  CHECK(place<fork_placement_rule::v5_11>(m, from(0)) == 0);
  // 4 tasks would fill the node (fully busy: pushed by type whatever the rule).
}

TEST_CASE("fork_placement: v5.18 compares the parent's tasks plus one with imb_numa_nr") {
  machine m({4, 4});
  m.run(0).run(1).run(2);  // 3 tasks, 1 idle CPU
  // 3 + 1 < 4? no: the node with more idle CPUs (node 1, 4 > 1).
  CHECK(place<fork_placement_rule::v5_18>(m, from(0, 4)) == 1);
  // 3 + 1 < 5: stay.
  CHECK(place<fork_placement_rule::v5_18>(m, from(0, 5)) == 0);
}

TEST_CASE("fork_placement: v5.19 forgives an idle-CPU difference of at most NUMA_IMBALANCE_MIN") {
  machine m({4, 4});
  m.run(0);  // 1 task: 3 idle CPUs against node 1's 4
  // v5.18 with imb_numa_nr 2: 1 + 1 < 2? no: go to node 1.
  CHECK(place<fork_placement_rule::v5_18>(m, from(0, 2)) == 1);
  // v5.19: imbalance |3 - 4| = 1; 1 + 1 = 2 <= 2, lightly loaded, and 1 <= 2: forgiven, stay.
  CHECK(place<fork_placement_rule::v5_19>(m, from(0, 2)) == 0);
  // Not lightly loaded (imb_numa_nr 1: 2 <= 1 fails): the imbalance 1 stands, go.
  CHECK(place<fork_placement_rule::v5_19>(m, from(0, 1)) == 1);
}

TEST_CASE("fork_placement: v6.0 caps imb_numa_nr by the parent node's CPUs") {
  // 2 x 2 CPUs; the parent runs 2 tasks stacked on CPU 0 (CPU 1 idle). Classification: 2 tasks
  // on 2 CPUs, util 1024 of 2048: 2048 * 100 = 204800 > 1024 * 125 = 128000, spare capacity.
  machine m({2, 2});
  m.run(0).run(0);
  CHECK(fork_placement<fork_placement_rule::v6_0>::group_stats(m, 0, 125).type == fork_group_stats::has_spare);
  // v5.19, imb_numa_nr 4: imbalance |1 - 2| = 1, 2 + 1 = 3 <= 4, forgiven: stay.
  CHECK(place<fork_placement_rule::v5_19>(m, from(0, 4)) == 0);
  // v6.0: imb_numa_nr min(2, 4) = 2; 3 <= 2 fails, the imbalance stands: go to node 1.
  CHECK(place<fork_placement_rule::v6_0>(m, from(0, 4)) == 1);
}

TEST_CASE("fork_placement: v5.5+ prefer the task's preferred node when there is spare capacity") {
  machine m({4, 4});
  m.run(0).run(1).run(2);
  // v5.11 would go to node 1 (above); with node 0 preferred it stays.
  CHECK(place<fork_placement_rule::v5_11>(m, from(0, 0, 0)) == 0);
  // v5.5 would stay (idle CPU); with node 1 preferred and node 1 the idlest, it goes.
  CHECK(place<fork_placement_rule::v5_5>(m, from(0, 0, 1)) == 1);
}

TEST_CASE("fork_placement: v5.5+ compare busy nodes by average load with the NUMA margin") {
  // Both nodes fully busy (one task per CPU). Parent avg 4096 * 1024 / 4096 = 1024.
  // Node 1 load 3584 (avg 896): 896 + 256 = 1152 >= 1024: stay.
  machine close({4, 4});
  close.run(0).run(1).run(2).run(3).run(4).run(5).run(6).run(7, 512);
  CHECK(place<fork_placement_rule::v5_5>(close, from(0)) == 0);
  // Node 1 load 2800 (avg 700): 956 >= 1024? no; 700 >= 1280? no; 102400 <= 125 * 700 = 87500? no: go.
  machine light({4, 4});
  light.run(0).run(1).run(2).run(3).run(4).run(5).run(6, 376).run(7, 376);
  CHECK(place<fork_placement_rule::v5_5>(light, from(0)) == 1);
  // Overloaded (6 tasks on 4 CPUs) against fully busy: the lower group type wins.
  machine over({4, 4});
  over.run(0).run(0).run(1).run(1).run(2).run(3).run(4).run(5).run(6).run(7);
  CHECK(fork_placement<fork_placement_rule::v5_5>::group_stats(over, 0, 125).type == fork_group_stats::overloaded);
  CHECK(place<fork_placement_rule::v5_5>(over, from(0)) == 1);
}

TEST_CASE("fork_placement: affinity") {
  machine m({4, 4});
  m.run(0).run(1).run(2).run(3);  // node 0 full: every rule would go to node 1
  const auto only0 = [](node_index n) { return n == 0; };
  const auto only1 = [](node_index n) { return n == 1; };
  CHECK(fork_placement<fork_placement_rule::v5_19>{}.find_idlest_node(m, from(0, 2), only0) == 0);
  CHECK(fork_placement<fork_placement_rule::v4_17>{}.find_idlest_node(m, from(0), only0) == 0);
  // The parent node excluded, node 1 running one task (avg 256). v5.5+ skip the local group
  // and take node 1. v3.8 keeps this_load 0: 100 * 0 < 112 * 256, NULL, and the fallback takes
  // the first allowed node. v4.10 keeps this_runnable ULONG_MAX, whose + 256 wraps to 255:
  // 256 > 255, NULL again, and the same fallback.
  machine idle({4, 4});
  idle.run(4);
  CHECK(fork_placement<fork_placement_rule::v5_5>{}.find_idlest_node(idle, from(0), only1) == 1);
  CHECK(fork_placement<fork_placement_rule::v4_10>{}.find_idlest_node(idle, from(0), only1) == 1);
  CHECK(fork_placement<fork_placement_rule::v3_8>{}.find_idlest_node(idle, from(0), only1) == 1);
  // Nothing allowed.
  CHECK(fork_placement<fork_placement_rule::v5_5>{}.find_idlest_node(idle, from(0), [](node_index) { return false; }) == no_node);
  CHECK(fork_placement<fork_placement_rule::v5_5>{}.select_fork_cpu(idle, from(0), [](node_index) { return false; }) == no_cpu);
}

TEST_CASE("fork_placement: find_idlest_group_cpu takes the first idle CPU, else the least loaded") {
  machine m({4});
  m.run(0).run(3);
  CHECK(find_idlest_group_cpu(m, 0) == 1);
  machine busy({4});
  busy.run(0, 2048).run(1, 1024).run(2, 1024).run(3, 3072);
  CHECK(find_idlest_group_cpu(busy, 0) == 1);  // 1024 first at CPU 1; CPU 2 ties and loses
  machine empty({0, 2});
  CHECK(find_idlest_group_cpu(empty, 0) == no_cpu);
  // select_fork_cpu: node, then CPU. Parent node 0 full, node 1 (CPUs 4..7) gets it on CPU 4.
  machine full({4, 4});
  full.run(0).run(1).run(2).run(3).run(5);
  CHECK(fork_placement<fork_placement_rule::v5_19>{}.select_fork_cpu(full, from(0, 2)) == 4);
}
