// The hierarchical load balancer: scheduling domains built from topologies (levels, spans,
// groups, degenerate levels dropped), balancing that fills the near levels before the far one,
// locality that resists until nr_balance_failed exceeds cache_nice_tries, and the two eras of
// calculate_imbalance().

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <numaplace/sim/load_balance.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/sched_domains.hpp>

#include "sim_support.hpp"

namespace {

using namespace sim_test;

dynamic_topology preset(const char* name) { return presets::find(name)->build(); }

std::vector<std::size_t> span_sizes(const numa_domain_level& l) {
  std::vector<std::size_t> out;
  for (const auto& s : l.spans) out.push_back(s.size());
  return out;
}

// A world with no threads of its own: the tests place tasks by hand.
struct bench {
  workload w = throughput_workload({private_process("p", 0, 0.3)}, 10.0);
  world s;
  bench(const dynamic_topology& t, run_options o) : s(t, w, o) { s.m.processes.emplace_back(); }

  task_index add(cpu_index c, node_index preferred = no_node) {
    task_state t(s.m.node_count());
    t.cpu = c;
    t.node = s.m.cpus[c].node;
    t.preferred = preferred;
    if (preferred != no_node) {
      t.stats.record(preferred, preferred, numaplace::access::private_access, 64);
      t.stats.end_window(1, 1);
    }
    const auto id = static_cast<task_index>(s.m.tasks.size());
    s.m.tasks.push_back(std::move(t));
    s.m.cpus[c].tasks.push_back(id);
    ++s.m.processes[0].live;
    return id;
  }
  std::size_t on_nodes(node_index first, node_index last) const {
    std::size_t n = 0;
    for (node_index a = first; a <= last; ++a) n += s.m.running_on(a);
    return n;
  }
};

run_options with_smt(unsigned threads_per_core) {
  run_options o;
  o.machine.threads_per_core = threads_per_core;
  return o;
}

}  // namespace

