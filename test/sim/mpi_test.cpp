// Bulk-synchronous workloads (workload::barrier_steps) and the MPI job built on them: ranks keep
// in step, the slowest sets everyone's pace, and a rank waiting at a barrier asks nothing of
// memory.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <numaplace/sim/machine_costs.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

// How far apart the live workload threads' steps are (steps_left's spread), and whether any
// thread with fewer steps left than another still works (it should wait, spinning).
struct step_spread {
  std::uint32_t apart = 0;
  bool ahead_working = false;
};

step_spread spread_of(const machine& m) {
  std::uint32_t most = 0, least = ~std::uint32_t{0};
  for (const task_state& t : m.tasks) {
    if (!t.alive || t.gc_worker) continue;
    most = std::max(most, t.steps_left);
    least = std::min(least, t.steps_left);
  }
  step_spread s;
  if (least == ~std::uint32_t{0}) return s;
  s.apart = most - least;
  for (const task_state& t : m.tasks) {
    if (t.alive && !t.gc_worker && t.steps_left < most && !t.spinning) s.ahead_working = true;
  }
  return s;
}

// Every group's elapsed time, which a bulk-synchronous job ends with all at once.
std::vector<double> elapsed_of(const run_result& r) {
  std::vector<double> out;
  for (const auto& g : r.groups) out.push_back(g.elapsed_seconds);
  return out;
}

}  // namespace

TEST_CASE("an MPI job is one-thread ranks, each sweeping its own memory between barriers") {
  const workload w = workloads::mpi(4, 64, 10);
  CHECK(w.report_elapsed);
  CHECK(w.barrier_steps == 10);
  REQUIRE(w.processes.size() == 4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    const process_spec& p = w.processes[r];
    REQUIRE(p.threads.size() == 1);
    REQUIRE(p.regions.size() == 1);
    CHECK(p.regions[0].chunks == 32);  // 64 MiB in 2 MiB chunks
    CHECK_FALSE(p.regions[0].first_touch_by_all);
    CHECK(p.work_bytes_per_thread == doctest::Approx(10.0 * 64 * 1024 * 1024));
  }
  CHECK(workloads::mpi(2, 1, 1).processes[0].regions[0].chunks == 1);  // never nothing
}

TEST_CASE("an MPI job's ranks keep in step on random machines, and leave together") {
  random_engine rng(23);
  for (int trial = 0; trial < 6; ++trial) {
    const std::size_t nodes = 1 + random_index(rng, 4);
    const unsigned cpus = 2 + 2 * static_cast<unsigned>(random_index(rng, 3));
    const auto t = direct(nodes, cpus, static_cast<distance_t>(12 + random_index(rng, 20)));
    // Up to twice as many ranks as CPUs: oversubscribed ranks share CPUs with spinning ones.
    const std::size_t ranks = 1 + random_index(rng, 2 * nodes * cpus);
    const auto steps = static_cast<std::uint32_t>(3 + random_index(rng, 8));
    const workload w = workloads::mpi(ranks, 64, steps);
    const machine_costs hw = from_slit(t, std::vector<std::size_t>(nodes, cpus));
    INFO("trial " << trial << ": " << nodes << " nodes x " << cpus << " CPUs, " << ranks << " ranks, " << steps << " steps");
    run_options o;
    o.seed = 3 + static_cast<std::uint64_t>(trial);
    const auto check_in_step = [&](auto& e) {
      std::uint32_t most_apart = 0;
      while (e.now_ms() < w.seconds * 1000 && e.state().processes.front().finish_ms < 0) {
        e.step(30);
        const step_spread s = spread_of(e.state());
        most_apart = std::max(most_apart, s.apart);
        REQUIRE(s.apart <= 1);
        REQUIRE_FALSE(s.ahead_working);
        REQUIRE(e.check_invariants().empty());
      }
      const run_result r = e.run();
      const auto elapsed = elapsed_of(r);
      REQUIRE(elapsed.size() == ranks);
      // All leave at the last barrier, in the same tick.
      CHECK(*std::max_element(elapsed.begin(), elapsed.end()) == *std::min_element(elapsed.begin(), elapsed.end()));
      // No rank goes faster than its work at full, unloaded local speed.
      const double work_ms = thread_work_ms(w.processes[0], hw, 0);
      CHECK(elapsed.front() >= work_ms / 1000 * 0.999);
    };
    with_engine<stacks::linux_modern>(t, w, o, check_in_step);
    with_baseline_engine(t, w, o, balancing::none, check_in_step);
  }
}

