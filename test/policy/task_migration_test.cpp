// task_numa_migrate() per kernel shape (policy/task_migration.hpp), on hand-worked machines.
// Weights on a DIRECT machine are 1000 * faults(node) / total (no nearby scoring), so every
// improvement below can be checked by hand; loads are 1024 per always-running task and
// capacities 1024 per CPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <numaplace/policy/check_machine_view.hpp>
#include <numaplace/policy/task_migration.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

#include "../support/test_machine.hpp"

using namespace numaplace;
using numaplace::testing::test_machine;

namespace {

template <task_migration_rule R, class Stack, machine_view M>
migrate_decision decide_on(const dynamic_topology& topo, const M& m, task_index t, migrate_params p = {}) {
  const view_problem broken = check_machine_view(m);  // every hand-built machine is one that can exist
  REQUIRE_MESSAGE(!broken, broken.message);
  const task_migration<R> policy{p};
  return with_placement<Stack>(topo, [&](const auto& pl) { return policy.decide(m, pl, t); });
}

template <task_migration_rule R, class Stack, machine_view M>
migrate_decision decide(const M& m, task_index t, migrate_params p = {}) {
  return decide_on<R, Stack>(generate::fully_connected(m.node_count()), m, t, p);
}

using modern = stacks::linux_modern;  // adjust_numa_imbalance v5.19 form, v4.19 settling

// imb_numa_nr 2: a destination running <= 2 after the move is "lightly loaded".
constexpr migrate_params roomy{numa_imbalance_pct_since_v5_10, 2, true};

}  // namespace

TEST_CASE("load_too_imbalanced: the v3.17 threshold form and the v4.19 simplification") {
  numa_stats src, dst;
  src.load = 2048;
  dst.load = 1024;
  src.compute_capacity = dst.compute_capacity = 1024;
  // Moving a 1024 task from src to dst: 1024 vs 2048 after, 2048 vs 1024 before.
  // v3.17: imb = 2048*1024*100 - 1024*1024*112 = 88 * 2^20 > 0; before, the same: not worse.
  CHECK_FALSE(load_too_imbalanced<imbalance_test::v3_17>(1024, 2048, src, dst, 112));
  // v4.19: |2048*1024 - 1024*1024| = 2^20 both before and after: not worse.
  CHECK_FALSE(load_too_imbalanced<imbalance_test::v4_19>(1024, 2048, src, dst, 108));
  // One task each, moving one: 0 vs 2048 after, balanced before.
  src.load = 1024;
  CHECK(load_too_imbalanced<imbalance_test::v4_19>(0, 2048, src, dst, 108));
  CHECK(load_too_imbalanced<imbalance_test::v3_17>(0, 2048, src, dst, 112));
  // v3.17 forgives anything under the threshold: 1000 vs 1100 is 110000 - 112000 < 0.
  CHECK_FALSE(load_too_imbalanced<imbalance_test::v3_17>(1000, 1100, src, dst, 112));
  CHECK(load_too_imbalanced<imbalance_test::v4_19>(1000, 1100, src, dst, 108));  // |100*1024| > 0
}

TEST_CASE("numa_classify: spare while a CPU is free, overloaded when tasks wait") {
  test_machine m(generate::fully_connected(2), 2);
  m.add_task(0, {1});
  m.add_task(2, {1});
  m.add_task(2, {1});
  m.add_task(3, {1});
  // Node 0: 1 task on 2 CPUs. Node 1: 3 tasks on 2 CPUs, util min(1024, 2048) + 1024 = 2048,
  // runnable 3072: 2048 * 100 < 2048 * 108, so overloaded.
  CHECK(update_numa_stats(m, 108, 0).node_type == numa_type::has_spare);
  const numa_stats busy = update_numa_stats(m, 108, 1);
  CHECK(busy.nr_running == 3);
  CHECK(busy.util == 2048);
  CHECK(busy.runnable == 3072);
  CHECK(busy.node_type == numa_type::overloaded);
  // One task per CPU: nr_running == weight and util == capacity: fully busy.
  test_machine f(generate::fully_connected(2), 1);
  f.add_task(0, {1});
  CHECK(update_numa_stats(f, 108, 0).node_type == numa_type::fully_busy);
  // The idle CPU is found only for a task the node admits.
  const task_index t = m.add_task(1, {1});
  CHECK(update_numa_stats(m, 108, 0, t).idle_cpu == no_cpu);  // CPU 1 now runs t
  test_machine e(generate::fully_connected(2), 2);
  const task_index u = e.add_task(0, {1});
  CHECK(update_numa_stats(e, 108, 1, u).idle_cpu == 2);
  e.forbid(u, 1);
  CHECK(update_numa_stats(e, 108, 1, u).idle_cpu == no_cpu);
}

