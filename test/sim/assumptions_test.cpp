// The assumed constants (assumptions.hpp): each scales what it names and nothing else, fractions
// stay fractions, SPECjbb's access split keeps summing to 1, derived costs are made concrete
// without changing a run, and a scaling the model cannot take is refused.

#include <numaplace/sim/assumptions.hpp>
#include <numaplace/sim/seed_presets.hpp>

#include <cmath>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

experiment specjbb_experiment() {
  experiment e{"jbb", presets::find("seed001-4node")->build(), workloads::specjbb(2, 4, 2.0, 4), {}, {},
               {"linux-modern"}, 1, 1};
  e.hardware = hardware_preset("seed001-4node");
  return e;
}

// A machine without costs of its own: its runs derive them from SLIT.
experiment derived_experiment() {
  return {"derived", direct(2, 4, 30), throughput_workload({private_process("p", 6, 0.5)}, 2.0), {}, {},
          {"linux-modern"}, 1, 3};
}

double weight_sum(const thread_spec& t) {
  double sum = 0;
  for (const auto& a : t.accesses) sum += a.weight;
  return sum;
}

// Thread t's weight on region r.
double weight_on(const thread_spec& t, std::uint32_t r) {
  double w = 0;
  for (const auto& a : t.accesses) w += a.region == r ? a.weight : 0.0;
  return w;
}

}  // namespace

TEST_CASE("every assumption has a name of its own and says what it is") {
  std::set<std::string_view> names;
  for (const auto& a : assumptions()) {
    INFO(a.name);
    CHECK(names.insert(a.name).second);
    CHECK(!a.description.empty());
    CHECK(find_assumption(a.name) == &a);
  }
  CHECK(names.size() >= 20);
  CHECK(find_assumption("specjbb.nothing") == nullptr);
}

TEST_CASE("doubling specjbb.memory_bound doubles it; a fraction is clamped to 1") {
  experiment e = specjbb_experiment();
  CHECK(scale_assumption(e, "specjbb.memory_bound", 2.0));
  for (const auto& p : e.load.processes) CHECK(p.memory_bound == doctest::Approx(0.70));
  CHECK(scale_assumption(e, "specjbb.memory_bound", 2.0));
  for (const auto& p : e.load.processes) CHECK(p.memory_bound == 1.0);
  CHECK(scale_assumption(e, "specjbb.streaming", 0.5));
  for (const auto& p : e.load.processes) CHECK(p.streaming == doctest::Approx(0.1));
}

TEST_CASE("scaling SPECjbb's shared share keeps each thread's split summing to 1, the rest in proportion") {
  experiment e = specjbb_experiment();
  CHECK(scale_assumption(e, "specjbb.shared_share", 2.0));
  for (const auto& p : e.load.processes) {
    for (std::uint32_t t = 0; t < p.threads.size(); ++t) {
      const auto& th = p.threads[t];
      CHECK(weight_sum(th) == doctest::Approx(1.0));
      CHECK(weight_on(th, 0) == doctest::Approx(0.30));  // region 0: the shared part
      // Its own warehouse and the young generation keep their 0.60 : 0.25.
      CHECK(weight_on(th, t + 2) / weight_on(th, 1) == doctest::Approx(0.60 / 0.25));
      CHECK(weight_on(th, t + 2) + weight_on(th, 1) == doctest::Approx(0.70));
    }
  }
  // Clamped to all of a thread's accesses.
  CHECK(scale_assumption(e, "specjbb.shared_share", 1000.0));
  for (const auto& p : e.load.processes) {
    for (const auto& th : p.threads) {
      CHECK(weight_sum(th) == doctest::Approx(1.0));
      CHECK(weight_on(th, 0) == doctest::Approx(1.0));
    }
  }
  experiment young = specjbb_experiment();
  CHECK(scale_assumption(young, "specjbb.young_share", 0.5));
  for (const auto& p : young.load.processes) {
    for (const auto& th : p.threads) {
      CHECK(weight_sum(th) == doctest::Approx(1.0));
      CHECK(weight_on(th, p.gc.young_region) == doctest::Approx(0.125));
    }
  }
}

TEST_CASE("chunk counts are rounded and stay at least 1; collector figures scale") {
  experiment e = specjbb_experiment();
  const auto young = e.load.processes[0].gc.young_region;
  const auto young_chunks = e.load.processes[0].regions[young].chunks;  // 16 per warehouse
  CHECK(scale_assumption(e, "specjbb.young_chunks", 0.5));
  CHECK(e.load.processes[0].regions[young].chunks == young_chunks / 2);
  CHECK(scale_assumption(e, "specjbb.shared_chunks", 0.001));
  CHECK(e.load.processes[0].regions[0].chunks == 1);
  CHECK(e.load.processes[1].regions[2].chunks == 4);  // a warehouse: not assumed, not scaled
  CHECK(scale_assumption(e, "specjbb.alloc_rate", 2.0));
  CHECK(e.load.processes[0].gc.alloc_chunks_per_s == 64);
  CHECK(scale_assumption(e, "specjbb.start_gap", 0.5));
  CHECK(e.load.processes[1].start_ms == 1000);
}

