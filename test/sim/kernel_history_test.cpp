// The kernel's history as named stacks: linux-5.17 against linux-5.18, whose NUMA allowance
// (e496132ebedd) shrank from a quarter of the NUMA domain at fork to imb_numa_nr, a quarter of a
// node (an eighth from v6.0). STREAM shows what that is worth: threads forked onto one node,
// then spread by the load balancer away from the memory they first touched.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <numaplace/sim/experiment.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

struct trial {
  std::size_t nodes;
  unsigned cpus;
  std::size_t threads;  // fewer than a quarter of the machine's CPUs: 5.17 keeps them together
};

// Random machines of 2 to 4 nodes, 8 to 32 CPUs each, and a STREAM thread count that v5.11's
// allowance keeps on the parent node and v5.18's does not (more than a quarter of a node).
std::vector<trial> trials() {
  random_engine rng(22);
  std::vector<trial> out;
  while (out.size() < 6) {
    const std::size_t nodes = 2 + random_index(rng, 3);
    const unsigned cpus = 8u * (1u + static_cast<unsigned>(random_index(rng, 4)));
    const std::size_t quarter = nodes * cpus / 4;
    const std::size_t most = std::min<std::size_t>(quarter - 1, cpus);
    const std::size_t least = cpus / 4 + 2;
    if (most < least) continue;
    out.push_back({nodes, cpus, least + random_index(rng, most - least + 1)});
  }
  return out;
}

std::uint32_t most_on_one_node(const occupancy& o) {
  return *std::max_element(o.tasks_per_node.begin(), o.tasks_per_node.end());
}

}  // namespace

TEST_CASE("linux-5.17 forks STREAM's threads onto the parent node; linux-5.18 spreads them past imb_numa_nr") {
  for (const trial& c : trials()) {
    const auto t = direct(c.nodes, c.cpus, 21);
    const workload w = workloads::stream(c.threads, 1'000'000 * c.threads, 2);
    INFO(c.nodes << " nodes x " << c.cpus << " CPUs, " << c.threads << " threads");
    run_options o;
    const run_result packed = run_stack(t, w, "linux-5.17", o);
    const run_result spread = run_stack(t, w, "linux-5.18", o);
    REQUIRE(!packed.groups.at(0).tasks_over_time.empty());
    REQUIRE(!spread.groups.at(0).tasks_over_time.empty());
    // The first snapshot is taken once every thread has forked, before any balancing.
    const occupancy& at_fork_17 = packed.groups[0].tasks_over_time.front();
    const occupancy& at_fork_18 = spread.groups[0].tasks_over_time.front();
    CHECK(at_fork_17.seconds == 0.0);
    // v5.11..v5.17: the parent node keeps each new thread while it runs under a quarter of
    // the NUMA domain's CPUs.
    CHECK(most_on_one_node(at_fork_17) == c.threads);
    // v5.18: only while it runs under imb_numa_nr (cpus / 4), then the node with most idle CPUs.
    const std::size_t even = (c.threads + c.nodes - 1) / c.nodes;
    CHECK(most_on_one_node(at_fork_18) <= std::max<std::size_t>(even, c.cpus / 4));
  }
}

TEST_CASE("STREAM packed at fork loses to STREAM spread at fork once the balancer spreads it away from its memory") {
  for (const trial& c : trials()) {
    const auto t = direct(c.nodes, c.cpus, 21);
    // Long enough (100 passes) for the load balancer to act while the threads still sweep.
    const workload w = workloads::stream(c.threads, 1'000'000 * c.threads, 100);
    INFO(c.nodes << " nodes x " << c.cpus << " CPUs, " << c.threads << " threads");
    run_options o;
    const group_result packed = run_stack(t, w, "linux-5.17", o).groups.at(0);
    const group_result spread = run_stack(t, w, "linux-5.18", o).groups.at(0);
    INFO("5.17: " << packed.elapsed_seconds << " s, local " << packed.local_fraction << "; 5.18: "
                  << spread.elapsed_seconds << " s, local " << spread.local_fraction);
    // Each 5.18 thread first touched its slice where it stays.
    CHECK(spread.local_fraction > 0.99);
    // 5.17's threads left the node they wrote their slices on, and never made up for it.
    CHECK(packed.local_fraction < spread.local_fraction - 0.01);
    CHECK(packed.elapsed_seconds > spread.elapsed_seconds);
  }
}

TEST_CASE("imb_numa_nr by kernel: a quarter of a node in linux-5.18, an eighth from v6.0 (linux-modern)") {
  for (const unsigned cpus : {16u, 24u, 32u, 40u}) {
    const auto t = direct(2, cpus, 21);
    // A team of a quarter of a node: v5.18 keeps new threads on the parent node while it runs
    // fewer than imb_numa_nr - 1 (its tasks plus the new one under imb_numa_nr), then sends
    // the next to the node with more idle CPUs.
    const std::size_t threads = cpus / 4;
    const workload w = workloads::stream(threads, 1'000'000 * threads, 2);
    INFO(cpus << " CPUs a node, " << threads << " threads");
    run_options o;
    const occupancy at_fork_18 = run_stack(t, w, "linux-5.18", o).groups.at(0).tasks_over_time.at(0);
    const occupancy at_fork_modern = run_stack(t, w, "linux-modern", o).groups.at(0).tasks_over_time.at(0);
    CHECK(most_on_one_node(at_fork_18) == cpus / 4 - 1);
    // v6.0's eighth spreads the same team further.
    CHECK(most_on_one_node(at_fork_modern) < most_on_one_node(at_fork_18));
  }
}
