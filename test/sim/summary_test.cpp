// sim::summary, the figures every report prints: min <= harmonic mean <= mean <= max for any
// series of non-negative figures, and a zero makes the harmonic mean zero. Before, a zero was
// skipped but still counted: 1,000 SPECjbb groups, most at 0 ops/s, gave a harmonic mean of
// 21,576,694 against a largest value of 65,230.
#include <doctest/doctest.h>

#include <numaplace/sim/result.hpp>
#include <numaplace/sim/sweep_analysis.hpp>

#include <random>
#include <vector>

using numaplace::sim::summary;

TEST_CASE("summary: a zero makes the harmonic mean zero; otherwise it lies between min and mean") {
  CHECK(summary::of({0.0, 10.0}).harmonic_mean == 0);
  CHECK(summary::of({2.0, 2.0}).harmonic_mean == doctest::Approx(2.0));
  CHECK(summary::of({1.0, 4.0, 4.0}).harmonic_mean == doctest::Approx(2.0));
  CHECK(summary::of({}).harmonic_mean == 0);

  std::mt19937_64 random(11);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<double> xs(1 + random() % 50);
    const bool zeros = trial % 4 == 0;
    for (double& x : xs) {
      x = zeros && random() % 3 == 0 ? 0.0 : std::uniform_real_distribution<double>(1e-3, 1e6)(random);
    }
    const summary s = summary::of(xs);
    INFO("trial " << trial);
    CHECK(s.min <= s.harmonic_mean * (1 + 1e-12));
    CHECK(s.harmonic_mean <= s.mean * (1 + 1e-12));
    CHECK(s.mean <= s.max * (1 + 1e-12));
    if (s.min == 0) CHECK(s.harmonic_mean == 0);
  }
}

// Reports pool a program's instances (jvm1, jvm2) and keep different programs apart.
TEST_CASE("programs_of: instances pool, different programs stay apart") {
  using namespace numaplace::sim;
  CHECK(program_of("jvm12") == "jvm");
  CHECK(program_of("numa01-2") == "numa01-");
  CHECK(program_of("db") == "db");
  CHECK(program_of("42") == "42");

  experiment_runs e{.name = "mixed",
                    .machine = "",
                    .workload = "",
                    .topology = numaplace::dynamic_topology(std::vector<std::vector<long long>>{{10}}),
                    .elapsed = true,
                    .runs = 2,
                    .seed = 1,
                    .stacks = {}};
  stack_runs s;
  s.stack = "a";
  const auto group = [](std::string name, double value) {
    group_result g;
    g.name = std::move(name);
    g.elapsed_seconds = value;
    return g;
  };
  for (int run = 0; run < 2; ++run) {
    run_result r;
    r.groups = {group("db", 10 + run), group("batch1", 100), group("batch2", 200 + run)};
    s.run_index.push_back(unsigned(run));
    s.run_seed.push_back(std::uint64_t(run));
    s.runs.push_back(r);
  }
  e.stacks.push_back(s);
  const auto programs = programs_of(e);
  REQUIRE(programs.size() == 2);
  CHECK(programs[0].label == "db");
  CHECK(programs[1].label == "batch*");
  CHECK(stats_of(e, e.stacks[0], &programs[0]).metric.mean == doctest::Approx(10.5));
  CHECK(stats_of(e, e.stacks[0], &programs[1]).metric.mean == doctest::Approx(150.25));
  CHECK(stats_of(e, e.stacks[0]).groups == 6);
  // Elapsed time: the last of the program's groups to finish, run by run.
  CHECK(run_samples(e, e.stacks[0], &programs[0]) == std::vector<double>{10, 11});
  CHECK(run_samples(e, e.stacks[0], &programs[1]) == std::vector<double>{200, 201});
  CHECK(run_samples(e, e.stacks[0]) == std::vector<double>{200, 201});
}
