// Determinism: a run depends on its seed only. Same seed, identical result to the bit (every
// field, occupancy over time and memory per node included); another seed, another result; an
// experiment's results do not depend on how many threads run it or how it is sharded.

#include <numaplace/topology/presets.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

run_result run_named(const dynamic_topology& t, const workload& w, std::string_view stack, std::uint64_t seed,
                     machine_options m = {}, std::string_view baseline_kernel = default_stack_name) {
  run_options o;
  o.seed = seed;
  o.machine = m;
  return run_stack(t, w, stack, o, baseline_kernel);
}

}  // namespace

TEST_CASE("the same seed gives the same result, field for field") {
  const auto t = presets::find("seed000-8node")->build();
  const workload jbb = workloads::specjbb(2, 12, 4.0, 8);
  for (const char* stack : {"vanilla", "patches-1-4", "linux-modern", "shared-interleave", "no-balancing"}) {
    INFO(stack);
    const run_result a = run_named(t, jbb, stack, 5);
    const run_result b = run_named(t, jbb, stack, 5);
    CHECK(first_difference(a, b) == "");
    CHECK(a.groups[0].tasks_over_time.size() >= 4);
  }
  // Job turnover and elapsed time on SMT siblings.
  machine_options smt;
  smt.threads_per_core = 2;
  const workload make = workloads::make_j(4, 40, 100);
  const auto ht = presets::find("seed002-ht")->build();
  for (const char* stack : {"linux-modern", "no-balancing"}) {
    INFO(stack);
    CHECK(first_difference(run_named(ht, make, stack, 3, smt), run_named(ht, make, stack, 3, smt)) == "");
  }
}

TEST_CASE("another seed gives another result") {
  const auto t = presets::find("seed000-8node")->build();
  const workload jbb = workloads::specjbb(2, 12, 4.0, 8);
  for (const char* stack : {"vanilla", "linux-modern", "no-balancing"}) {
    INFO(stack);
    const run_result a = run_named(t, jbb, stack, 5);
    const run_result b = run_named(t, jbb, stack, 6);
    CHECK(first_difference(a, b) != "");
    CHECK(a.groups[0].throughput != b.groups[0].throughput);
  }
}

TEST_CASE("an experiment's results do not depend on its thread count or sharding") {
  experiment e{"small", presets::find("seed001-4node")->build(), workloads::specjbb(2, 6, 3.0, 4), {}, {},
               {"vanilla", "linux-4.2", "no-balancing"}, 4, 11};
  const auto one = run_experiment(e, 1);
  const auto two = run_experiment(e, 2);
  const auto half0 = run_experiment(e, 2, 0, 2);
  const auto half1 = run_experiment(e, 1, 1, 2);
  REQUIRE(one.size() == e.stacks.size());
  REQUIRE(two.size() == e.stacks.size());
  for (std::size_t s = 0; s < one.size(); ++s) {
    INFO(one[s].stack);
    CHECK(one[s].stack == two[s].stack);
    REQUIRE(one[s].runs.size() == e.runs);
    REQUIRE(two[s].runs.size() == e.runs);
    REQUIRE(half0[s].runs.size() == 2);
    REQUIRE(half1[s].runs.size() == 2);
    for (unsigned r = 0; r < e.runs; ++r) {
      INFO("run " << r);
      CHECK(first_difference(one[s].runs[r], two[s].runs[r]) == "");
      // Shard k of 2 holds the runs r with r % 2 == k, in order.
      const run_result& sharded = (r % 2 == 0 ? half0 : half1)[s].runs[r / 2];
      CHECK(first_difference(one[s].runs[r], sharded) == "");
      // Run r uses seed e.seed + r: the same as a lone run_stack with that seed.
      if (r == 0) CHECK(first_difference(one[s].runs[r], run_named(e.topology, e.load, e.stacks[s], e.seed, {}, baseline_kernel_of(e.stacks))) == "");
    }
    // Runs differ from each other: each has its own seed.
    CHECK(first_difference(one[s].runs[0], one[s].runs[1]) != "");
  }
}
