// Tasks that sleep and wake, SPECjbb's collections, TLAB first touch and staggered JVM starts.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <numaplace/sim/gc.hpp>
#include <numaplace/sim/sleep_wake.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

// A machine of `nodes` nodes of `cpus` CPUs with one task per listed CPU (task i on cpus[i]).
machine machine_with_tasks(const dynamic_topology& t, const std::vector<cpu_index>& on, unsigned smt = 1) {
  machine_options o;
  o.threads_per_core = smt;
  machine m(t, o);
  m.processes.emplace_back();
  for (const cpu_index c : on) {
    task_state ts(m.node_count());
    ts.cpu = c;
    ts.node = m.cpus[c].node;
    m.cpus[c].tasks.push_back(static_cast<task_index>(m.tasks.size()));
    m.tasks.push_back(std::move(ts));
    ++m.processes[0].live;
  }
  return m;
}

bool on_some_cpu(const machine& m, task_index id) {
  return std::any_of(m.cpus.begin(), m.cpus.end(), [&](const cpu_state& c) {
    return std::find(c.tasks.begin(), c.tasks.end(), id) != c.tasks.end();
  });
}

// One JVM-like process: `threads` mutators with private memory only, memory_bound 0 (work ==
// CPU time), an eden of `eden` chunks filled at `alloc` chunks per second each, collected with
// `work_per_chunk` ms by `gc_threads` workers.
workload collecting(std::size_t threads, std::uint32_t eden, double alloc, double work_per_chunk, unsigned gc_threads,
                    double seconds) {
  process_spec p = private_process("jvm", threads, 0.0);
  p.regions.push_back({eden, true, shared_touch::allocating_threads});
  p.gc.young_region = static_cast<std::uint32_t>(p.regions.size() - 1);
  p.gc.alloc_chunks_per_s = alloc;
  p.gc.work_ms_per_chunk = work_per_chunk;
  p.gc.threads = gc_threads;
  return throughput_workload({p}, seconds);
}

}  // namespace

TEST_CASE("a sleeping task is on no CPU, and wakes on its previous CPU, else an idle CPU of its node, else the previous") {
  const auto topo = direct(2, 4);  // CPUs 0-3 on node 0, 4-7 on node 1
  machine m = machine_with_tasks(topo, {0, 1, 2, 3});
  REQUIRE(m.check() == "");
  m.sleep(0);
  CHECK(m.tasks[0].asleep);
  CHECK_FALSE(on_some_cpu(m, 0));
  CHECK(m.tasks[0].cpu == 0);  // where it last ran
  CHECK(m.check() == "");

  SUBCASE("its previous CPU is idle: it wakes there") { CHECK(select_wake_cpu(m, 0) == 0); }
  SUBCASE("its previous CPU is busy, another of its node idle: that one") {
    m.move(1, 0);  // CPU 1 now idle, CPU 0 busy
    CHECK(select_wake_cpu(m, 0) == 1);
  }
  SUBCASE("its node is full, the other node idle: it stays on its previous CPU") {
    machine full = machine_with_tasks(topo, {0, 0, 1, 2, 3});
    full.sleep(0);  // its previous CPU 0 still runs task 1; CPUs 1-3 busy, node 1 idle
    CHECK(select_wake_cpu(full, 0) == 0);
  }
  // Waking puts it on exactly one queue and the invariants hold again.
  const cpu_index to = select_wake_cpu(m, 0);
  m.wake(0, to);
  CHECK_FALSE(m.tasks[0].asleep);
  CHECK(m.cpus[to].tasks.back() == 0);
  CHECK(m.check() == "");
}

TEST_CASE("with SMT a waking task takes an idle core of its node before an idle sibling") {
  const auto topo = direct(1, 4);                              // one node: cores {0,1} and {2,3}
  machine m = machine_with_tasks(topo, {0, 0}, 2);
  m.sleep(0);  // CPU 0 still runs task 1; its sibling CPU 1 is idle, core {2,3} wholly idle
  CHECK(select_wake_cpu(m, 0) == 2);
}

TEST_CASE("machine::check catches a sleeping task left on a queue and a runnable one on none") {
  const auto topo = direct(1, 2);
  machine m = machine_with_tasks(topo, {0, 1});
  m.tasks[0].asleep = true;  // marked asleep but still queued
  CHECK(m.check().find("sleeps but is on 1 cpus") != std::string::npos);
  m.tasks[0].asleep = false;
  m.cpus[1].tasks.clear();  // task 1 runnable but on no queue
  CHECK(m.check().find("is on 0 cpus") != std::string::npos);
}

TEST_CASE("HotSpot's ParallelGCThreads default: all CPUs up to 8, then 8 + 5/8 of the rest") {
  CHECK(parallel_gc_threads(1) == 1);
  CHECK(parallel_gc_threads(8) == 8);
  CHECK(parallel_gc_threads(16) == 13);
  CHECK(parallel_gc_threads(80) == 53);
  CHECK(parallel_gc_threads(160) == 103);
}