TEST_CASE("seed 000's two quads give NUMA levels 12, 17 and 19 above SMT and MC") {
  const auto t = preset("seed000-8node");
  const numa_domains nd = build_numa_domains(t);
  REQUIRE(nd.levels.size() == 3);
  CHECK(nd.levels[0].distance == 12);
  CHECK(nd.levels[1].distance == 17);
  CHECK(nd.levels[2].distance == 19);
  CHECK(span_sizes(nd.levels[0]) == std::vector<std::size_t>{2, 2, 2, 2});
  CHECK(span_sizes(nd.levels[1]) == std::vector<std::size_t>{4, 4});
  CHECK(span_sizes(nd.levels[2]) == std::vector<std::size_t>{8});
  CHECK(nd.levels[0].spans[0] == std::vector<node_index>{0, 1});
  CHECK(nd.levels[1].spans[1] == std::vector<node_index>{4, 5, 6, 7});
  // Groups are the child spans: pairs inside a quad, quads at the top.
  CHECK(nd.levels[1].groups[0] == std::vector<std::vector<node_index>>{{0, 1}, {2, 3}});
  CHECK(nd.levels[2].groups[0] == std::vector<std::vector<node_index>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(nd.levels[0].span_of[5] == 2);

  // With its 10 cores x 2 Hyper-Threads per node: 80 SMT domains, 8 MC, then 4 + 2 + 1 NUMA.
  const bench b(t, with_smt(2));
  const lb_domains d(b.s.m, sd_init_rule::v5_10);
  std::size_t smt = 0, mc = 0, numa = 0;
  for (const auto& dom : d.domains) {
    (dom.kind == sched_level_kind::smt ? smt : dom.kind == sched_level_kind::mc ? mc : numa) += 1;
  }
  CHECK(smt == 80);
  CHECK(mc == 8);
  CHECK(numa == 7);
  CHECK(d.chain[0].size() == 5);
  CHECK(d.domains[d.chain[0][1].first].groups.size() == 10);  // MC: one group per core
  CHECK(d.domains[d.chain[0][1].first].weight == 20);
  CHECK(d.domains[d.chain[0][4].first].weight == 160);
  CHECK(d.domains[d.chain[0][4].first].max_interval() == 320.0);
  // One idle thread of a core balances MC for the core (its group), not the other.
  CHECK(d.domains[d.chain[0][1].first].groups[d.chain[0][1].second].cpus == std::vector<cpu_index>{0, 1});
}

TEST_CASE("sd_init() by version: busy_factor 32 and NUMA imbalance_pct 125 before v5.10, 16 and 117 since") {
  constexpr auto old_numa = sd_init(sched_level_kind::numa, sd_init_rule::v3_19);
  constexpr auto new_numa = sd_init(sched_level_kind::numa, sd_init_rule::v5_10);
  CHECK(old_numa.busy_factor == 32);
  CHECK(new_numa.busy_factor == 16);
  CHECK(old_numa.imbalance_pct == 125);
  CHECK(new_numa.imbalance_pct == 117);
  CHECK(old_numa.cache_nice_tries == 2);
  CHECK(!new_numa.prefer_sibling);
  CHECK(sd_init(sched_level_kind::smt, sd_init_rule::v5_10).imbalance_pct == 110);
  CHECK(sd_init(sched_level_kind::mc, sd_init_rule::v3_19).imbalance_pct == 117);
  CHECK(sd_init(sched_level_kind::mc, sd_init_rule::v5_10).cache_nice_tries == 1);
  CHECK(sd_init(sched_level_kind::smt, sd_init_rule::v5_10).cache_nice_tries == 0);
  // The stacks' kernels.
  using modern = stacks::linux_modern::placement_type<kinded_topology<dynamic_topology, numa_kind::backplane, false>>;
  using vanilla = stacks::vanilla::placement_type<kinded_topology<dynamic_topology, numa_kind::backplane, false>>;
  using five_nine = stacks::linux_5_9::placement_type<kinded_topology<dynamic_topology, numa_kind::backplane, false>>;
  CHECK(lb_rule_of<modern>::value == lb_rule::v5_10);
  CHECK(lb_rule_of<vanilla>::value == lb_rule::v3_19);
  CHECK(lb_rule_of<five_nine>::value == lb_rule::v5_5);
}

TEST_CASE("EPYC 7742 NPS4 and Leonardo: a socket level and a machine level; 256 nodes: two levels") {
  for (const auto& t : {preset("amd-epyc-7742-nps4"),
                        load::file(std::string(NUMAPLACE_TEST_DATA) + "/topologies/leonardo-dcgp-8node.numactl")}) {
    const numa_domains nd = build_numa_domains(t);
    REQUIRE(nd.levels.size() == 2);
    CHECK(nd.levels[0].distance == 12);
    CHECK(span_sizes(nd.levels[0]) == std::vector<std::size_t>{4, 4});
    CHECK(nd.levels[0].groups[1].size() == 4);  // one group per node
    CHECK(span_sizes(nd.levels[1]) == std::vector<std::size_t>{8});
    CHECK(nd.levels[1].groups[0].size() == 2);  // one group per socket
  }
  const auto huge = generate::two_level_backplane(16, 16, 20, 30, {32, std::uint64_t{16} << 30});
  const numa_domains nd = build_numa_domains(huge);
  REQUIRE(nd.levels.size() == 2);
  CHECK(nd.levels[0].spans.size() == 16);
  CHECK(nd.levels[0].groups[0].size() == 16);
  CHECK(nd.levels[1].spans.size() == 1);
  CHECK(nd.levels[1].groups[0].size() == 16);
  const bench b(huge, {});
  const lb_domains d(b.s.m, sd_init_rule::v5_10);
  CHECK(d.domains.size() == 256 + 16 + 1);  // MC per node (no SMT), then the boards, then all
}

TEST_CASE("degenerate levels are dropped: one remote distance gives one NUMA level; one core, no MC") {
  const auto t = direct(4, 1);
  const numa_domains nd = build_numa_domains(t);
  REQUIRE(nd.levels.size() == 1);
  CHECK(nd.levels[0].spans.size() == 1);
  CHECK(nd.levels[0].groups[0].size() == 4);
  const bench b(t, {});
  const lb_domains d(b.s.m, sd_init_rule::v5_10);
  REQUIRE(d.domains.size() == 1);  // nodes of one CPU: no SMT, no MC
  CHECK(d.domains[0].kind == sched_level_kind::numa);
  CHECK(d.domains[0].prefer_sibling);
}

TEST_CASE("an overloaded node spreads inside itself, then inside its quad, and only then across the machine") {
  // 2 quads of 4 nodes (12 inside, 32 across) with 4 CPUs each; 8 tasks start on CPU 0.
  const auto t = generate::two_level_backplane(2, 4, 12, 32, {4, std::uint64_t{1} << 30});
  bench b(t, {});
  b.s.o.mode = balancing::none;
  for (int i = 0; i < 8; ++i) b.add(0);
  const no_placement none;
  load_balancer lb;
  double in_node = -1, in_quad = -1, across = -1;
  for (double ms = 0; ms <= 3000; ms += 1) {
    b.s.now_ms = ms;
    lb.tick(b.s, none);
    REQUIRE(b.s.m.check().empty());
    if (in_node < 0 && b.s.m.cpus[0].tasks.size() < 8) in_node = ms;
    if (in_quad < 0 && b.on_nodes(1, 3) > 0) in_quad = ms;
    if (across < 0 && b.on_nodes(4, 7) > 0) across = ms;
  }
  INFO("in node " << in_node << " ms, in quad " << in_quad << " ms, across " << across << " ms");
  REQUIRE(in_node >= 0);
  REQUIRE(in_quad >= 0);
  REQUIRE(across >= 0);
  CHECK(in_node < in_quad);
  CHECK(in_quad < across);
  // In the end every task has a CPU of its own.
  for (const auto& c : b.s.m.cpus) CHECK(c.tasks.size() <= 1);
}

TEST_CASE("a task on its preferred node is not pulled until nr_balance_failed exceeds cache_nice_tries") {
  // Two nodes of one CPU: node 0 runs A (no preference) and queues B and C, which prefer it.
  const auto t = direct(2, 1);
  with_placement<stacks::linux_modern>(t, [&](const auto& pl) {
    using P = std::decay_t<decltype(pl)>;
    bench b(t, {});
    b.s.o.mode = balancing::numa;
    b.add(0);
    const task_index tb = b.add(0, 0);
    const task_index tc = b.add(0, 0);
    load_balancer lb;
    lb.ensure_built<P>(b.s);
    REQUIRE(lb.domains().domains.size() == 1);
    const lb_domain& d = lb.domains().domains[0];
    REQUIRE(d.p.cache_nice_tries == 2);
    const lb_group& local = d.groups[1];  // node 1's group pulls
    unsigned failed_before_move = 0;
    bool moved = false;
    for (double ms = 0; ms <= 100 && !moved; ms += 1) {
      b.s.now_ms = ms;
      const unsigned failed = local.failed;
      lb.tick(b.s, pl);
      if (b.s.m.running_on(1) > 0) {
        moved = true;
        failed_before_move = failed;
      }
    }
    REQUIRE(moved);
    CHECK(failed_before_move == d.p.cache_nice_tries + 1);
    CHECK(b.s.m.tasks[tc].node == 1);  // from the tail of the queue
    CHECK(b.s.m.tasks[tb].node == 0);
  });
}

TEST_CASE("newidle balancing: a CPU left idle pulls a queued task at once") {
  const auto t = direct(1, 2);
  bench b(t, {});
  b.s.o.mode = balancing::none;
  b.add(0);
  const task_index queued = b.add(0);
  const no_placement none;
  load_balancer lb;
  lb.newidle(b.s, none, 1);
  CHECK(b.s.m.tasks[queued].cpu == 1);
  CHECK(b.s.m.check().empty());
}

TEST_CASE("calculate_imbalance by era: v3.19 pulls load towards the average, v5.5+ counts tasks, modern forgives") {
  // A NUMA domain of two 4-CPU nodes: local idle, the busiest running 3 tasks.
  const std::vector<lb_group_stats> groups = {
      group_stats_of({0, 1, 2, 3}, 117, [](cpu_index) { return 0u; }),
      group_stats_of({4, 5, 6, 7}, 117, [](cpu_index c) { return c < 7 ? 1u : 0u; })};
  CHECK(groups[1].type == numa_type::has_spare);
  lb_env env{sd_init(sched_level_kind::numa, sd_init_rule::v5_10), false, lb_idle::idle, 1};
  const lb_decision old = decide_v3_19(groups, 0, env);
  CHECK(old.busiest == 1);
  CHECK(old.type == lb_migration::load);
  CHECK(old.imbalance == 1536);  // (768 - 384) of load per CPU times 4 CPUs: a task and a half
  const auto none = [](const balancer_args& a) { return a.imbalance; };
  const lb_decision rework = decide_v5_5(groups, 0, env, none);
  CHECK(rework.busiest == 1);
  CHECK(rework.type == lb_migration::task);
  CHECK(rework.imbalance == 1);  // half the difference in idle CPUs
  // linux-modern's allowance (v5.19: the local node runs fewer than imb_numa_nr) forgives it.
  const imbalance_adjustment<imbalance_rule::v5_19> modern;
  const lb_decision forgiven =
      decide_v5_5(groups, 0, env, [&](const balancer_args& a) { return modern.adjust_balancer_imbalance(a); });
  CHECK(forgiven.balanced());
  // A busy balancing CPU does not pull from a group that is not overloaded (v5.5), though v3.19
  // would, past imbalance_pct.
  env.idle = lb_idle::not_idle;
  CHECK(decide_v5_5(groups, 0, env, none).balanced());
  CHECK(!decide_v3_19(groups, 0, env).balanced());
}

TEST_CASE("whole runs keep the machine's invariants with newidle and periodic balancing") {
  // Short jobs on seed 000's machine: tasks finish and leave CPUs idle all the time.
  auto t = preset("seed000-8node");
  process_spec jobs = private_process("make", 40, 0.2);
  jobs.jobs = 400;
  jobs.job_work_ms = 150;
  workload w = throughput_workload({jobs, private_process("jvm", 60, 0.5)}, 4.0);
  w.report_elapsed = true;
  w.work_per_thread_ms = 2000;
  with_engine<stacks::linux_modern>(t, w, with_smt(2), [&](auto& e) {
    for (int i = 0; i < 40; ++i) {
      e.step(100);
      REQUIRE(e.check_invariants().empty());
    }
  });
  with_engine<stacks::vanilla>(t, w, with_smt(2), [&](auto& e) {
    for (int i = 0; i < 40; ++i) {
      e.step(100);
      REQUIRE(e.check_invariants().empty());
    }
  });
}
