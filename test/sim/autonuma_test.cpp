// autonuma-benchmark as its default builds run it: numa01 and numa01_THREAD_ALLOC fault all
// of both processes' memory in on one node (NO_BIND_FORCE_SAME_NODE), numa02's main thread
// writes all of its 1 GiB first, and the binding baselines bind as its HARD_BIND builds do,
// without the forced first touch.

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <numaplace/sim/binding.hpp>
#include <numaplace/sim/first_touch.hpp>
#include <numaplace/sim/memory_load.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

const std::vector<node_id> node0{0};

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("numa01 and numa01_THREAD_ALLOC start every chunk of both processes on node 0, and stay there unbalanced") {
  const auto t = direct(4, 4);
  for (workload w : {workloads::numa01(8, 64, 300), workloads::numa01_thread_alloc(8, 64, 300)}) {
    INFO(w.name);
    const run_result r = run_stack(t, w, no_balancing_name, {});
    REQUIRE(r.groups.size() == 2);
    for (const auto& g : r.groups) {
      CHECK(g.memory_nodes == node0);
      CHECK(g.page_migrations == 0);
      // Only the threads that run on node 0 are local: a quarter of the CPUs, and faster.
      CHECK(g.local_fraction < 0.5);
    }
  }
}

TEST_CASE("NUMA balancing spreads numa01_THREAD_ALLOC's memory off node 0 and wins") {
  const auto t = direct(4, 4);
  const workload w = workloads::numa01_thread_alloc(8, 64, 2000);
  const run_result none = run_stack(t, w, no_balancing_name, {});
  const run_result balanced = run_stack(t, w, "linux-modern", {});
  for (std::size_t p = 0; p < 2; ++p) {
    INFO("process " << p);
    CHECK(balanced.groups[p].memory_nodes.size() > 1);
    CHECK(balanced.groups[p].local_fraction > 0.9);
    CHECK(balanced.groups[p].elapsed_seconds < none.groups[p].elapsed_seconds);
  }
}

TEST_CASE("a binding baseline's memory binding replaces the forced first touch, as the HARD_BIND builds do") {
  const auto t = direct(4, 4);
  workload w = workloads::numa01(8, 64, 300);
  bind_nearest(w, t, machine_options{});
  const run_result hard = run_stack(t, w, hard_binding_name, {});
  for (std::size_t p = 0; p < 2; ++p) {
    const auto& bound = w.processes[p].bind_nodes;
    INFO("process " << p);
    CHECK(hard.groups[p].memory_nodes == std::vector<node_id>(bound.begin(), bound.end()));
    CHECK(hard.groups[p].local_fraction > 0.4);  // half the heap on each task's node
  }
}

TEST_CASE("numa02's main thread writes its 1 GiB first: unbalanced it stays on one node, balanced it spreads") {
  const auto t = direct(4, 4);
  const workload w = workloads::numa02(16, 0, 1000);
  std::uint32_t chunks = 0;
  for (const auto& r : w.processes[0].regions) chunks += r.chunks;
  CHECK(chunks == 512);
  CHECK(workloads::numa02(96).processes[0].regions[0].chunks == 5);   // 512 / 96, rounded down
  CHECK(workloads::numa02(1024).processes[0].regions[0].chunks == 1);  // one chunk each at least
  const run_result none = run_stack(t, w, no_balancing_name, {});
  CHECK(none.groups[0].memory_nodes.size() == 1);
  CHECK(none.groups[0].local_fraction < 0.5);
  const run_result balanced = run_stack(t, w, "linux-modern", {});
  CHECK(balanced.groups[0].memory_nodes.size() == 4);
  CHECK(balanced.groups[0].local_fraction > 0.8);
  CHECK(balanced.groups[0].elapsed_seconds < none.groups[0].elapsed_seconds);
}

TEST_CASE("forced first touch puts each chunk on the allowed node nearest its toucher, ties in turn") {
  // A ring of 4: node 2 is two hops from 0 and one from 1 and 3.
  const auto t = generate::ring(4, 10, {2, std::uint64_t{1} << 30});
  workload w = throughput_workload({private_process("p", 1, 0.5)}, 1);
  world s(t, w, run_options{});
  const std::vector<std::uint32_t> both{1, 3};
  CHECK(bound_node_for(s, std::vector<std::uint32_t>{0, 1}, 2, 0, 0) == 1);
  CHECK(bound_node_for(s, std::vector<std::uint32_t>{0, 2}, 2, 7, 0) == 2);
  CHECK(bound_node_for(s, both, 2, 0, 0) == 1);
  CHECK(bound_node_for(s, both, 2, 1, 0) == 3);
}

TEST_CASE("first-touch nodes beyond the machine are refused, naming the process and the node") {
  workload w = workloads::numa01(2, 8, 100);
  w.processes[1].first_touch_nodes = {4};
  CHECK(error_of([&] { run_stack(direct(4, 2), w, no_balancing_name, {}); }) ==
        "process numa01-2 first touches its memory on node index 4 beyond the topology");
}

TEST_CASE("numa02's binding builds bind thread by thread: thread i's part on node i*n/T, inverse on the mirror") {
  const auto t = direct(4, 2);
  const std::vector<node_index> homes{0, 0, 1, 1, 2, 2, 3, 3}, mirrored{3, 3, 2, 2, 1, 1, 0, 0};
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("thread " << i);
    CHECK(bind_thread(t, 8, i).home == homes[i]);
    CHECK(bind_thread(t, 8, i).mirrored == mirrored[i]);
  }
  // Nodes without CPUs take no thread: the n are the nodes with CPUs.
  std::vector<node_attributes> attrs(3);
  for (node_index n = 0; n < 3; ++n) attrs[n].id = n;
  attrs[1].has_cpu = false;
  const dynamic_topology gpu({{10, 20, 20}, {20, 10, 20}, {20, 20, 10}}, attrs);
  CHECK(bind_thread(gpu, 4, 1).home == 0);
  CHECK(bind_thread(gpu, 4, 2).home == 2);
  CHECK(bind_thread(gpu, 4, 0).mirrored == 2);
  // T not a multiple of n stays on the machine (the benchmark's i / (T / n) would not).
  CHECK(bind_thread(t, 10, 9).home == 3);
}

