// numa_pool on this machine: workers pinned, tasks run, faults from move_pages queries, groups
// follow their memory, stealing circle by circle. A made-up two-node machine puts this host's
// CPUs 0 and 1 on nodes 0 and 1 (the kernel's node 0 holds all memory).
#include <doctest/doctest.h>

#include <numaplace/stacks.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "numa_pool.hpp"

namespace {

using numa_runtime::numa_pool;
using numa_runtime::pool_placement;
using numa_runtime::sharing;
using numaplace::os::usable_machine;

// A made-up two-node machine over this host's CPUs 0 and 1, when this process may use both.
struct two_node_machine {
  pool_placement placement;
  std::vector<std::vector<unsigned>> cpus;
};

std::optional<two_node_machine> make_two_node_machine() {
  const std::vector<unsigned> allowed = numaplace::os::calling_thread_affinity();
  const auto usable = [&](unsigned cpu) { return std::find(allowed.begin(), allowed.end(), cpu) != allowed.end(); };
  if (!usable(0) || !usable(1)) return std::nullopt;
  std::vector<numaplace::node_attributes> nodes(2);
  nodes[0].id = 0;
  nodes[0].cpus = {0};
  nodes[1].id = 1;
  nodes[1].cpus = {1};
  return two_node_machine{pool_placement(numaplace::dynamic_topology({{10, 20}, {20, 10}}, nodes)), {{0}, {1}}};
}

}  // namespace

TEST_CASE("numa_pool: pinned workers, faults from real pages, a group follows its memory") {
  const auto m = make_two_node_machine();
  if (!m) {
    MESSAGE("skipped: this process may not use CPUs 0 and 1");
    return;
  }
  numa_pool pool(m->placement, m->cpus);
  REQUIRE(pool.worker_count() == 2);
  CHECK(pool.steal_order(0) == std::vector<std::size_t>{1});
  CHECK(pool.steal_order(1) == std::vector<std::size_t>{0});

  // concentric_spread gives the first group node 0 and the second the other empty node.
  const auto g0 = pool.add_group(sharing::private_memory);
  const auto g1 = pool.add_group(sharing::private_memory);
  CHECK(pool.group_node(g0) == 0);
  CHECK(pool.group_node(g1) == 1);

  constexpr std::size_t bytes = 64 * numa_runtime::page_size;
  std::vector<void*> blocks;
  for (const auto g : {g0, g1}) {
    blocks.push_back(std::aligned_alloc(numa_runtime::page_size, bytes));
    pool.add_memory(g, blocks.back(), bytes);
  }
  std::atomic<int> ran{0};
  for (int round = 0; round < 4; ++round) {
    for (std::size_t g = 0; g < 2; ++g) {
      for (int k = 0; k < 8; ++k) {
        auto* p = static_cast<unsigned char*>(blocks[g]);
        pool.submit(g, [&ran, p] {
          for (std::size_t i = 0; i < bytes; i += 64) p[i] = 1;
          ++ran;
        });
      }
    }
    pool.wait();
  }
  CHECK(ran.load() == 64);
  CHECK_FALSE(pool.pinning_failed());
  CHECK(pool.off_cpu_runs() == 0);

  // Every page is on the kernel's node 0, which is our node 0: both groups now prefer it,
  // and group 1 moves there.
  CHECK(pool.pages_per_node(g1)[0] == 64);
  const auto decisions = pool.end_window();
  CHECK(pool.group_faults(g1).total() > 0);
  CHECK(decisions[g0].preferred == 0);
  CHECK(decisions[g1].preferred == 0);
  CHECK(pool.group_node(g1) == 0);
  CHECK(decisions[g1].memory_moved);
  for (void* b : blocks) std::free(b);
}

