// McCalpin's STREAM as a workload: each thread's slice first touched by that thread, the bytes
// its passes move, and a run that never moves more than the machine's memory can.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/machine_costs.hpp>

#include "sim_support.hpp"

using namespace sim_test;

TEST_CASE("STREAM's threads each own a slice of three arrays and move 3 + 10 x NTIMES doubles an element") {
  const workload w = workloads::stream(4, 10'000'000, 10);
  REQUIRE(w.processes.size() == 1);
  const process_spec& p = w.processes[0];
  REQUIRE(p.threads.size() == 4);
  REQUIRE(p.regions.size() == 4);
  // 3 arrays x 8 bytes x 10^7 / 4 threads = 60 MB a slice: 29 chunks of 2 MiB.
  for (const auto& r : p.regions) {
    CHECK(r.chunks == 29);
    CHECK_FALSE(r.first_touch_by_all);
  }
  for (std::uint32_t t = 0; t < 4; ++t) {
    REQUIRE(p.threads[t].accesses.size() == 1);
    CHECK(p.threads[t].accesses[0].region == t);
  }
  CHECK(p.work_bytes_per_thread == doctest::Approx(103.0 * 8 * 10'000'000 / 4));
  CHECK(w.report_elapsed);
  // A slice never rounds down to nothing.
  CHECK(workloads::stream(1000, 1000, 1).processes[0].regions[0].chunks == 1);
}

TEST_CASE("STREAM on random machines: local by first touch, never faster than the memory") {
  random_engine rng(11);
  for (int trial = 0; trial < 8; ++trial) {
    const std::size_t nodes = 1 + random_index(rng, 4);
    const unsigned cpus = 2 + 2 * static_cast<unsigned>(random_index(rng, 4));
    const auto t = direct(nodes, cpus, static_cast<distance_t>(12 + random_index(rng, 20)));
    const std::size_t threads = nodes * cpus;
    const std::uint64_t elements = 2'000'000 * threads;
    const unsigned ntimes = 5;
    const workload w = workloads::stream(threads, elements, ntimes);
    const machine_costs hw = from_slit(t, std::vector<std::size_t>(nodes, cpus));
    double memory_gbs = 0;
    for (const double b : hw.node_bandwidth_gbs) memory_gbs += b;
    for (const char* stack : {"no-balancing", "linux-modern"}) {
      run_options o;
      o.seed = 1 + static_cast<std::uint64_t>(trial);
      const run_result r = run_stack(t, w, stack, o);
      REQUIRE(r.groups.size() == 1);
      const group_result& g = r.groups[0];
      const double bytes = (3.0 + 10.0 * ntimes) * 8.0 * double(elements);
      const double gbs = bytes / g.elapsed_seconds / 1e9;
      INFO("trial " << trial << ", " << nodes << " nodes x " << cpus << " CPUs, " << stack << ": " << g.elapsed_seconds
                    << " s, " << gbs << " GB/s of the memory's " << memory_gbs << ", local " << g.local_fraction);
      // Each thread wrote its own slice where it ran, and runs there: all local.
      CHECK(g.local_fraction > 0.95);
      // No more than the memory controllers give, nor than the cores can stream.
      CHECK(gbs <= memory_gbs * 1.001);
      CHECK(gbs <= double(threads) * hw.core_stream_gbs * 1.001);
      // And not far below the lesser of the two: nothing else holds a lone STREAM back.
      CHECK(gbs > 0.5 * std::min(memory_gbs, double(threads) * hw.core_stream_gbs));
    }
  }
}
