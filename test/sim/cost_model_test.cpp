// The cost model's units: what one task achieves per simulated second, worked out by hand
// from cost_model's defaults and compared with what the engine reports.

#include <cmath>

#include <numaplace/topology/presets.hpp>

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
  // What it lost is the balancer's time, and the report says so.
  CHECK(r.groups[0].balancer_seconds * 1000.0 == doctest::Approx(lost_ms).epsilon(1e-9));
  CHECK(r.groups[0].page_migrations == 0);
  CHECK(r.groups[0].task_migrations == 0);
}

namespace {

// Two nodes whose measured remote latency is `remote` times local, with memory that never
// queues unless a test gives it a curve.
machine_costs two_nodes(double remote) {
  machine_costs hw;
  hw.name = "test pair";
  hw.latency_ratio = {1.0, remote, remote, 1.0};
  hw.node_bandwidth_gbs = {1000.0, 1000.0};
  hw.core_stream_gbs = 10.0;
  hw.loaded.points = {{0.0, 1.0}, {1.0, 1.0}};
  return hw;
}

// Latency factor 1 + utilisation: fixed points solvable by hand.
const loaded_latency_curve one_plus_utilisation{{{0.0, 1.0}, {1.0, 2.0}}};

// Two threads on two single-CPU nodes working on one region that the first thread's node holds
// (first touch); without NUMA balancing nothing moves. Returns the run.
run_result shared_pair(const machine_costs* hw, double memory_bound = 0.3, double streaming = 0.5) {
  const auto t = direct(2, 1, 17);
  process_spec p;
  p.name = "pair";
  p.memory_bound = memory_bound;
  p.streaming = streaming;
  p.regions.push_back({8, false});
  p.threads = {{{{0, 1.0}}}, {{{0, 1.0}}}};
  const workload w = throughput_workload({p}, 20.0);
  run_options o;
  if (hw) o.hardware = *hw;
  run_result r;
  with_baseline_engine(t, w, o, balancing::none, [&](auto& e) {
    r = e.run();
    CHECK(e.check_invariants() == "");
  });
  REQUIRE(r.groups[0].memory_nodes.size() == 1);
  CHECK(r.groups[0].tasks_over_time.back().tasks_per_node == std::vector<std::uint32_t>{1, 1});
  return r;
}

}  // namespace

TEST_CASE("remote memory costs the machine's measured latency ratio, not SLIT's, for the memory-bound share") {
  // The second thread's accesses are all remote: its speed is 1 / (1 - mb + mb * 1.3), though
  // SLIT says 17.
  const machine_costs hw = two_nodes(1.3);
  const run_result r = shared_pair(&hw);
  const double local = rate(0.3, 1.0), remote = rate(0.3, 1.3);
  CHECK(local == doctest::Approx(1000.0).epsilon(1e-12));
  CHECK(r.groups[0].throughput == doctest::Approx(local + remote).epsilon(1e-12));
  CHECK(r.groups[0].local_fraction == doctest::Approx(local / (local + remote)).epsilon(1e-12));
  // With no measurement the ratio is derived from SLIT: 1 + (17/10 - 1) / 2 = 1.35.
  const run_result derived = shared_pair(nullptr);
  CHECK(derived.groups[0].throughput == doctest::Approx(local + rate(0.3, 1.35)).epsilon(1e-12));
}

TEST_CASE("a node's memory slows along the loaded-latency curve as its demand nears its bandwidth") {
  // Two fully memory-bound streaming threads bound to node 0 of a machine whose nodes serve
  // 10 GB/s; each asks for 10 GB/s at full speed. At speed p the node carries 20p GB/s,
  // utilisation 2p, latency factor 1 + 2p, so p = 1 / (1 + 2p): p = 1/2, and the node runs at
  // exactly its bandwidth.
  const auto t = direct(2, 2);
  machine_costs hw = two_nodes(1.5);
  hw.node_bandwidth_gbs = {10.0, 10.0};
  hw.loaded = one_plus_utilisation;
  process_spec p = private_process("streams", 2, 1.0);
  p.streaming = 1.0;
  p.bind_nodes = {0};
  workload w = throughput_workload({p}, 10.0);
  run_options o;
  o.hardware = hw;
  run_result r;
  with_baseline_engine(t, w, o, balancing::hard_binding, [&](auto& e) { r = e.run(); });
  CHECK(r.groups[0].throughput == doctest::Approx(2 * 500.0).epsilon(2e-3));
  // A latency-bound thread pair asks for 64 bytes per 100 ns each (1.28 GB/s in all): the
  // curve adds 12.8 %, p = 1 / (1 + 0.128 p).
  w.processes[0].streaming = 0.0;
  with_baseline_engine(t, w, o, balancing::hard_binding, [&](auto& e) { r = e.run(); });
  const double q = (-1.0 + std::sqrt(1.0 + 4 * 0.128)) / (2 * 0.128);
  CHECK(r.groups[0].throughput == doctest::Approx(2 * 1000.0 * q).epsilon(2e-3));
}