TEST_CASE("numa_pool: a shared group interleaves over the nodes its tasks run on") {
  const auto m = make_two_node_machine();
  if (!m) return;
  numa_pool pool(m->placement, m->cpus);
  const auto g = pool.add_group(sharing::shared_memory);
  constexpr std::size_t bytes = 32 * numa_runtime::page_size;
  void* block = std::aligned_alloc(numa_runtime::page_size, bytes);
  pool.add_memory(g, block, bytes);
  std::array<std::atomic<int>, 2> ran_on{};
  for (int k = 0; k < 16; ++k) {
    // Tasks that run a while: CPU faults are weighted by the group's share of the window.
    pool.submit(
        g,
        [block, &ran_on] {
          const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
          while (std::chrono::steady_clock::now() < until) static_cast<volatile char*>(block)[0] = 1;
          ++ran_on[sched_getcpu() == 0 ? 0 : 1];
        },
        static_cast<numaplace::node_index>(k % 2));
  }
  pool.wait();
  const auto d = pool.end_window();
  // shared_interleave's mask: the nodes its tasks ran on (a thief may have taken some of the
  // other node's tasks, so only a node that ran a clear share must be in). On a one-node host
  // mbind over the kernel's nodes 0 and 1 fails; the advice is what is checked.
  REQUIRE(d[g].interleave.size() == 2);
  CHECK(ran_on[0].load() + ran_on[1].load() == 16);
  // CPU faults are weighted by the share of the window the group ran, and pages are sampled
  // after each task, so which nodes end up active depends on the host's timing: on a loaded
  // host the weights can round to zero (then the policy gives no advice, an all-clear mask).
  // What always holds: a node none of the group's tasks ran on raised no CPU faults, so it is
  // never in the mask.
  const bool advised = d[g].interleave[0] || d[g].interleave[1];
  if (!advised) WARN_MESSAGE(false, "no interleave advice this window (CPU-fault weights rounded to 0)");
  for (std::size_t n = 0; n < 2; ++n) {
    if (ran_on[n].load() == 0) CHECK_FALSE(d[g].interleave[n]);
  }
  std::free(block);
}

TEST_CASE("numa_pool: placement off is a plain pool") {
  const auto m = usable_machine::this_process();
  numa_runtime::pool_options off;
  off.placement = false;
  numa_pool pool(m, off);
  const auto g = pool.add_group(sharing::private_memory);
  CHECK(pool.group_node(g) == numaplace::no_node);
  std::atomic<int> ran{0};
  for (int k = 0; k < 100; ++k) pool.submit(g, [&ran] { ++ran; });
  pool.wait();
  CHECK(ran.load() == 100);
  CHECK(pool.end_window()[g].preferred == numaplace::no_node);
}

TEST_CASE("numa_pool keeps its placement: pools share one, a mismatched machine is refused") {
  const auto m = usable_machine::this_process();
  const pool_placement placement(m.topology());
  numa_runtime::pool_options off;
  off.placement = false;
  const numa_pool a(placement, numa_pool::cpus_of(m), off);
  const numa_pool b(placement, numa_pool::cpus_of(m), off);
  // Copies of an owned_placement share its topology: no pool rebuilt it.
  CHECK(&a.topology() == &placement.topology());
  CHECK(&b.topology() == &placement.topology());
  CHECK(a.placement().kind() == placement.kind());

  std::vector<numaplace::node_attributes> nodes(2);
  nodes[0].id = 0;
  nodes[1].id = 1;
  const pool_placement two_nodes(numaplace::dynamic_topology({{10, 20}, {20, 10}}, nodes));
  CHECK_THROWS_WITH_AS(numa_pool(two_nodes, {{0}}, off), "numa_pool: 1 CPU lists for the placement's 2 nodes",
                       std::invalid_argument);
}

TEST_CASE("numa-pool-bench runs with placement on and off") {
  FILE* p = popen(NUMA_POOL_BENCH " --mib 2 --iterations 2 2>&1", "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int s = pclose(p);
  CHECK(WEXITSTATUS(s) == 0);
  CHECK(out.find("workers pinned: yes") != std::string::npos);
  CHECK(out.find("private groups' pages on their chosen node: 100.0 %") != std::string::npos);
  CHECK(out.find("summary: triad best GB/s on ") != std::string::npos);
}

TEST_CASE("numa-pool-bench --help: usage on stdout, exit 0; an unknown argument: exit 2") {
  FILE* p = popen(NUMA_POOL_BENCH " --help 2>/dev/null", "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  CHECK(WEXITSTATUS(pclose(p)) == 0);
  CHECK(out.starts_with("usage: numa-pool-bench [--groups N]"));
  FILE* q = popen(NUMA_POOL_BENCH " --no-such-option 2>&1", "r");
  REQUIRE(q != nullptr);
  std::string err;
  while (std::fgets(buf.data(), buf.size(), q) != nullptr) err += buf.data();
  CHECK(WEXITSTATUS(pclose(q)) == 2);
  CHECK(err.find("unknown argument '--no-such-option'") != std::string::npos);
}
