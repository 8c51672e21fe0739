// Memory tiering in the simulator (numa_balancing=2 and 3, memory_tiering.hpp): which nodes are
// the fast tier, that tiering-only mode marks none of their memory, that hot chunks on a slower
// tier move up to the faulting thread's node at no more than the promotion rate limit, and that
// with demotion on a full fast node sends its coldest memory down to make room.

#include <algorithm>
#include <cstdint>
#include <vector>

#include <numaplace/sim/memory_tiering.hpp>
#include <numaplace/sim/world.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

/// Costs for `cpu_nodes` DRAM nodes then CPU-less nodes: the CPU-less ones `slower` times the
/// latency and `narrower` times less bandwidth than DRAM, from every CPU.
machine_costs tiered_costs(std::size_t nodes, std::size_t cpu_nodes, double slower, double narrower) {
  machine_costs hw;
  hw.name = "test";
  hw.local_latency_ns = 100;
  hw.latency_ratio.assign(nodes * nodes, 1.5);
  hw.node_bandwidth_gbs.assign(nodes, 40.0);
  for (std::size_t a = 0; a < nodes; ++a) {
    hw.latency_ratio[a * nodes + a] = 1.0;
    for (std::size_t b = cpu_nodes; b < nodes; ++b) {
      if (b != a) hw.latency_ratio[a * nodes + b] = slower;
    }
  }
  for (std::size_t b = cpu_nodes; b < nodes; ++b) hw.node_bandwidth_gbs[b] = 40.0 / narrower;
  return hw;
}

/// Node 0 has `cpus` CPUs and `fast` bytes; node 1 has no CPUs and 4 GiB, one hop away.
dynamic_topology dram_and_expander(unsigned cpus, std::uint64_t fast) {
  std::vector<node_attributes> nodes(2);
  std::vector<unsigned> ids(cpus);
  for (unsigned c = 0; c < cpus; ++c) ids[c] = c;
  nodes[0] = {0, ids, fast, true, true};
  nodes[1] = {1, {}, std::uint64_t{4} << 30, false, true};
  return dynamic_topology({{10, 20}, {20, 10}}, nodes);
}

run_options tiering_only(bool demotion) {
  run_options o;
  o.hardware = tiered_costs(2, 1, 2.0, 4.0);
  o.tiering.numa_balancing = numa_balancing_memory_tiering;
  o.tiering.demotion = demotion;
  o.full_checks = true;
  return o;
}

/// One thread whose `chunks` of memory are first touched on the expander (node 1).
process_spec on_expander(const char* name, std::uint32_t chunks) {
  process_spec p = private_process(name, 1, 0.8, chunks);
  p.first_touch_nodes = {1};
  return p;
}

}  // namespace

TEST_CASE("tiers come from the costs as HMAT's figures would place them: a slower node is below DRAM") {
  const std::vector<std::size_t> cpus{4, 4, 0, 0};
  const auto t = generate::fully_connected(4, 20, {4, std::uint64_t{1} << 30});
  // Node 2: twice DRAM's latency and a quarter of its bandwidth (a CXL expander); node 3: DRAM's
  // own figures (memory-only DRAM, which the kernel keeps in DRAM's tier).
  machine_costs hw = tiered_costs(4, 2, 2.0, 4.0);
  for (std::size_t a = 0; a < 3; ++a) hw.latency_ratio[a * 4 + 3] = 1.0;
  hw.node_bandwidth_gbs[3] = 40.0;
  const memory_tiering tiers(t, hw, cpus);
  CHECK(tiers.tier(0) == 4);  // MEMTIER_ADISTANCE_DRAM
  CHECK(tiers.tier(1) == 4);
  CHECK(tiers.tier(2) == 36);  // 576 x 2 (latency) x 4 (bandwidth) = 4608, in chunks of 128
  CHECK(tiers.tier(3) == 4);
  CHECK(tiers.toptier(0));
  CHECK(tiers.toptier(3));
  CHECK_FALSE(tiers.toptier(2));
  CHECK(tiers.has_lower_tier());
  CHECK(tiers.demotion_targets(0) == std::vector<node_index>{2});
  CHECK(tiers.demotion_targets(2).empty());
  // Every node as fast as DRAM: one tier, nothing to promote or demote. Half as fast again is
  // enough for a tier of its own (576 x 1.5 = 864: tier 6).
  CHECK_FALSE(memory_tiering(t, tiered_costs(4, 2, 1.0, 1.0), cpus).has_lower_tier());
  CHECK(memory_tiering(t, tiered_costs(4, 2, 1.5, 1.0), cpus).tier(2) == 6);
}