TEST_CASE("an idle CPU on the preferred node, per era") {
  // 2 nodes x 2 CPUs; the task on CPU 0 has 80 % of its faults on node 1, which is idle.
  // taskimp = 800 - 200 = 600.
  test_machine m(generate::fully_connected(2), 2);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);

  // v4.1..v4.18: CPU 2: imp 600 > 0; the source (1 task, capacity 2) and the destination both
  // have room; after the move 0 vs 1024 is the same slope as before: assigned, 600. CPU 3:
  // 600 <= best 600: not better. The first idle CPU wins.
  const auto v41 = decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a);
  CHECK(v41.kind == migrate_kind::move);
  CHECK(v41.cpu == 2);
  CHECK(v41.improvement == 600);

  // v4.19: maymove (|1024*2048 - 0| before and after); each idle CPU re-assigns with
  // moveimp >= best_imp, so the last one, CPU 3, wins.
  const auto v419 = decide<task_migration_rule::v4_19, modern>(m, a);
  CHECK(v419.kind == migrate_kind::move);
  CHECK(v419.cpu == 3);
  CHECK(v419.improvement == 600);

  // v5.7: node 1 has spare capacity; src_running 0, dst_running 1, imbalance 1, forgiven
  // (1 <= imb_numa_nr 1, 1 <= NUMA_IMBALANCE_MIN): its first idle CPU at once, improvement 0.
  const auto v57 = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(v57.kind == migrate_kind::move);
  CHECK(v57.cpu == 2);
  CHECK(v57.improvement == 0);
  CHECK(v57.preferred_after == 1);  // no group: the preferred node stays
  CHECK(v57.last_evaluated == 1);
}

TEST_CASE("SMALLIMP: a swap v4.1 takes and v4.19 refuses") {
  // 1 CPU per node. The task (node 0) has faults 49/51: taskimp = 510 - 490 = 20. The task on
  // node 1 has 50/50: imp = 20 + 500 - 500 = 20 (both ungrouped: task weights, no hysteresis).
  test_machine m(generate::fully_connected(2), 1);
  const task_index a = m.add_task(0, {49, 51}, no_group, 1);
  const task_index b = m.add_task(1, {50, 50});
  // v4.2's capacity test: 1024*1024*112 > 1024*1024*100. One task per CPU on both sides:
  // "balance doesn't matter much", the swap is assigned at imp 20.
  const auto old = decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a);
  CHECK(old.kind == migrate_kind::swap);
  CHECK(old.swap_with == b);
  CHECK(old.cpu == 1);
  CHECK(old.improvement == 20);
  // v4.19: 20 < SMALLIMP 30.
  CHECK(decide<task_migration_rule::v4_19, modern>(m, a).kind == migrate_kind::stick);
  // With 20/80 against 60/40: imp = 600 + 600 - 400 = 800 >= 30 and > 0 + 15; the loads are
  // equal (load = 0), so v4.19 swaps.
  test_machine w(generate::fully_connected(2), 1);
  const task_index p = w.add_task(0, {20, 80}, no_group, 1);
  const task_index q = w.add_task(1, {60, 40});
  const auto big = decide<task_migration_rule::v4_19, modern>(w, p);
  CHECK(big.kind == migrate_kind::swap);
  CHECK(big.swap_with == q);
  CHECK(big.improvement == 800);
}

