// Node memory capacity: a node holds at most its memory in 2 MiB chunks. First touch falls
// back to the nearest node with room, a NUMA migration to a full node fails, memory that fits
// nowhere it may go is an error naming the process, and an exiting process frees its memory.

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include <numaplace/sim/random.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

/// A line of `nodes` nodes 10 apart per hop (so "nearest" is unambiguous), `cpus` CPUs and
/// `memory` bytes each.
dynamic_topology line(std::size_t nodes, unsigned cpus, std::uint64_t memory) {
  std::vector<std::pair<std::size_t, std::size_t>> hops;
  for (std::size_t n = 0; n + 1 < nodes; ++n) hops.emplace_back(n, n + 1);
  return generate::from_links(nodes, hops, 10, {cpus, memory}, "line");
}

std::uint64_t used_by(const run_result& r, std::size_t group, std::size_t node) {
  return node < r.groups[group].memory_per_node.size() ? r.groups[group].memory_per_node[node] : 0;
}

}  // namespace

TEST_CASE("first touch falls back to the nearest node with room, in the zonelist's order") {
  // Node 0 holds 8 chunks; one thread on node 0 touches 20: 8 stay on node 0, the next 8 go
  // to node 1 (one hop), the last 4 to node 2 (two hops); node 3 gets none.
  const auto t = line(4, 1, 16 * mib);
  workload w = throughput_workload({private_process("p", 1, 0.5, 20)}, 0.5);
  w.processes[0].threads[0].accesses = {{0, 1.0}};
  w.processes[0].bind_nodes = {};
  with_baseline_engine(t, w, run_options{}, balancing::none, [&](auto& e) {
    e.step(20);
    const memory_model& m = e.memory();
    REQUIRE(m.regions[0].touched);
    const auto& on = m.regions[0].on_node;
    const node_index home = e.state().tasks[0].node;
    INFO("the thread runs on node " << home);
    CHECK(on[home] == 8);
    // The fallback goes one hop before two, never three.
    std::uint64_t one_hop = 0, two_hops = 0, farther = 0;
    for (node_index n = 0; n < 4; ++n) {
      const distance_t d = t.distance(home, n);
      if (d == 20) one_hop += on[n];
      else if (d == 30) two_hops += on[n];
      else if (d > 30) farther += on[n];
    }
    CHECK(one_hop + two_hops == 12);
    CHECK(farther == 0);
    if (home == 0) {
      CHECK(one_hop == 8);
      CHECK(two_hops == 4);
    }
    CHECK(std::count_if(on.begin(), on.end(), [](std::uint32_t c) { return c > 8; }) == 0);
    CHECK(m.full.fell_back == 12);  // counted, for the report
    CHECK(e.check_invariants() == "");
  });
}

TEST_CASE("memory that fits on no node it may use is an error naming the process and its nodes") {
  const auto t = direct(2, 2);  // 1 GiB a node: 512 chunks
  workload w = throughput_workload({private_process("big", 1, 0.5, 600)}, 0.5);
  w.processes[0].first_touch_nodes = {0};  // MPOL_BIND to node 0 for its first touch
  bool threw = false;
  try {
    with_baseline_engine(t, w, run_options{}, balancing::none, [&](auto& e) { e.run(); });
  } catch (const std::invalid_argument& bad) {
    threw = true;
    const std::string what = bad.what();
    CHECK(what.find("process big") != std::string::npos);
    CHECK(what.find("node 0") != std::string::npos);
  }
  CHECK(threw);
  // Unbound, the same process fits on the two nodes together.
  w.processes[0].first_touch_nodes.clear();
  with_baseline_engine(t, w, run_options{}, balancing::none, [&](auto& e) {
    const run_result r = e.run();
    CHECK(used_by(r, 0, 0) + used_by(r, 0, 1) == 600);
    CHECK(e.check_invariants() == "");
  });
}