TEST_CASE("a link on the route queues like memory: the busiest link sets the remote cost") {
  // One streaming thread on node 1 works on memory node 0 holds (its partner on node 0 idles on
  // its own, tiny region): over a 5 GB/s link its 10 GB/s at full speed loads the link to 2p,
  // so p = 1 / (ratio * (1 + 2p)) with ratio 1: p = 1/2. Without the link, p = 1.
  const auto t = direct(2, 1, 17);
  process_spec p;
  p.name = "remote-stream";
  p.memory_bound = 1.0;
  p.streaming = 1.0;
  p.regions = {{8, false}, {1, false}};
  // Thread 0 (node 0) lists region 0 first, so first-touches it; it works on region 1 only.
  p.threads = {{{{0, 0.0}, {1, 1.0}}}, {{{0, 1.0}}}};
  const workload w = throughput_workload({p}, 10.0);
  machine_costs hw = two_nodes(1.0);
  hw.node_bandwidth_gbs = {1e6, 1e6};  // memory itself queues by 1e-5 at most
  hw.loaded = one_plus_utilisation;
  const auto remote_thread_rate = [&](const machine_costs& costs) {
    run_options o;
    o.hardware = costs;
    run_result r;
    with_baseline_engine(t, w, o, balancing::none, [&](auto& e) { r = e.run(); });
    return r.groups[0].throughput - 1000.0;  // thread 0 runs locally at full speed
  };
  CHECK(remote_thread_rate(hw) == doctest::Approx(1000.0).epsilon(1e-4));
  hw.links = {{0, 1, 5.0}};
  CHECK(remote_thread_rate(hw) == doctest::Approx(500.0).epsilon(2e-3));
}

TEST_CASE("from_slit gives every machine links at half the smaller node's bandwidth, and says so") {
  // Nodes of 8, 4 and no CPUs: 40, 20 and 10 GB/s (CPUs/2 x 10, at least one core's worth).
  const dynamic_topology t = direct(3, 1);
  const machine_costs c = from_slit(t, {8, 4, 0});
  CHECK(c.node_bandwidth_gbs == std::vector<double>{40.0, 20.0, 10.0});
  REQUIRE(c.links.size() == 3);
  CHECK(c.links[0].gb_per_s == 10.0);
  CHECK(c.links[1].gb_per_s == 5.0);
  CHECK(c.links[2].gb_per_s == 5.0);
  CHECK_FALSE(validate(c, 3));
  CHECK(c.assumption.find("links derived from SLIT") != std::string::npos);
  CHECK(c.assumption.find("half the smaller node's bandwidth") != std::string::npos);
  for (const auto& p : presets::all()) {
    INFO(p.name);
    const dynamic_topology m = p.build();
    std::vector<std::size_t> cpus;
    for (node_index i = 0; i < m.node_count(); ++i) cpus.push_back(m.cpus(i).size());
    const machine_costs d = from_slit(m, cpus);
    CHECK_FALSE(d.links.empty());
    CHECK_MESSAGE(!validate(d, m.node_count()), validate(d, m.node_count()).value_or(""));
  }
}

TEST_CASE("on a machine nobody measured, a stream from remote memory is held back by the derived link") {
  // Two nodes of 8 CPUs, 10/20: from_slit gives each node 4 x 10 = 40 GB/s, the link half
  // that and remote latency 1.5x. Three fully memory-bound streaming threads on node 0 ask for
  // 30 GB/s at full speed. With their memory local, node 0 serves them at 3/4 of its
  // bandwidth: p = 1 / f(0.75 p), p = 0.86, 25.7 GB/s. With all of it on node 1 the link loads
  // to 1.5 p as well: p = 1 / (1.5 f(0.75 p) f(1.5 p)), p = 0.50, 15 GB/s; latency alone
  // (no link) would leave them 19.2 GB/s, past local / 1.5.
  const auto t = direct(2, 8);
  process_spec p = private_process("stream", 3, 1.0);
  p.streaming = 1.0;
  p.bind_nodes = {0};
  const workload w = throughput_workload({p}, 10.0);
  const auto gbs = [&](balancing mode) {
    run_result r;
    with_baseline_engine(t, w, {}, mode, [&](auto& e) { r = e.run(); });
    REQUIRE(r.groups[0].memory_nodes == std::vector<node_id>{node_id(mode == balancing::hard_binding ? 0 : 1)});
    return r.groups[0].throughput / 1000.0 * 10.0;  // each thread asks for 10 GB/s at full speed
  };
  const double local = gbs(balancing::hard_binding), remote = gbs(balancing::inverse_binding);
  const double link_gbs = 20.0, ratio = 1.5;
  CHECK(local == doctest::Approx(25.7).epsilon(0.01));
  CHECK(remote == doctest::Approx(15.0).epsilon(0.01));
  CHECK(remote < local / ratio);
  CHECK(remote < link_gbs);
  const machine_costs hw = from_slit(t, {8, 8});
  CHECK(hw.ratio(0, 1) == ratio);
  REQUIRE(hw.links.size() == 1);
  CHECK(hw.links[0].gb_per_s == link_gbs);
}