TEST_CASE("v5.7's preferred-node terms on the swap candidate") {
  // As above (imp 800 before the terms); node 1 is fully busy (1 task on 1 CPU, util 1024),
  // so maymove = !load_too_imbalanced = false (0 vs 2048 after a move).
  const auto swap_imp = [](node_index cur_preferred) {
    test_machine w(generate::fully_connected(2), 1);
    const task_index p = w.add_task(0, {20, 80}, no_group, 1);
    w.add_task(1, {60, 40}, no_group, cur_preferred);
    return decide<task_migration_rule::v5_7, modern>(w, p).improvement;
  };
  CHECK(swap_imp(no_node) == 800);
  CHECK(swap_imp(1) == 800 - 800 / 16);  // already on its preferred node: 750
  CHECK(swap_imp(0) == 800 + 800 / 8);   // moving to its preferred node: 900
  // v4.19 has no such terms.
  test_machine w(generate::fully_connected(2), 1);
  const task_index p = w.add_task(0, {20, 80}, no_group, 1);
  w.add_task(1, {60, 40}, no_group, 0);
  CHECK(decide<task_migration_rule::v4_19, modern>(w, p).improvement == 800);
}

TEST_CASE("v5.7 prefers a swap partner that moves to its preferred node, even at less gain") {
  // Node 0: one CPU, the task (20/80, taskimp 600). Node 1: two CPUs, both busy (fully busy;
  // a move would leave 0 vs 3072: maymove false). Candidates: c1 60/40, no preferred node:
  // imp 600 + 600 - 400 = 800; c2 40/60 preferring node 0: 600 + 400 - 600 = 400, + 400 / 8.
  const auto build = [](bool c2_first, task_index& a, task_index& c1, task_index& c2) {
    test_machine m(generate::fully_connected(2), {1, 2});
    a = m.add_task(0, {20, 80}, no_group, 1);
    if (c2_first) c2 = m.add_task(1, {40, 60}, no_group, 0);
    c1 = m.add_task(c2_first ? 2 : 1, {60, 40});
    if (!c2_first) c2 = m.add_task(2, {40, 60}, no_group, 0);
    return m;
  };
  task_index a = 0, c1 = 0, c2 = 0;
  // c1 first: assigned at 800; then c2 "moves to its preferred node and the best does not":
  // assigned at 450 without the SMALLIMP or load tests.
  test_machine m = build(false, a, c1, c2);
  const auto v57 = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(v57.swap_with == c2);
  CHECK(v57.improvement == 450);
  // v4.19 keeps c1: 400 <= 800 + 15.
  const auto v419 = decide<task_migration_rule::v4_19, modern>(m, a);
  CHECK(v419.swap_with == c1);
  CHECK(v419.improvement == 800);
  // c2 first: assigned at 450; no move is possible (maymove false) and the best task goes to
  // its preferred node, so the node's search stops (and c1, not going to its preferred node,
  // would have been skipped anyway).
  test_machine r = build(true, a, c1, c2);
  const auto stop = decide<task_migration_rule::v5_7, modern>(r, a);
  CHECK(stop.swap_with == c2);
  CHECK(stop.improvement == 450);
}

TEST_CASE("v5.7 takes a forgiven idle CPU at once; v4.19 evaluates the swap") {
  // Node 1 runs one task on CPU 2 and has CPU 3 idle. After a move src_running 0,
  // dst_running 2: imbalance 2, forgiven when dst_running <= imb_numa_nr (2).
  test_machine m(generate::fully_connected(2), 2);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);
  const task_index b = m.add_task(2, {60, 40});
  const auto v57 = decide<task_migration_rule::v5_7, modern>(m, a, roomy);
  CHECK(v57.kind == migrate_kind::move);
  CHECK(v57.cpu == 3);
  CHECK(v57.improvement == 0);
  // v4.19: maymove false (0 vs 2048 after a move, balanced 1024/1024 before); CPU 2: swap
  // imp 800, loads equal: assigned; CPU 3 idle but maymove is false.
  const auto v419 = decide<task_migration_rule::v4_19, modern>(m, a, roomy);
  CHECK(v419.kind == migrate_kind::swap);
  CHECK(v419.swap_with == b);
  CHECK(v419.improvement == 800);
  // v5.7 with imb_numa_nr 1: 2 > 1, not lightly loaded: the imbalance stands, maymove false,
  // and the swap is evaluated as in v4.19.
  const auto strict = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(strict.kind == migrate_kind::swap);
  CHECK(strict.swap_with == b);
}