TEST_CASE("numa02 hard-bound is all local and fastest, inverse-bound all remote, both without a process binding") {
  const auto t = direct(4, 4);
  const workload w = workloads::numa02(16, 0, 500);
  const run_result hard = run_stack(t, w, hard_binding_name, {});
  const run_result inverse = run_stack(t, w, inverse_binding_name, {});
  const run_result balanced = run_stack(t, w, "linux-modern", {});
  CHECK(hard.groups[0].local_fraction == 1.0);
  CHECK(hard.groups[0].memory_nodes == std::vector<node_id>{0, 1, 2, 3});
  CHECK(inverse.groups[0].local_fraction == 0.0);
  CHECK(inverse.groups[0].memory_nodes == std::vector<node_id>{0, 1, 2, 3});
  CHECK(inverse.groups[0].page_migrations == 0);
  CHECK(hard.groups[0].elapsed_seconds <= balanced.groups[0].elapsed_seconds);
  CHECK(inverse.groups[0].elapsed_seconds > hard.groups[0].elapsed_seconds);
}

TEST_CASE("the benchmarks run as long as their sources say: sweeps of their buffers, timed at each machine's stream") {
  constexpr double gib = 1024.0 * 1024 * 1024;
  CHECK(workloads::numa01(48).processes[0].work_bytes_per_thread == 51 * 3 * gib);
  CHECK(workloads::numa01_thread_alloc(48).processes[1].work_bytes_per_thread == 3 * gib + 1000 * 32 * 2 * 1024.0 * 1024);
  CHECK(workloads::numa02(64).processes[0].work_bytes_per_thread == 800 * gib / 64);
  // An explicit CPU time replaces them (short tests).
  CHECK(workloads::numa02(64, 0, 500).processes[0].work_bytes_per_thread == 0);
  // 9.5 GB at 0.95 x 10 GB/s: one second of work at full local speed; twice as long on a
  // core that streams half as fast.
  process_spec p = workloads::numa02(4).processes[0];
  p.work_bytes_per_thread = 9.5e9;
  machine_costs hw;
  hw.core_stream_gbs = 10;
  CHECK(thread_work_ms(p, hw, 123) == doctest::Approx(1000));
  hw.core_stream_gbs = 5;
  CHECK(thread_work_ms(p, hw, 123) == doctest::Approx(2000));
  p.work_bytes_per_thread = 0;
  CHECK(thread_work_ms(p, hw, 123) == 123);
}

TEST_CASE("numa01_THREAD_ALLOC bound: every thread writes the whole buffer first, so a part lands on any bound node") {
  // Bound to two nodes each (half the machine), a part's chunks land on the node of whichever
  // thread wrote them first: half of them on the other node, not all on their thread's.
  const auto t = direct(4, 4);
  workload w = workloads::numa01_thread_alloc(8, 256, 300);
  CHECK(w.processes[0].regions[0].touch == shared_touch::every_thread_once);
  bind_nearest(w, t, machine_options{});
  const run_result hard = run_stack(t, w, hard_binding_name, {});
  for (std::size_t p = 0; p < 2; ++p) {
    INFO("process " << p);
    const auto& bound = w.processes[p].bind_nodes;
    CHECK(hard.groups[p].memory_nodes == std::vector<node_id>(bound.begin(), bound.end()));
    CHECK(hard.groups[p].local_fraction > 0.35);
    CHECK(hard.groups[p].local_fraction < 0.65);
  }
  // Its own part, on its own node, were the first touch its own: all local.
  for (auto& ps : w.processes) {
    for (auto& r : ps.regions) r.touch = shared_touch::any_thread;
  }
  const run_result own = run_stack(t, w, hard_binding_name, {});
  CHECK(own.groups[0].local_fraction == 1.0);
}

TEST_CASE("numa01's INVERSE_BIND inverts only the first process's memory, as its build does") {
  const auto t = direct(4, 4);
  for (workload w : {workloads::numa01(8, 64, 300), workloads::numa01_thread_alloc(8, 64, 300)}) {
    INFO(w.name);
    CHECK(w.processes[0].inverse_moves_memory);
    CHECK_FALSE(w.processes[1].inverse_moves_memory);
    bind_nearest(w, t, machine_options{});
    const run_result inverse = run_stack(t, w, inverse_binding_name, {});
    const auto& first = w.processes[0].bind_nodes;
    const auto& second = w.processes[1].bind_nodes;
    const std::vector<node_id> first_nodes(first.begin(), first.end()), second_nodes(second.begin(), second.end());
    CHECK(inverse.groups[0].local_fraction == 0.0);
    CHECK(inverse.groups[0].memory_nodes == second_nodes);
    CHECK(inverse.groups[1].memory_nodes == second_nodes);
    CHECK(inverse.groups[1].local_fraction > 0.3);
    // The worst case, both inverted, as for any other workload.
    w.processes[1].inverse_moves_memory = true;
    const run_result worst = run_stack(t, w, inverse_binding_name, {});
    CHECK(worst.groups[1].memory_nodes == first_nodes);
    CHECK(worst.groups[1].local_fraction == 0.0);
  }
}
