// The `linux-2.5` baseline: the O(1) scheduler before scheduling domains, which sees every CPU
// as equal. Its load_balance() rules, children on their parent's CPU, and what that costs on
// a machine with SMT siblings, against CFS over sched domains, on random machines and on seed
// 002's.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/o1_scheduler.hpp>
#include <numaplace/sim/seed_presets.hpp>
#include <numaplace/topology/presets.hpp>

#include "sim_support.hpp"

namespace {

using namespace sim_test;

// A world with no threads of its own: the tests place tasks by hand.
struct bench {
  dynamic_topology t;  // the world keeps a reference to it
  workload w = throughput_workload({private_process("p", 0, 0.3)}, 10.0);
  world s;
  explicit bench(dynamic_topology topology) : t(std::move(topology)), s(t, w, smt2()) { s.m.processes.emplace_back(); }

  static run_options smt2() {
    run_options o;
    o.machine.threads_per_core = 2;
    o.scheduler = cpu_scheduler::o1;
    return o;
  }
  task_index add(cpu_index c) {
    task_state t(s.m.node_count());
    t.cpu = c;
    t.node = s.m.cpus[c].node;
    const auto id = static_cast<task_index>(s.m.tasks.size());
    s.m.tasks.push_back(std::move(t));
    s.m.cpus[c].tasks.push_back(id);
    ++s.m.processes[0].live;
    return id;
  }
  std::size_t queued(cpu_index c) const { return s.m.cpus[c].tasks.size(); }
};

// Cores running two tasks on their siblings while another core has nothing to run.
unsigned doubled_cores_beside_idle_ones(const machine& m) {
  unsigned doubled = 0, idle = 0;
  for (const auto& core : m.core_cpus) {
    unsigned busy = 0;
    for (auto c : core) busy += m.cpus[c].tasks.empty() ? 0u : 1u;
    doubled += busy > 1 ? 1u : 0u;
    idle += busy == 0 ? 1u : 0u;
  }
  return idle > 0 ? doubled : 0u;
}

}  // namespace

TEST_CASE("load_balance() of the O(1) scheduler: an idle CPU takes one queued task from the longest runqueue") {
  bench b(presets::find("seed002-ht")->build());  // 8 CPUs, siblings 2k and 2k+1
  const task_index running = b.add(0);
  for (int i = 0; i < 3; ++i) b.add(0);
  b.add(3);
  b.add(3);

  CHECK(o1_balancer::balance(b.s, 5, true) == 1);  // idle: one task, whatever the imbalance
  CHECK(b.queued(0) == 3);                          // the longest queue gave it
  CHECK(b.queued(5) == 1);
  CHECK(b.s.m.cpus[0].tasks.front() == running);   // never the running task
  CHECK(o1_balancer::balance(b.s, 6, true) == 1);
  CHECK(o1_balancer::balance(b.s, 7, true) == 1);   // from 0 or 3, both at two now
  CHECK(o1_balancer::balance(b.s, 1, true) == 1);
  CHECK(b.queued(0) + b.queued(3) == 2);
  // Queues of one task each: nothing is left to take, not even from a busy core's sibling.
  CHECK(o1_balancer::balance(b.s, 2, true) == 0);
  CHECK(b.s.m.cpus[0].tasks.front() == running);
}

TEST_CASE("load_balance() of the O(1) scheduler: a busy CPU pulls half the difference, when that is a quarter") {
  bench b(presets::find("seed002-ht")->build());
  for (int i = 0; i < 3; ++i) b.add(0);
  b.add(2);
  b.add(2);
  CHECK(o1_balancer::balance(b.s, 2, false) == 0);  // 3 against 2: half of 1 is under (3 + 3) / 4
  CHECK(b.queued(2) + b.queued(0) == 5);
  for (int i = 0; i < 5; ++i) b.add(0);  // 8 against 2
  CHECK(o1_balancer::balance(b.s, 2, false) == 3);  // 8 against 2: half of 6, at least (8 + 3) / 4
  CHECK(b.queued(0) == 5);
  CHECK(b.queued(2) == 5);
  b.add(4);
  CHECK(o1_balancer::balance(b.s, 4, false) == 2);  // 5 against 1: half of 4, at least (5 + 3) / 4
}