TEST_CASE("the slowest rank sets the pace; a rank waiting at a barrier asks nothing of memory") {
  // One node, eight CPUs: a rank with four times the others' work and seven light ranks, all
  // streaming, enough to load the node's memory. Run independently, the light ranks finish early
  // and leave the heavy one the memory; in step, they wait (spinning) after each quarter of their
  // work, and the heavy one's steps after theirs are as fast as if it were alone. Either way
  // the job takes about the heavy rank's time; a waiting rank that kept loading the memory
  // would slow it throughout.
  const auto t = direct(1, 8);
  const auto job = [](std::uint32_t steps) {
    // 16 MiB a rank, swept 400 times by a light rank, 1600 by the heavy one: steps of
    // hundreds of ms, longer than the 100 ms between settles of memory demand.
    workload w = workloads::mpi(8, 16, 1);
    w.barrier_steps = steps;
    for (std::size_t r = 0; r < w.processes.size(); ++r) {
      w.processes[r].work_bytes_per_thread = workloads::sweep_bytes(r == 0 ? 1600 : 400, 8);
    }
    return w;
  };
  run_options o;
  o.seed = 5;
  run_result alone, in_step;
  with_baseline_engine(t, job(0), o, balancing::none, [&](auto& e) { alone = e.run(); });
  with_baseline_engine(t, job(4), o, balancing::none, [&](auto& e) { in_step = e.run(); });
  const double independent = alone.max_elapsed();
  const double lockstep = in_step.max_elapsed();
  INFO("independent " << independent << " s, in step " << lockstep << " s");
  // The heavy rank decides both: no faster in step, and not slowed by waiting ranks.
  CHECK(lockstep >= independent * 0.98);
  CHECK(lockstep <= independent * 1.05);
  // While the light ranks are each a quarter as long as the heavy one alone.
  const auto light = std::min_element(alone.groups.begin(), alone.groups.end(),
                                      [](const auto& a, const auto& b) { return a.elapsed_seconds < b.elapsed_seconds; });
  CHECK(light->elapsed_seconds < 0.5 * independent);
}

TEST_CASE("a barrier opens when the last thread reaches it, not at the end of its tick") {
  // Two CPU-bound ranks (no memory time), 150 ms of work each in ten steps of 15 ms: a tick
  // and a half. Each step starts when the one before ended, so the job takes 150 ms and
  // leaves at the end of the tick its last step ends in; rounding every step up to whole ticks
  // would take 200 ms.
  workload w = workloads::mpi(2, 2, 10);
  w.work_per_thread_ms = 150;
  for (auto& p : w.processes) {
    p.memory_bound = 0;
    p.work_bytes_per_thread = 0;
  }
  run_result r;
  with_baseline_engine(direct(1, 2), w, {}, balancing::none, [&](auto& e) { r = e.run(); });
  for (const auto& g : r.groups) CHECK(g.elapsed_seconds == doctest::Approx(0.15));
}

TEST_CASE("barriers refuse what would leave a thread out of a step") {
  const auto t = direct(2, 2);
  workload late = workloads::mpi(2, 2, 4);
  late.processes[1].start_ms = 100;
  workload jobs = workloads::mpi(2, 2, 4);
  jobs.processes[0].jobs = 3;
  jobs.processes[0].job_work_ms = 10;
  workload throughput = workloads::mpi(2, 2, 4);
  throughput.report_elapsed = false;
  std::size_t at = 99;
  CHECK(barriers_refused(late, at).starts_with("has jobs, a collector or a late start"));
  CHECK(at == 1);
  CHECK_FALSE(barriers_refused(throughput, at).empty());
  CHECK(barriers_refused(workloads::mpi(2, 2, 4), at).empty());
  for (const workload& w : {late, jobs, throughput}) {
    CHECK_THROWS_AS(with_baseline_engine(t, w, {}, balancing::none, [](auto&) {}), std::invalid_argument);
  }
}