TEST_CASE("tiering-only mode marks no fast-tier chunk, promotes hot ones up and places no task") {
  const auto t = dram_and_expander(2, std::uint64_t{1} << 30);
  const workload w = throughput_workload({on_expander("hot", 64)}, 30.0);
  run_options o = tiering_only(false);
  with_engine<stacks::linux_6_12>(t, w, o, [&](auto& e) {
    std::size_t armed_on_fast = 0;
    for (int step = 0; step < 300; ++step) {
      e.step(100);
      for (const auto& rs : e.memory().regions) {
        for (const auto& ch : rs.chunks) armed_on_fast += ch.node == 0 && ch.armed;
      }
    }
    const run_result r = e.run();
    CHECK(armed_on_fast == 0);
    CHECK(r.tiering.promoted == 64);  // a 1 GiB node with 128 MiB used has plenty free
    CHECK(e.memory().regions[0].on_node[0] == 64);
    CHECK(r.tiering.demoted == 0);
    // task_numa_fault() counts nothing on a slower tier, and mode 2 scans nothing else.
    CHECK(e.state().tasks[0].preferred == no_node);
    CHECK(e.check_invariants() == "");
  });
}

TEST_CASE("without tiering the same expander memory is not promoted") {
  const auto t = dram_and_expander(2, std::uint64_t{1} << 30);
  const workload w = throughput_workload({on_expander("hot", 64)}, 30.0);
  run_options o = tiering_only(false);
  o.tiering.numa_balancing = numa_balancing_normal;
  with_engine<stacks::linux_6_12>(t, w, o, [&](auto& e) {
    const run_result r = e.run();
    CHECK_FALSE(r.tiering.any());
  });
}

TEST_CASE("promotions stay within the rate limit once the fast node is short of plenty") {
  // 256 MiB: never 1 GiB free, so every promotion takes the hot threshold and the rate limit.
  // At 4 MB/s a node takes 1024 pages a second: two chunks, then rate_limited.
  const auto t = dram_and_expander(2, 256 * mib);
  const workload w = throughput_workload({on_expander("hot", 96)}, 20.0);
  run_options o = tiering_only(false);
  o.tiering.promotion.rate_limit_mbps = 4;
  with_engine<stacks::linux_6_12>(t, w, o, [&](auto& e) {
    const run_result r = e.run();
    INFO("promoted " << r.tiering.promoted << " in " << r.simulated_seconds << " s");
    CHECK(r.tiering.promoted > 0);
    CHECK(r.tiering.rate_limited > 0);
    // A new second starts once more than 1000 ms have passed: at most 2 chunks a second.
    CHECK(double(r.tiering.promoted) <= 2.0 * (r.simulated_seconds + 1.0));
  });
}

TEST_CASE("a full fast node refuses promotions; with demotion its coldest memory makes room") {
  // Node 0 holds 48 chunks. `warm` fills 40 of them first: one thread, a fifth as memory-bound as
  // `hot`, whose 16 chunks start on the expander. Promotions fill node 0's last 8 chunks, then
  // need room. Every chunk here is touched within milliseconds of being marked, so the hint-fault
  // latency cannot tell them apart (nor could the kernel's): what goes down is the memory its
  // threads touch least, the warm process's, and its chunks come back up as the hot ones do.
  const auto t = dram_and_expander(2, 96 * mib);
  process_spec warm = private_process("warm", 1, 0.16, 40);
  warm.first_touch_nodes = {0};
  const workload w = throughput_workload({warm, on_expander("hot", 16)}, 30.0);
  const auto run = [&](bool demotion) {
    run_result r;
    std::uint32_t hot_on_fast = 0;
    with_engine<stacks::linux_6_12>(t, w, tiering_only(demotion), [&](auto& e) {
      for (int s = 0; s < 30; ++s) {
        e.step(1000);
        const std::uint32_t now = e.memory().regions[1].on_node[0];
        CHECK(now >= hot_on_fast);  // nothing of the hotter process goes down
        hot_on_fast = now;
      }
      r = e.run();
      CHECK(e.check_invariants() == "");
    });
    return std::pair{r, hot_on_fast};
  };
  const auto [kept, kept_hot] = run(false);
  CHECK(kept.tiering.node_full > 0);
  CHECK(kept.tiering.demoted == 0);
  CHECK(kept_hot == 8);
  const auto [made_room, made_room_hot] = run(true);
  CHECK(made_room.tiering.demoted > 0);
  CHECK(made_room_hot > kept_hot);
}

TEST_CASE("on machines without a slower tier, tiering modes run as mode 1 does") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto t = direct(2 + seed % 2, 2);
    workload w = throughput_workload({private_process("a", 2, 0.6, 16), private_process("b", 3, 0.4, 8)}, 10.0);
    run_options o;
    o.seed = seed;
    run_result normal, both;
    with_engine<stacks::linux_modern>(t, w, o, [&](auto& e) { normal = e.run(); });
    o.tiering.numa_balancing = numa_balancing_normal | numa_balancing_memory_tiering;
    o.tiering.demotion = true;
    with_engine<stacks::linux_modern>(t, w, o, [&](auto& e) { both = e.run(); });
    CHECK(both.total_throughput() == normal.total_throughput());
    CHECK(both.events == normal.events);
    CHECK_FALSE(both.tiering.any());
  }
}