TEST_CASE("a run refuses costs that do not fit its machine, naming what is wrong") {
  const auto t = direct(2, 1);
  machine_costs hw = two_nodes(1.5);
  hw.latency_ratio[1] = 0.5;
  run_options o;
  o.hardware = hw;
  const workload w = throughput_workload({private_process("solo", 1, 0.3)}, 1.0);
  std::string message;
  try {
    with_baseline_engine(t, w, o, balancing::none, [](auto& e) { e.run(); });
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message == "machine costs 'test pair': latency_ratio(0, 1) is 0.500000, not in [1, 100]");
}

TEST_CASE("busy SMT siblings share their core's throughput: 1.25x for two, 1.75x for four") {
  const cost_model c;
  const auto t = direct(2, 2);
  workload w = throughput_workload({private_process("siblings", 2, 0.3)}, 10.0);
  w.processes[0].bind_nodes = {0};
  machine_options smt;
  smt.threads_per_core = 2;
  const run_result shared = run_baseline(t, w, balancing::hard_binding, smt);
  CHECK(shared.groups[0].throughput == doctest::Approx(2 * 1000.0 * c.smt_speed(2)).epsilon(1e-12));
  CHECK(shared.groups[0].throughput == doctest::Approx(1250.0).epsilon(1e-12));
  // Four threads on one SMT4 core (POWER7).
  machine_options smt4;
  smt4.threads_per_core = 4;
  workload four = throughput_workload({private_process("smt4", 4, 0.3)}, 10.0);
  four.processes[0].bind_nodes = {0};
  CHECK(run_baseline(direct(2, 4), four, balancing::hard_binding, smt4).groups[0].throughput ==
        doctest::Approx(1750.0).epsilon(1e-12));
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

TEST_CASE("on saturated nodes, all memory local is faster than the same CPUs with all memory remote") {
  // Two numa01_THREAD_ALLOC processes of 16 streaming threads on 8 nodes of 8 CPUs, costs
  // derived from SLIT: hard binding puts each process's CPUs and memory on the same nodes,
  // inverse binding the same CPUs with the memory on the farthest nodes. Every node's memory
  // is far past its bandwidth either way. The former solver's two-state cycle gave inverse
  // binding about half the elapsed time of hard binding here.
  const auto t = generate::fully_connected(8, 20, {8, std::uint64_t{1} << 32});
  workload w = workloads::numa01_thread_alloc(16, 512, 2000);
  bind_nearest(w, t, machine_options{});
  const auto elapsed = [&](balancing mode) {
    run_result r;
    with_baseline_engine(t, w, {}, mode, [&](auto& e) {
      r = e.run();
      CHECK(e.check_invariants() == "");
    });
    CHECK(r.settles.unsettled == 0);
    return r.max_elapsed();
  };
  const double local = elapsed(balancing::hard_binding), remote = elapsed(balancing::inverse_binding);
  INFO("hard binding ", local, " s, inverse binding ", remote, " s");
  CHECK(local > 0);
  CHECK(local < remote);
}

namespace {

// A group's balancer time is its hinting faults and its page copies at the cost model's prices;
// summed over the groups, the faults are the run's. Returns the run's balancer seconds.
template <class Stack>
double balancer_time_adds_up(const dynamic_topology& t, const workload& w) {
  const cost_model c;
  double seconds = 0;
  with_engine<Stack>(t, w, run_options{}, [&](auto& e) {
    const run_result r = e.run();
    double faults = 0;
    for (const group_result& g : r.groups) {
      const double copies_ms = double(g.page_migrations) * c.page_migrate_cost_ms;
      CHECK(g.balancer_seconds * 1000.0 >= copies_ms);
      faults += (g.balancer_seconds * 1000.0 - copies_ms) / c.hinting_fault_cost_ms;
      seconds += g.balancer_seconds;
    }
    CHECK(faults == doctest::Approx(double(e.hinting_faults())).epsilon(1e-6));
  });
  return seconds;
}

}  // namespace

TEST_CASE("the balancer's time is every hinting fault and page copy, interleaving's included, and 0 without it") {
  // seed 001's system time, 1686 s before its fix
  on_random_machines(1686, 3, 4, 3, [&](const dynamic_topology& t, const shape& c) {
    // numa02's pages all start on node 0 and follow their threads; two small JVMs share their
    // heaps, which numa/core's patch 33 interleaves with mbind copies.
    const workload numa02 = workloads::numa02(c.nodes * c.cpus, 4, 5'000);
    CHECK(balancer_time_adds_up<stacks::linux_3_8>(t, numa02) > 0);
    CHECK(balancer_time_adds_up<stacks::linux_4_19_rc5>(t, numa02) > 0);
    const workload jvms = workloads::specjbb(2, c.cpus / 2, 10.0);
    CHECK(balancer_time_adds_up<stacks::numa_core_interleave>(t, jvms) > 0);
    run_result none;
    with_baseline_engine(t, numa02, run_options{}, balancing::none, [&](auto& e) { none = e.run(); });
    for (const group_result& g : none.groups) CHECK(g.balancer_seconds == 0.0);
  });
}