namespace {
// test_machine with the optional per-CPU readings of load_imbalance.hpp: runqueues another
// NUMA migration has claimed (rq->numa_migrate_on), and CPUs that queue nothing yet are not
// idle (a wakeup pending).
struct flagged_machine : test_machine {
  using test_machine::test_machine;
  std::vector<cpu_index> claimed, waking;
  static bool listed(const std::vector<cpu_index>& v, cpu_index c) { return std::find(v.begin(), v.end(), c) != v.end(); }
  bool numa_migrate_on(cpu_index c) const noexcept { return listed(claimed, c); }
  bool idle_cpu(cpu_index c) const noexcept { return tasks_on(c).empty() && !listed(waking, c); }
};
static_assert(machine_view<flagged_machine>);
}  // namespace

TEST_CASE("a CPU another migration has claimed: v4.19 passes it over, v5.7 takes the node's next idle CPU") {
  // As "an idle CPU on the preferred node": the task on CPU 0 prefers idle node 1 (CPUs 2, 3).
  flagged_machine m(generate::fully_connected(2), 2);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);

  // Nothing claimed: v4.19 ends on CPU 3 (the last idle CPU of equal gain), v5.7 on CPU 2.
  REQUIRE(decide<task_migration_rule::v4_19, modern>(m, a).cpu == 3);
  REQUIRE(decide<task_migration_rule::v5_7, modern>(m, a).cpu == 2);

  // CPU 2 claimed. v4.19: task_numa_compare skips CPU 2, CPU 3 is taken.
  m.claimed = {2};
  const auto v419 = decide<task_migration_rule::v4_19, modern>(m, a);
  CHECK(v419.kind == migrate_kind::move);
  CHECK(v419.cpu == 3);
  // v5.7: the idle path picks CPU 2 (the node's first idle CPU); task_numa_assign finds it
  // claimed and takes CPU 3, the next idle one, wrapping from 2.
  const auto v57 = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(v57.kind == migrate_kind::move);
  CHECK(v57.cpu == 3);

  // Both claimed: no CPU on node 1 can be had; the task sticks (and, in no group, keeps its
  // preferred node).
  m.claimed = {2, 3};
  for (const auto& d : {decide<task_migration_rule::v4_19, modern>(m, a), decide<task_migration_rule::v5_7, modern>(m, a),
                        decide<task_migration_rule::v6_0, modern>(m, a)}) {
    CHECK(d.kind == migrate_kind::stick);
    CHECK(d.cpu == no_cpu);
  }
  // Before v4.19 there was no such guard.
  CHECK(decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a).cpu == 2);
}

TEST_CASE("a CPU that queues nothing but is not idle is no idle CPU for v5.7's shortcut") {
  // The task on CPU 0 prefers node 1 (CPUs 2, 3), which queues nothing.
  flagged_machine m(generate::fully_connected(2), 2);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);
  REQUIRE(decide<task_migration_rule::v5_7, modern>(m, a).cpu == 2);
  // CPU 2 waking: update_numa_stats offers CPU 3; v5.7 takes it at once.
  m.waking = {2};
  const auto one = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(one.kind == migrate_kind::move);
  CHECK(one.cpu == 3);
  CHECK(one.improvement == 0);
  // Both waking: no idle CPU is offered, so task_numa_compare runs on each; nothing runs
  // there (current_task is no_task), so a move with moveimp 600 (CPU 2, the first) is taken.
  m.waking = {2, 3};
  const auto none = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(none.kind == migrate_kind::move);
  CHECK(none.improvement == 600);
}

