// A sweep (sweep.hpp): every run of every stack spread over threads into a sweep_report, each
// run the one run_experiment of the whole experiment makes, whatever the threads and shards.
#include <doctest/doctest.h>

#include <numaplace/sim/sweep.hpp>
#include <numaplace/topology/presets.hpp>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

std::vector<seed_preset> small_sweep() {
  experiment e{"small", presets::find("seed001-4node")->build(), workloads::specjbb(2, 6, 3.0, 4), {}, {},
               {"vanilla", "no-balancing"}, 3, 11};
  return {seed_preset{"p", "a small sweep", {e}, {}}};
}

// The report's frame: the presets' experiments and stacks, no runs yet.
sweep_report frame_of(const std::vector<seed_preset>& presets) {
  sweep_report r;
  for (const auto& p : presets) {
    preset_runs pr{p.name, p.title, {}, {}};
    for (const auto& e : p.experiments) {
      experiment_runs er{e.name, "", "", e.topology, false, e.runs, e.seed, {}};
      for (const auto& s : e.stacks) er.stacks.push_back({s, {}, {}, {}});
      pr.experiments.push_back(std::move(er));
    }
    r.presets.push_back(std::move(pr));
  }
  return r;
}

}  // namespace

TEST_CASE("a sweep's runs are run_experiment's of the whole experiment, whatever its threads") {
  const auto presets = small_sweep();
  const auto runs = sweep_runs(presets);
  CHECK(runs.size() == 6);
  sweep_report one = frame_of(presets), two = frame_of(presets);
  std::atomic<std::size_t> done{0};
  run_sweep(presets, runs, one, {1, false, {}});
  run_sweep(presets, runs, two, {2, false, [&](const sweep_run&) { ++done; }});
  CHECK(done == runs.size());
  const experiment& e = presets[0].experiments[0];
  // The baseline (no-balancing) runs vanilla's kernel, the experiment's other stack, in both.
  const auto expected_all = run_experiment(e, 1);
  for (std::size_t s = 0; s < e.stacks.size(); ++s) {
    const std::vector<stack_results> expected{expected_all[s]};
    const stack_runs& a = one.presets[0].experiments[0].stacks[s];
    const stack_runs& b = two.presets[0].experiments[0].stacks[s];
    REQUIRE(a.runs.size() == 3);
    REQUIRE(b.runs.size() == 3);
    for (unsigned r = 0; r < 3; ++r) {
      INFO(a.stack << " run " << r);
      CHECK(a.run_index[r] == r);
      CHECK(a.run_seed[r] == 11 + r);
      CHECK(first_difference(a.runs[r], expected[0].runs[r]) == "");
      CHECK(first_difference(b.runs[r], expected[0].runs[r]) == "");
    }
  }
}

TEST_CASE("a shard holds the runs whose index it takes") {
  const auto presets = small_sweep();
  const auto runs = sweep_runs(presets, 1, 2);
  REQUIRE(runs.size() == 2);
  for (const sweep_run& r : runs) CHECK(r.run == 1);
  CHECK_THROWS_AS(sweep_runs(presets, 2, 2), std::invalid_argument);
}

TEST_CASE("a run's bad input comes back naming the run") {
  auto presets = small_sweep();
  presets[0].experiments[0].stacks = {"no-such-stack"};
  sweep_report report = frame_of(presets);
  std::string what;
  try {
    run_sweep(presets, sweep_runs(presets), report, {1, false, {}});
  } catch (const std::invalid_argument& e) {
    what = e.what();
  }
  CHECK(what == "p small, no-such-stack run 0: unknown stack 'no-such-stack'");
}