TEST_CASE("an assumption the experiment does not have changes nothing") {
  experiment e = specjbb_experiment();
  const experiment before = e;
  CHECK_FALSE(scale_assumption(e, "make.memory_bound", 2.0));
  CHECK_FALSE(scale_assumption(e, "autonuma.memory_bound", 2.0));
  CHECK_FALSE(scale_assumption(e, "slit.latency_share", 2.0));  // its costs are a preset's, not SLIT's
  CHECK(e.load.processes[0].memory_bound == before.load.processes[0].memory_bound);
  CHECK(e.hardware->latency_ratio == before.hardware->latency_ratio);

  experiment d = derived_experiment();
  CHECK_FALSE(scale_assumption(d, "machine.node_bandwidth", 2.0));  // slit.node_bandwidth is its
  CHECK_FALSE(d.hardware.has_value());
}

TEST_CASE("cost model figures scale; the SMT gain stays a fraction") {
  experiment e = specjbb_experiment();
  CHECK(scale_assumption(e, "task_move_cost", 0.5));
  CHECK(e.costs.task_move_cost_ms == cost_model{}.task_move_cost_ms / 2);
  CHECK(scale_assumption(e, "smt.gain", 8.0));
  CHECK(e.costs.smt_gain_per_sibling == 1.0);
  CHECK(scale_assumption(e, "interleave_chunks", 0.5));
  CHECK(e.costs.interleave_chunks == cost_model{}.interleave_chunks / 2);
}

TEST_CASE("derived costs are made concrete as a run derives them: the results do not change") {
  experiment plain = derived_experiment();
  experiment scaled = derived_experiment();
  CHECK(scale_assumption(scaled, "machine.core_stream", 1.0));
  REQUIRE(scaled.hardware.has_value());
  const auto a = run_experiment(plain, 1);
  const auto b = run_experiment(scaled, 1);
  CHECK(first_difference(a[0].runs[0], b[0].runs[0]) == "");
  // And scaled for real, they do.
  CHECK(scale_assumption(scaled, "machine.core_stream", 4.0));
  CHECK(scale_assumption(scaled, "slit.node_bandwidth", 0.25));
  CHECK(first_difference(a[0].runs[0], run_experiment(scaled, 1)[0].runs[0]) != "");
}

TEST_CASE("slit.latency_share scales SLIT's excess, at most to SLIT's own ratio") {
  experiment e = derived_experiment();  // remote distance 30 over local 10: SLIT says 3.0
  const double halfway = derived_costs(e).ratio(0, 1);
  CHECK(halfway == doctest::Approx(2.0));
  CHECK(scale_assumption(e, "slit.latency_share", 0.5));
  CHECK(e.hardware->ratio(0, 1) == doctest::Approx(1.5));
  CHECK(e.hardware->ratio(0, 0) == 1.0);
  CHECK(scale_assumption(e, "slit.latency_share", 4.0));  // 1.5 -> 3.0, SLIT's
  CHECK(e.hardware->ratio(0, 1) == doctest::Approx(3.0));
  CHECK(scale_assumption(e, "slit.latency_share", 2.0));  // no further
  CHECK(e.hardware->ratio(0, 1) == doctest::Approx(3.0));
  // The next scaling in one call still sees the costs as derived.
  experiment both = derived_experiment();
  const std::vector<assumption_scaling> two{{"slit.latency_share", 2.0}, {"slit.node_bandwidth", 2.0}};
  CHECK(scale_assumptions(both, two) == std::vector<bool>{true, true});
  CHECK(both.hardware->node_bandwidth_gbs[0] == doctest::Approx(2 * derived_costs(derived_experiment()).node_bandwidth_gbs[0]));
}

TEST_CASE("a preset's costs: remote latency scales its excess, the loaded curve keeps rising") {
  experiment e = seed000_preset().experiments.front();
  const machine_costs before = *e.hardware;
  CHECK(scale_assumption(e, "machine.remote_latency", 0.5));
  CHECK(e.hardware->ratio(0, 1) == doctest::Approx(1.0 + (before.ratio(0, 1) - 1.0) / 2));
  CHECK(e.hardware->ratio(3, 3) == 1.0);
  CHECK(scale_assumption(e, "machine.loaded_latency", 0.5));
  const auto& points = e.hardware->loaded.points;
  CHECK(points.front() == std::pair{0.0, 1.0});
  CHECK(points.back().second == doctest::Approx(1.0 + (before.loaded.points.back().second - 1.0) / 2));
  CHECK(scale_assumption(e, "machine.link_bandwidth", 2.0));
  CHECK(e.hardware->links[0].gb_per_s == 2 * before.links[0].gb_per_s);
  CHECK(!validate(*e.hardware, e.topology.node_count()));
}

TEST_CASE("an unknown name, a factor out of range, or costs scaled past validity are refused") {
  experiment e = specjbb_experiment();
  CHECK_THROWS_WITH_AS(scale_assumption(e, "specjbb.nothing", 2.0), "unknown assumption 'specjbb.nothing'",
                       std::invalid_argument);
  CHECK_THROWS_AS(scale_assumption(e, "specjbb.memory_bound", 0.0), std::invalid_argument);
  CHECK_THROWS_AS(scale_assumption(e, "specjbb.memory_bound", 1e4), std::invalid_argument);
  CHECK_THROWS_AS(scale_assumption(e, "specjbb.memory_bound", std::nan("")), std::invalid_argument);
  experiment far = seed000_preset().experiments.front();  // DL980: the other quad is 2.38
  CHECK_THROWS_WITH_AS(scale_assumption(far, "machine.remote_latency", 100.0),
                       doctest::Contains("not in [1, 100]"), std::invalid_argument);
}