TEST_CASE("a NUMA migration to a full node fails, and one with room goes through") {
  // One thread starts on node 0 with its 64 chunks first touched on node 1; early private
  // faults migrate at once (v4.19+), so its memory follows it to node 0, as far as node 0 has
  // room. With 8 chunks' room, no more than 8 go, at every refresh (full_checks); with room for
  // all, many more do.
  const auto run_with = [](std::uint64_t node0_bytes) {
    std::vector<node_attributes> nodes(2);
    nodes[0] = {0, {0}, node0_bytes, true, true};
    nodes[1] = {1, {1}, std::uint64_t{1} << 30, true, true};
    const dynamic_topology t({{10, 20}, {20, 10}}, nodes);
    process_spec p = private_process("mover", 1, 0.9, 64);
    p.first_touch_nodes = {1};
    workload w = throughput_workload({p}, 20.0);
    run_options o;
    o.full_checks = true;
    run_result r;
    std::uint64_t peak_on_0 = 0;
    with_engine<stacks::linux_modern>(t, w, o, [&](auto& e) {
      for (int step = 0; step < 200; ++step) {
        e.step(100);
        peak_on_0 = std::max<std::uint64_t>(peak_on_0, e.memory().used[0]);
      }
      r = e.run();
      CHECK(e.check_invariants() == "");
    });
    return std::pair{r, peak_on_0};
  };
  const auto [tight, tight_peak] = run_with(16 * mib);
  const auto [roomy, roomy_peak] = run_with(std::uint64_t{1} << 30);
  CHECK(tight_peak <= 8);
  CHECK(tight_peak > 0);  // it did migrate, as far as there was room
  CHECK(roomy_peak > 8);
  CHECK(roomy.groups[0].page_migrations > tight.groups[0].page_migrations);
  CHECK(tight.full_nodes.migrations_refused > 0);
  CHECK(roomy.full_nodes.migrations_refused == 0);
  CHECK(roomy.full_nodes.fell_back == 0);
}

TEST_CASE("an exiting process frees its memory for the processes after it") {
  // Two processes each wanting 400 of node 0's 512 chunks, bound there; the second starts after
  // the first has finished. Without the first's memory freed, the second could not fit.
  const auto t = direct(2, 2);
  process_spec first = private_process("first", 1, 0.5, 400);
  first.first_touch_nodes = {0};
  first.work_bytes_per_thread = 1e9;
  process_spec second = first;
  second.name = "second";
  second.start_ms = 5000;
  workload w = throughput_workload({first, second}, 60.0);
  w.report_elapsed = true;
  with_baseline_engine(t, w, run_options{}, balancing::none, [&](auto& e) {
    const run_result r = e.run();
    REQUIRE(r.groups.size() == 2);
    CHECK(r.groups[0].elapsed_seconds < 5.0);
    CHECK(used_by(r, 1, 0) == 400);
    CHECK(e.check_invariants() == "");
  });
}

TEST_CASE("no node ever holds more than its memory, on random machines and loads") {
  random_engine rng(20261205);
  std::size_t runs = 0, tight = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t nodes = 2 + random_index(rng, 5);
    const unsigned cpus = 1 + static_cast<unsigned>(random_index(rng, 4));
    const std::uint64_t chunks_per_node = 8 + random_index(rng, 120);
    const auto t = generate::ring(nodes, 10, {cpus, chunks_per_node * 2 * mib});
    // Processes whose memory together fills 30 % to 95 % of the machine.
    const std::uint64_t total = nodes * chunks_per_node * (30 + random_index(rng, 66)) / 100;
    const std::size_t processes = 1 + random_index(rng, 3);
    std::vector<process_spec> ps;
    std::uint64_t left = total;
    for (std::size_t p = 0; p < processes; ++p) {
      const std::size_t threads = 1 + random_index(rng, 2 * cpus);
      const std::uint64_t share = p + 1 == processes ? left : left / (processes - p);
      left -= share;
      const auto per_thread = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, share / threads));
      process_spec s = private_process("p" + std::to_string(p), threads, random_between(rng, 0.3, 0.9), per_thread);
      if (random_index(rng, 2) == 0) {  // half of them share a heap as well
        s.regions.push_back({per_thread, true});
        for (auto& th : s.threads) th.accesses.push_back({static_cast<std::uint32_t>(threads), 0.5});
      }
      ps.push_back(std::move(s));
    }
    workload w = throughput_workload(std::move(ps), 6.0);
    std::uint64_t asked = 0;
    for (const auto& s : w.processes) {
      for (const auto& r : s.regions) asked += r.chunks;
    }
    if (asked > nodes * chunks_per_node) continue;  // a load that cannot fit: the error case above
    tight += asked * 10 > nodes * chunks_per_node * 8;
    run_options o;
    o.full_checks = true;  // every invariant, capacity included, at every refresh
    o.seed = static_cast<std::uint64_t>(trial) + 1;
    INFO("trial " << trial << ": " << nodes << " nodes of " << chunks_per_node << " chunks, " << asked << " asked");
    with_engine<stacks::linux_modern>(t, w, o, [&](auto& e) {
      const run_result r = e.run();
      CHECK(e.check_invariants() == "");
      for (std::size_t n = 0; n < nodes; ++n) {
        std::uint64_t on = 0;
        for (std::size_t g = 0; g < r.groups.size(); ++g) on += used_by(r, g, n);
        CHECK(on <= chunks_per_node);
      }
    });
    ++runs;
  }
  MESSAGE(runs << " random runs, " << tight << " of them over 80 % full");
  CHECK(runs >= 16);
}