TEST_CASE("over a SPECjbb run with collections the invariants hold after every tick, and pauses stop the mutators") {
  const auto topo = direct(2, 4);
  workload w = workloads::specjbb(2, 4, 4.0, 2);
  with_engine<stacks::linux_modern>(topo, w, {}, [&](auto& e) {
    std::size_t pause_ticks = 0;
    for (int tick = 0; tick < 400; ++tick) {
      e.step(10);
      const std::string broken = e.check_invariants();
      INFO("tick " << tick);
      REQUIRE(broken == "");
      const machine& m = e.state();
      for (std::uint32_t p = 0; p < m.processes.size(); ++p) {
        if (!m.processes[p].in_gc) continue;
        ++pause_ticks;
        for (const auto& t : m.tasks) {
          if (t.process != p || !t.alive) continue;
          CHECK(t.asleep == !t.gc_worker);  // in a pause: workers run, mutators sleep
        }
      }
    }
    const machine& m = e.state();
    // 4 CPUs each of two JVMs' share: 4 workers each; every JVM collected several times.
    std::size_t workers = 0;
    for (const auto& t : m.tasks) workers += t.gc_worker ? 1 : 0;
    CHECK(workers == 8);
    for (const auto& ps : m.processes) CHECK(ps.gc_collections >= 2);  // jvm2 runs from 2 s only
    CHECK(pause_ticks > 0);
    CHECK(e.idle_transitions() > 0);
  });
}

TEST_CASE("TLAB first touch: each warehouse thread's share of eden starts on its node, and collections never move it") {
  const auto topo = direct(4, 2);
  const workload w = workloads::specjbb(1, 8, 3.0, 2);
  with_baseline_engine(topo, w, {}, balancing::none, [&](auto& e) {
    const machine& m = e.state();
    const memory_model& mem = e.memory();
    std::vector<task_index> mutators;
    for (task_index id = 0; id < m.tasks.size(); ++id) {
      if (!m.tasks[id].gc_worker) mutators.push_back(id);
    }
    REQUIRE(mutators.size() == 8);
    const region_state& young = mem.regions[mem.region_base[0] + w.processes[0].gc.young_region];
    REQUIRE(young.chunks.size() == 16 * 8);
    // Every warehouse thread allocated an equal share (16 chunks) on its own node: a node holds
    // 16 chunks per warehouse thread on it, exactly.
    std::vector<std::uint32_t> expected(topo.node_count(), 0);
    for (const task_index id : mutators) expected[m.tasks[id].node] += 16;
    CHECK(young.on_node == expected);
    std::vector<node_index> first_nodes;
    for (const auto& ch : young.chunks) first_nodes.push_back(ch.node);
    // The warehouses' long-lived data was promoted by the collector's workers: on their nodes.
    std::vector<bool> worker_node(topo.node_count(), false);
    for (const auto& t : m.tasks) {
      if (t.gc_worker) worker_node[t.node] = true;
    }
    for (std::size_t t = 0; t < mutators.size(); ++t) {
      const region_state& own = mem.regions[mem.region_base[0] + 2 + t];
      for (const auto& ch : own.chunks) CHECK(worker_node[ch.node]);
    }
    e.step(3000);
    REQUIRE(m.processes[0].gc_collections >= 4);
    // Eden reused in place: without NUMA balancing nothing re-faults or migrates it.
    for (std::size_t c = 0; c < young.chunks.size(); ++c) CHECK(young.chunks[c].node == first_nodes[c]);
  });
}

TEST_CASE("a staggered JVM starts at its time, and its memory is first touched then") {
  const auto topo = direct(2, 4);
  const workload w = workloads::specjbb(2, 4, 3.0, 2);
  REQUIRE(w.processes[1].start_ms == 2000);
  with_engine<stacks::linux_modern>(topo, w, {}, [&](auto& e) {
    const auto tasks_of = [&](std::uint32_t p) {
      std::size_t n = 0;
      for (const auto& t : e.state().tasks) n += t.alive && t.process == p ? 1 : 0;
      return n;
    };
    const auto touched = [&](std::uint32_t p) {
      const memory_model& mem = e.memory();
      for (std::uint32_t r = mem.region_base[p]; r < mem.region_base[p + 1]; ++r) {
        if (!mem.regions[r].touched) return false;
      }
      return true;
    };
    CHECK(tasks_of(0) > 0);
    CHECK(touched(0));
    e.step(1990);
    CHECK(tasks_of(1) == 0);
    CHECK_FALSE(touched(1));
    CHECK_FALSE(e.state().processes[1].started);
    CHECK(e.check_invariants() == "");
    e.step(20);
    CHECK(e.state().processes[1].started);
    CHECK(tasks_of(1) == 4 + 4);  // 4 warehouses, 4 collector threads
    CHECK(touched(1));
    CHECK(e.check_invariants() == "");
    const run_result r = e.run();
    // Measured over its own second of running, the late JVM is not a third as fast.
    CHECK(r.groups[1].throughput > 0.5 * r.groups[0].throughput);
  });
}

TEST_CASE("the share of time in collection pauses is what the collector's parameters give") {
  // 4 mutators on 8 CPUs, each allocating 25 chunks per second of work: an eden of 8 chunks
  // fills in 80 ms (8 ticks). 8 chunks x 5 ms of work over 2 workers: a 20 ms pause (2 ticks).
  // Paused 2 of every 10 ticks.
  const auto topo = direct(2, 4);
  const workload w = collecting(4, 8, 25, 5, 2, 6.0);
  with_baseline_engine(topo, w, {}, balancing::none, [&](auto& e) {
    e.step(6000);
    const process_state& ps = e.state().processes[0];
    const double fraction = ps.gc_pause_ms / 6000.0;
    INFO("pause fraction " << fraction << ", collections " << ps.gc_collections);
    CHECK(fraction == doctest::Approx(0.2).epsilon(0.1));
    CHECK(double(ps.gc_collections) == doctest::Approx(6000.0 / 100.0).epsilon(0.1));
    // The mutators ran the rest of the time.
    CHECK(ps.ops / 4.0 == doctest::Approx(6000.0 * (1.0 - fraction)).epsilon(0.02));
  });
}