TEST_CASE("v6.0 refuses a swap inside a group while the destination has spare CPUs") {
  // Both tasks in group g (faults 50/50: groupimp 0). Node 1: 1 task, 2 CPUs: has_spare; the
  // imbalance (2 with imb_numa_nr 1) is not forgiven, so only a swap could be found.
  // Same group: imp = 600 + 600 - 400 = 800, less 800 / 16 of hysteresis: 750.
  test_machine m(generate::fully_connected(2), 2);
  const group_index g = m.add_group({50, 50});
  const task_index a = m.add_task(0, {20, 80}, g, 1);
  const task_index b = m.add_task(2, {60, 40}, g);
  const auto v57 = decide<task_migration_rule::v5_7, modern>(m, a);
  CHECK(v57.kind == migrate_kind::swap);
  CHECK(v57.swap_with == b);
  CHECK(v57.improvement == 750);
  CHECK(v57.preferred_after == 1);  // v4.19 settling: where it went
  const auto v60 = decide<task_migration_rule::v6_0, modern>(m, a);
  CHECK(v60.kind == migrate_kind::stick);
  CHECK(v60.preferred_after == 0);  // nowhere better: the source
  // Two ungrouped tasks count as "the same group" too.
  test_machine u(generate::fully_connected(2), 2);
  const task_index p = u.add_task(0, {20, 80}, no_group, 1);
  u.add_task(2, {60, 40});
  CHECK(decide<task_migration_rule::v6_0, modern>(u, p).kind == migrate_kind::stick);
  // Once the destination is fully busy (CPU 3 taken), the swap is allowed again.
  u.add_task(3, {50, 50});
  CHECK(decide<task_migration_rule::v6_0, modern>(u, p).kind == migrate_kind::swap);
}

TEST_CASE("a move onto a busy node, allowed by load_too_imbalanced") {
  // Node 0's only CPU runs the task and another; node 1's runs one whose faults are on node 1
  // (10/90): a swap would give 600 + 100 - 900 = -200. Moving alone: 1024 vs 2048 after,
  // 2048 vs 1024 before: no worse, so maymove, and the task goes onto busy CPU 1.
  test_machine m(generate::fully_connected(2), 1);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);
  m.add_task(0, {50, 50});
  m.add_task(1, {10, 90});
  for (const auto& d : {decide<task_migration_rule::v4_19, modern>(m, a), decide<task_migration_rule::v5_7, modern>(m, a),
                        decide<task_migration_rule::v6_0, modern>(m, a)}) {
    CHECK(d.kind == migrate_kind::move);
    CHECK(d.cpu == 1);
    CHECK(d.improvement == 600);
  }
  // v4.1: the same move is stored as moveimp - 1 = 599 (an idle CPU would win over it); the
  // v3.17 test: 2048*1024*100 - 1024*1024*112 = 88 * 2^20 after, the same before.
  const auto old = decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a);
  CHECK(old.kind == migrate_kind::move);
  CHECK(old.cpu == 1);
  CHECK(old.improvement == 599);
  // With the two nodes equally loaded, the move would double node 1's load: no maymove.
  test_machine e(generate::fully_connected(2), 1);
  const task_index p = e.add_task(0, {20, 80}, no_group, 1);
  e.add_task(1, {10, 90});
  CHECK(decide<task_migration_rule::v4_19, modern>(e, p).kind == migrate_kind::stick);
}

TEST_CASE("numa_has_capacity gates nodes for the linux-4.1 and linux-4.2 stacks") {
  // Equal loads, one task per CPU (the SMALLIMP example): v4.1's test needs the source
  // strictly busier (1024*1024 > 1024*1024 fails); v4.2 allows 12 % (112 > 100).
  test_machine m(generate::fully_connected(2), 1);
  const task_index a = m.add_task(0, {49, 51}, no_group, 1);
  m.add_task(1, {50, 50});
  CHECK(decide<task_migration_rule::v4_1, stacks::linux_4_1>(m, a).kind == migrate_kind::stick);
  CHECK(decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a).kind == migrate_kind::swap);
  // v4.19 has no numa_has_capacity: the stack's capacity policy is not consulted.
  CHECK(decide<task_migration_rule::v4_19, stacks::linux_4_1>(m, a).kind == migrate_kind::stick);  // SMALLIMP
}

