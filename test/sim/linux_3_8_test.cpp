// linux-3.8, balancenuma as merged in v3.8: NUMA hinting faults move pages to the tasks that
// touch them, nothing moves tasks; the scan slows by 10 ms a fault that moves nothing, returns
// to its fastest once a minute, and waits for a thread to run off the mm's first node. Each
// mechanism is checked against the same stack without it, on random machines.

#include <doctest/doctest.h>

#include <cstdint>

#include "sim_support.hpp"

using namespace sim_test;


namespace {
// linux-3.8 with one of its scan pace's mechanisms taken out: each fault leaves the period as
// it is (so the scan stays at its fastest), or the minute's reset never comes. Not named
// stacks, so not in the registry: their engines are instantiated here.
struct v3_8_pace_unslowed : scan_pacing<scan_pacing_rule::v3_8> {
  static constexpr bool paces_per_fault = false;
};
struct v3_8_pace_never_reset : scan_pacing<scan_pacing_rule::v3_8> {
  static constexpr unsigned period_reset_ms = 0;
};
// And without 5bca2303's wait for a thread on a new node (as v3.13 reverted it).
struct v3_8_pace_eager : scan_pacing<scan_pacing_rule::v3_8> {
  static constexpr bool waits_for_new_node = false;
};
template <class Pace>
using linux_3_8_with = replace<stacks::linux_3_8, scan_pacing<scan_pacing_rule::v3_8>, Pace>;

template <class Stack>
std::uint64_t faults_of(const dynamic_topology& t, const workload& w) {
  std::uint64_t faults = 0;
  with_engine<Stack>(t, w, run_options{}, [&](auto& e) {
    e.run();
    faults = e.hinting_faults();
  });
  return faults;
}
}  // namespace

TEST_CASE("linux-3.8 moves numa02's pages to the threads that sweep them, and places no thread") {
  on_random_machines(38, 4, 4, 3, [&](const dynamic_topology& t, const shape& c) {
    // One thread a CPU, each sweeping its own part of memory the main thread wrote on node 0.
    const workload w = workloads::numa02(c.nodes * c.cpus, 8, 20'000);
    group_result none;
    with_baseline_engine(t, w, run_options{}, balancing::none, [&](auto& e) { none = e.run().groups.at(0); });
    group_result v38;
    bool any_preferred = false;
    std::size_t groups = 0;
    with_engine<stacks::linux_3_8>(t, w, run_options{}, [&](auto& e) {
      for (int s = 0; s < 40; ++s) {  // the first 20 s, half a second at a time
        e.step(500);
        for (const task_state& task : e.state().tasks) any_preferred |= task.preferred != no_node;
      }
      groups = e.state().groups.created();
      v38 = e.run().groups.at(0);
    });
    INFO("no balancing: local " << none.local_fraction << ", " << none.elapsed_seconds << " s; linux-3.8: local "
                                << v38.local_fraction << ", " << v38.elapsed_seconds << " s, " << v38.page_migrations
                                << " chunks moved");
    CHECK_FALSE(any_preferred);  // task_numa_placement() was a placeholder
    CHECK(groups == 0);          // and task_numa_fault() formed no groups
    CHECK(v38.page_migrations > 0);
    CHECK(v38.local_fraction > none.local_fraction + 0.3);
    CHECK(v38.elapsed_seconds < none.elapsed_seconds);
  });
}

TEST_CASE("linux-3.8's scan slows by 10 ms a fault that moves nothing and returns to its fastest each minute") {
  on_random_machines(3008, 3, 4, 2, [&](const dynamic_topology& t, const shape& c) {
    // One thread a CPU on its own memory, first touched where it runs: almost nothing moves, so
    // almost every fault slows the scan. 130 s: two resets.
    const workload w = throughput_workload({private_process("placed", c.nodes * c.cpus, 0.5, 16)}, 130);
    const std::uint64_t paced = faults_of<stacks::linux_3_8>(t, w);
    const std::uint64_t unslowed = faults_of<linux_3_8_with<v3_8_pace_unslowed>>(t, w);
    const std::uint64_t never_reset = faults_of<linux_3_8_with<v3_8_pace_never_reset>>(t, w);
    INFO("hinting faults: " << paced << "; at the fastest pace " << unslowed << "; never reset " << never_reset);
    CHECK(paced > 0);
    CHECK(paced * 5 < unslowed);   // up to 50x slower per step once placed
    CHECK(paced > never_reset);    // each reset scans at the fastest pace again for a while
  });
}

TEST_CASE("linux-3.8 scans no process before one of its threads runs off its first node") {
  // 5bca2303, reverted in v3.13
  on_random_machines(5233, 3, 4, 2, [&](const dynamic_topology& t, const shape&) {
    // One thread alone: nothing moves it off the node it started on.
    const workload w = throughput_workload({private_process("alone", 1, 0.5, 16)}, 20);
    std::uint64_t waits = 0;
    with_engine<stacks::linux_3_8>(t, w, run_options{}, [&](auto& e) {
      e.run();
      waits = e.hinting_faults();
      CHECK(e.state().tasks.at(0).node == e.state().processes.at(0).first_nid);
    });
    const std::uint64_t eager = faults_of<linux_3_8_with<v3_8_pace_eager>>(t, w);
    CHECK(waits == 0);
    CHECK(eager > 0);
  });
}