TEST_CASE("the O(1) scheduler starts a child on its parent's CPU, a process's first task on its first CPU") {
  bench b(presets::find("seed002-ht")->build());
  CHECK(o1_fork_cpu(b.s, 0, no_cpu) == 0);
  b.add(5);
  CHECK(o1_fork_cpu(b.s, 0, no_cpu) == 5);  // forked by the process's running task
  CHECK(o1_fork_cpu(b.s, 0, 3) == 3);       // forked where the parent runs
}

TEST_CASE("random machines: the O(1) scheduler doubles up siblings beside idle cores; sched domains never do") {
  // As many jobs at a time as the machine has cores, on 1 to 4 nodes of 1 to 4 two-thread
  // cores. CFS over sched domains puts a new job on an idle core (fork placement, then
  // select_idle_sibling's idle core first) and its SMT level pulls; the O(1) scheduler forks
  // on the parent's CPU and its idle CPUs pull whatever queue is longest, siblings or not.
  random_engine rng(7);
  unsigned o1_seen = 0, domains_seen = 0, machines = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t nodes = 1 + random_index(rng, 4);
    const unsigned cores = 1 + static_cast<unsigned>(random_index(rng, 4));
    const auto t = direct(nodes, 2 * cores);
    const std::size_t jobs = nodes * cores;
    if (jobs < 2) continue;
    ++machines;
    workload w = workloads::make_j(jobs, static_cast<std::uint32_t>(jobs * 6), 500);
    for (const cpu_scheduler sched : {cpu_scheduler::o1, cpu_scheduler::sched_domains}) {
      run_options o;
      o.seed = 100 + static_cast<std::uint64_t>(trial);
      o.machine.threads_per_core = 2;
      o.scheduler = sched;
      unsigned worst = 0;
      with_baseline_engine(t, w, o, balancing::none, [&](auto& e) {
        for (int step = 0; step < 20; ++step) {
          e.step(100);
          worst = std::max(worst, doubled_cores_beside_idle_ones(e.state()));
          REQUIRE(e.check_invariants().empty());
        }
      });
      INFO("trial " << trial << ": " << nodes << " nodes x " << cores << " cores, "
                    << (sched == cpu_scheduler::o1 ? "O(1)" : "sched domains") << ": " << worst);
      if (sched == cpu_scheduler::o1) {
        o1_seen += worst > 0 ? 1u : 0u;
      } else {
        CHECK(worst == 0);
        domains_seen += worst > 0 ? 1u : 0u;
      }
    }
  }
  INFO(o1_seen << " of " << machines << " machines doubled up under the O(1) scheduler");
  CHECK(domains_seen == 0);
  CHECK(o1_seen * 2 > machines);
}

TEST_CASE("seed002: the stock O(1) scheduler loses to one that spreads make's jobs over cores, by SMT alone") {
  // Seed 002's baseline: jobs land on siblings of busy cores while whole cores idle, and stay
  // (make, woken where a job exits, forks the next one there). Without SMT both schedulers keep
  // four CPUs busy; what is left is the preset's bus split evenly over its "nodes" (two jobs
  // on one node share a quarter of it): about 1 %.
  experiment e = seed002_preset().experiments.at(0);
  REQUIRE(e.stacks == std::vector<std::string>{"linux-2.5", "linux-modern"});
  e.runs = 6;
  const auto smt = run_experiment(e);
  const double stock = mean_metric(of(smt, "linux-2.5"), seed_claim::metric::elapsed);
  const double spread = mean_metric(of(smt, "linux-modern"), seed_claim::metric::elapsed);
  INFO("with SMT: linux-2.5 " << stock << " s, linux-modern " << spread << " s");
  CHECK(stock > spread * 1.05);

  e.machine.threads_per_core = 1;
  e.hardware->threads_per_core = 1;
  const auto flat = run_experiment(e);
  const double stock1 = mean_metric(of(flat, "linux-2.5"), seed_claim::metric::elapsed);
  const double spread1 = mean_metric(of(flat, "linux-modern"), seed_claim::metric::elapsed);
  INFO("without SMT: linux-2.5 " << stock1 << " s, linux-modern " << spread1 << " s");
  CHECK(stock1 >= spread1);
  CHECK(stock1 < spread1 * 1.03);
  CHECK(stock - spread > 5 * (stock1 - spread1));
}
