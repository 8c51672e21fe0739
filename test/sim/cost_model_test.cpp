// The cost model's units: what one task achieves per simulated second, worked out by hand
// from cost_model's defaults and compared with what the engine reports.

#include <cmath>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

// Work in ms per simulated second of one task that always runs with access cost `latency`.
double rate(double memory_bound, double latency) { return 1000.0 / (1.0 - memory_bound + memory_bound * latency); }

run_result run_baseline(const dynamic_topology& t, const workload& w, balancing mode, machine_options m = {}) {
  run_options o;
  o.machine = m;
  run_result r;
  with_baseline_engine(t, w, o, mode, [&](auto& e) {
    r = e.run();
    CHECK(e.check_invariants() == "");
  });
  return r;
}

}  // namespace

TEST_CASE("a thread alone with local memory does 1000 ms of work per simulated second") {
  const cost_model c;
  REQUIRE(c.tick_ms == 10.0);
  const auto t = direct(2, 1);
  const workload w = throughput_workload({private_process("solo", 1, 0.3)}, 20.0);
  for (const balancing mode : {balancing::none, balancing::hard_binding}) {
    workload bound = w;
    bound.processes[0].bind_nodes = {1};
    const run_result r = run_baseline(t, bound, mode);
    REQUIRE(r.groups.size() == 1);
    CHECK(r.simulated_seconds == 20.0);
    CHECK(r.ticks == 2000);
    CHECK(r.groups[0].throughput == doctest::Approx(1000.0).epsilon(1e-12));
    CHECK(r.groups[0].local_fraction == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(r.groups[0].task_migrations == 0);
    CHECK(r.groups[0].page_migrations == 0);
  }
}

TEST_CASE("NUMA balancing charges each hinting fault and nothing else to a lone local thread, at the stack's scan pace") {
  const cost_model c;
  const auto t = direct(2, 1);
  // One thread, 4 private chunks (8 MB): every scan covers the whole mm, so every scan is a
  // pass and the first fault after it runs the placement. linux-modern's scan pace (v4.14):
  // the mm's first scan waits the 1 s delay; the task's period starts at task_scan_start =
  // task_scan_min = max(100, 1000 / 1 window) = 1000 ms. The first placement's window is
  // empty, so update_task_scan_period backs off: period 2000, the mm's next scan at 3000.
  // Later windows are all private and local: + 3 slots of period/10 each time (2600, 3380,
  // 4394, 5714). Scans at 1000, 3000, 5000, 7600, 10980 and 15380 ms (the next: 21094):
  // 6 scans of 4 chunks in 20 s.
  const workload w = throughput_workload({private_process("solo", 1, 0.3)}, 20.0);
  run_result r;
  with_engine<stacks::linux_modern>(t, w, {}, [&](auto& e) { r = e.run(); });
  const std::uint64_t faults = r.events - r.ticks;  // one task: its task-ticks are the ticks
  CHECK(faults == 6 * 4);
  const double lost_ms = (1000.0 - r.groups[0].throughput) * r.simulated_seconds;
  CHECK(lost_ms == doctest::Approx(double(faults) * c.hinting_fault_cost_ms).epsilon(1e-9));
  CHECK(r.groups[0].page_migrations == 0);
  CHECK(r.groups[0].task_migrations == 0);
}

TEST_CASE("remote memory costs SLIT distance over the local distance, for the memory-bound share") {
  // Two threads on two single-CPU nodes both work on one region that the first thread's node
  // holds (first touch); without NUMA balancing nothing moves. The second thread's accesses are
  // all remote: its speed is 1 / (1 - mb + mb * 17/10).
  const auto t = direct(2, 1, 17);
  process_spec p;
  p.name = "pair";
  p.memory_bound = 0.3;
  p.regions.push_back({8, false});
  p.threads = {{{{0, 1.0}}}, {{{0, 1.0}}}};
  const workload w = throughput_workload({p}, 20.0);
  for (const std::uint64_t seed : {1, 2, 3}) {
    run_options o;
    o.seed = seed;
    run_result r;
    with_baseline_engine(t, w, o, balancing::none, [&](auto& e) {
      r = e.run();
      CHECK(e.check_invariants() == "");
    });
    const double local = rate(0.3, 1.0), remote = rate(0.3, 1.7);
    CHECK(local == doctest::Approx(1000.0).epsilon(1e-12));
    CHECK(r.groups[0].throughput == doctest::Approx(local + remote).epsilon(1e-12));
    CHECK(r.groups[0].local_fraction == doctest::Approx(local / (local + remote)).epsilon(1e-12));
    // Both nodes hold a task, all memory is on one node.
    REQUIRE(r.groups[0].memory_nodes.size() == 1);
    CHECK(r.groups[0].tasks_over_time.back().tasks_per_node == std::vector<std::uint32_t>{1, 1});
  }
}

TEST_CASE("a node's memory serves bandwidth_cpus_fraction of its CPUs before accesses slow down") {
  // Two fully memory-bound threads bound to node 0 (2 CPUs): demand 2, capacity 2 x 0.5 = 1,
  // so every access costs twice the local latency and each thread runs at half speed.
  const cost_model c;
  REQUIRE(c.bandwidth_cpus_fraction == 0.5);
  const auto t = direct(2, 2);
  workload w = throughput_workload({private_process("streams", 2, 1.0)}, 10.0);
  w.processes[0].bind_nodes = {0};
  const run_result r = run_baseline(t, w, balancing::hard_binding);
  CHECK(r.groups[0].throughput == doctest::Approx(2 * rate(1.0, 2.0)).epsilon(1e-12));
  CHECK(r.groups[0].throughput == doctest::Approx(1000.0).epsilon(1e-12));
  // At memory_bound 0.5 the demand (1) fits the capacity: no slowdown.
  w.processes[0].memory_bound = 0.5;
  CHECK(run_baseline(t, w, balancing::hard_binding).groups[0].throughput == doctest::Approx(2000.0).epsilon(1e-12));
}

TEST_CASE("two busy SMT siblings each run at smt_busy_speed") {
  const cost_model c;
  const auto t = direct(2, 2);
  workload w = throughput_workload({private_process("siblings", 2, 0.3)}, 10.0);
  w.processes[0].bind_nodes = {0};
  machine_options smt;
  smt.threads_per_core = 2;
  const run_result shared = run_baseline(t, w, balancing::hard_binding, smt);
  CHECK(shared.groups[0].throughput == doctest::Approx(2 * 1000.0 * c.smt_busy_speed).epsilon(1e-12));
  CHECK(shared.groups[0].throughput == doctest::Approx(1250.0).epsilon(1e-12));
  // The same two threads on two cores.
  const run_result apart = run_baseline(t, w, balancing::hard_binding);
  CHECK(apart.groups[0].throughput == doctest::Approx(2000.0).epsilon(1e-12));
  // One thread on a core whose sibling idles runs at full speed.
  w.processes[0] = private_process("alone", 1, 0.3);
  w.processes[0].bind_nodes = {0};
  CHECK(run_baseline(t, w, balancing::hard_binding, smt).groups[0].throughput == doctest::Approx(1000.0).epsilon(1e-12));
}

TEST_CASE("two tasks sharing one CPU each get half of it") {
  const auto t = direct(2, 1);
  workload w = throughput_workload({private_process("a", 1, 0.3), private_process("b", 1, 0.3)}, 10.0);
  w.processes[0].bind_nodes = {0};
  w.processes[1].bind_nodes = {0};
  const run_result r = run_baseline(t, w, balancing::hard_binding);
  REQUIRE(r.groups.size() == 2);
  CHECK(r.groups[0].throughput == doctest::Approx(500.0).epsilon(1e-12));
  CHECK(r.groups[1].throughput == doctest::Approx(500.0).epsilon(1e-12));
  CHECK(r.total_throughput() == doctest::Approx(1000.0).epsilon(1e-12));
}

TEST_CASE("elapsed time is the CPU work divided by the speed") {
  // One thread, 2000 ms of work, alone and local: done after 2 simulated seconds (the tick
  // that completes it counts).
  const auto t = direct(2, 1);
  workload w = throughput_workload({private_process("job", 1, 0.25)}, 60.0);  // 0.75 + 0.25 == 1 exactly
  w.report_elapsed = true;
  w.work_per_thread_ms = 2000;
  const run_result r = run_baseline(t, w, balancing::none);
  CHECK(r.groups[0].elapsed_seconds == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(r.simulated_seconds == doctest::Approx(2.0).epsilon(1e-9));
}