TEST_CASE("settling after the walk: the last evaluated node, per stack") {
  // 3 nodes x 1 CPU. The group is active everywhere (CPU faults 40/40/20: each > 40 / 3),
  // so every node is scanned. Node 2: taskimp 300 - 300 = 0, groupimp 200 - 400 = -200: not
  // both negative, so evaluated; it becomes env.dst_nid. The tasks there may not run on
  // node 0, so nothing is found anywhere.
  test_machine m(generate::fully_connected(3), 1);
  const group_index g = m.add_group({40, 40, 20});
  const task_index a = m.add_task(0, {30, 40, 30}, g, 1);
  const task_index b = m.add_task(1, {0, 100, 0}, g);
  const task_index c = m.add_task(2, {0, 0, 100}, g);
  m.forbid(b, 0);
  m.forbid(c, 0);
  const auto v42 = decide<task_migration_rule::v4_1, stacks::linux_4_2>(m, a);
  CHECK(v42.kind == migrate_kind::stick);
  CHECK(v42.last_evaluated == 2);
  CHECK(v42.preferred_after == 2);  // v4.2: judged on the source (active): the last evaluated
  // v4.1 refuses both nodes on capacity (equal loads) but walks the same; v3.15 settling only
  // after a move: unchanged.
  const auto v41 = decide<task_migration_rule::v4_1, stacks::linux_4_1>(m, a);
  CHECK(v41.last_evaluated == 2);
  CHECK(v41.preferred_after == 1);
  CHECK(decide<task_migration_rule::v5_7, modern>(m, a).preferred_after == 0);  // v4.19: the source
}

TEST_CASE("other nodes: the distance is read from the previous destination; a backplane recomputes") {
  // Two groups of two nodes, 20 apart inside a group and 30 across: the kernel's BACKPLANE.
  // At hop limit 20 a node counts alone; at 30 its group partner counts too (d < 30).
  // The task (node 0) has faults 10/20/30/40 of 100: weight(n, 20) = 10 f(n),
  // weight(n, 30) = 10 (f(n) + f(partner)). It prefers node 1, whose only CPU runs a task that
  // may not come to node 0, so the other nodes are walked.
  const dynamic_topology topo = generate::two_level_backplane(2, 2, 20, 30);
  test_machine m(topo, 1);
  const task_index a = m.add_task(0, {10, 20, 30, 40}, no_group, 1);
  const task_index b = m.add_task(1, {0, 100, 0, 0});
  m.forbid(b, 0);
  // Node 2: dist = distance(0, env.dst_nid = 1) = 20 (not distance(0, 2) = 30), as at the
  // start: taskimp = 300 - 100 = 200; its idle CPU is assigned. Node 3: dist = distance(0, 2)
  // = 30 != env.dist 20, so the source weight becomes 10 * (10 + 20) = 300:
  // taskimp = 10 * (40 + 30) - 300 = 400 >= 200 (v4.19: moveimp >= best_imp), assigned.
  const auto d = decide_on<task_migration_rule::v4_19, modern>(topo, m, a);
  CHECK(d.kind == migrate_kind::move);
  CHECK(d.cpu == 3);
  CHECK(d.improvement == 400);
  CHECK(d.last_evaluated == 3);
  // Node 3 out of the task's affinity: still evaluated (it becomes env.dst_nid), but only
  // node 2's move at 200 remains.
  m.forbid(a, 3);
  const auto e = decide_on<task_migration_rule::v4_19, modern>(topo, m, a);
  CHECK(e.cpu == 2);
  CHECK(e.improvement == 200);
  CHECK(e.last_evaluated == 3);
}

TEST_CASE("v5.18+ walks only nodes with CPUs") {
  // Node 1 has no CPUs in the view. The task prefers node 2, where nothing can be had; node 1
  // (taskimp 300 - 300 = 0, not negative) becomes env.dst_nid unless CPU-less nodes are skipped.
  test_machine m(generate::fully_connected(3), {1, 0, 1});
  const task_index a = m.add_task(0, {30, 30, 40}, no_group, 2);
  const task_index b = m.add_task(1, {0, 0, 100});  // CPU 1 is node 2's
  m.forbid(b, 0);
  migrate_params online = migrate_params_for(5, 17);
  migrate_params with_cpus = migrate_params_for(5, 18);
  CHECK(decide<task_migration_rule::v5_7, modern>(m, a, online).last_evaluated == 1);
  CHECK(decide<task_migration_rule::v5_7, modern>(m, a, with_cpus).last_evaluated == 2);
  CHECK(decide<task_migration_rule::v5_7, modern>(m, a, with_cpus).kind == migrate_kind::stick);
}

TEST_CASE("nothing to do on the preferred node, or without one") {
  test_machine m(generate::fully_connected(2), 1);
  const task_index a = m.add_task(0, {100, 0}, no_group, 0);
  const task_index b = m.add_task(1, {100, 0});
  CHECK(decide<task_migration_rule::v5_7, modern>(m, a).kind == migrate_kind::stick);
  const auto d = decide<task_migration_rule::v5_7, modern>(m, b);
  CHECK(d.kind == migrate_kind::stick);
  CHECK(d.preferred_after == no_node);
  CHECK(d.last_evaluated == no_node);
}

TEST_CASE("a kernel thread on the destination CPU: a blocker before 6.17, no task from 6.17") {
  // 2 nodes x 1 CPU. CPU 0 queues a (80 % of its faults on node 1), c and d: load 3072. CPU 1
  // runs k, a kernel thread bound to node 1: load 1024. Moving a: 2048 against 2048, more even
  // than before, so maymove; node 1 has no idle CPU.
  test_machine m(generate::fully_connected(2), 1);
  const task_index a = m.add_task(0, {20, 80}, no_group, 1);
  m.add_task(0, {100, 0});
  m.add_task(0, {100, 0});
  const task_index k = m.add_task(1, {});
  m.forbid(k, 0);
  m.tasks[k].kernel = true;
  // 6.1: k is the swap candidate; it may not run on node 0, so CPU 1 offers nothing.
  CHECK(decide<task_migration_rule::v6_0, modern>(m, a).kind == migrate_kind::stick);
  // 7.x: k counts as no task; a moves to CPU 1 with taskimp 800 - 200 = 600.
  const auto d = decide<task_migration_rule::v6_17, stacks::linux_7_x>(m, a);
  CHECK(d.kind == migrate_kind::move);
  CHECK(d.cpu == 1);
  CHECK(d.improvement == 600);
  // A view that does not say (machine_reads::kernel_thread defaults to false): as 6.1.
  m.tasks[k].kernel = false;
  CHECK(decide<task_migration_rule::v6_17, stacks::linux_7_x>(m, a).kind == migrate_kind::stick);
}

TEST_CASE("versions map to rules and parameters") {
  static_assert(migrate_rule_for(4, 18) == task_migration_rule::v4_1);
  static_assert(migrate_rule_for(4, 19) == task_migration_rule::v4_19);
  static_assert(migrate_rule_for(5, 6) == task_migration_rule::v4_19);
  static_assert(migrate_rule_for(5, 7) == task_migration_rule::v5_7);
  static_assert(migrate_rule_for(5, 19) == task_migration_rule::v5_7);
  static_assert(migrate_rule_for(6, 0) == task_migration_rule::v6_0);
  static_assert(migrate_rule_for(6, 12) == task_migration_rule::v6_0);
  static_assert(migrate_rule_for(6, 17) == task_migration_rule::v6_17);
  static_assert(migrate_rule_for(7, 3) == task_migration_rule::v6_17);
  static_assert(migrate_params_for(5, 9).imbalance_pct == 112);
  static_assert(migrate_params_for(5, 10).imbalance_pct == 108);
  static_assert(!migrate_params_for(5, 17).cpu_nodes_only);
  static_assert(migrate_params_for(5, 18).cpu_nodes_only);
  // A stack lists a kernel's migration as a type: its rule and parameters, default-built.
  const kernel_numa_migration<5, 9> v5_9;
  const kernel_numa_migration<6, 1> v6_1;
  CHECK(v5_9.rule == task_migration_rule::v5_7);
  CHECK(v5_9.params.imbalance_pct == 112);
  CHECK_FALSE(v5_9.params.cpu_nodes_only);
  CHECK(v6_1.rule == task_migration_rule::v6_0);
  CHECK(v6_1.params.imbalance_pct == 108);
  CHECK(v6_1.params.cpu_nodes_only);
}
