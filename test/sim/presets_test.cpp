// The seed presets' qualitative results, asserted loosely enough to be stable (the margins
// seen over 10 seeds are far wider than what is asserted), with fewer runs or simulated
// seconds than the presets use where the effect is already there, and each tied to the policy
// it depends on: removing that policy fails the assertion.

#include <numaplace/sim/seed_presets.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

struct quad_count {
  std::size_t within = 0, total = 0;
};

quad_count count_quads(const std::vector<run_result>& runs) {
  quad_count q;
  for (const auto& r : runs) {
    for (const auto& g : r.groups) {
      q.within += within_one_quad(g) ? 1 : 0;
      ++q.total;
    }
  }
  return q;
}

// Seed 000's experiment with fewer runs: at the kernel's scan pace (a 5 GB heap is one pass
// every few seconds) convergence on a quad takes tens of simulated seconds, so the runs keep
// their 60 s (each takes a few hundredths of a second).
constexpr unsigned seed000_runs = 4;
constexpr double seed000_seconds = 60.0;

experiment shortened_seed000() {
  experiment e = seed000_preset().experiments.at(0);
  e.runs = seed000_runs;
  e.load.seconds = seed000_seconds;
  return e;
}

// Runs stack S over the experiment's seeds directly through the engine (for stacks that are
// not named).
template <class S>
std::vector<run_result> run_custom(const experiment& e) {
  std::vector<run_result> out;
  for (unsigned r = 0; r < e.runs; ++r) {
    run_options o;
    o.seed = e.seed + r;
    with_engine<S>(e.topology, e.load, o, [&](auto& eng) { out.push_back(eng.run()); });
  }
  return out;
}

}  // namespace

// The mechanism of seed 000: neighbour weighting gathers each JVM onto one quad; vanilla does
// not. Whether that pays is the seed's claim, which `numaplace sim --experiment seed000` judges:
// with per-warehouse data, TLAB eden and collections (workload.hpp) it no longer does here
// (patches-1-2 -0.7 %, CI -3.0 .. +1.7, against the seed's +8.0 %; README).
TEST_CASE("seed000: neighbour weighting keeps each JVM's memory within one quad, vanilla does not") {
  const experiment e = shortened_seed000();
  const auto results = run_experiment(e);
  const quad_count weighted = count_quads(of(results, "patches-1-2").runs);
  const quad_count pulled = count_quads(of(results, "patches-1-4").runs);
  const quad_count vanilla = count_quads(of(results, "vanilla").runs);
  INFO("patches-1-2: " << weighted.within << "/" << weighted.total << ", patches-1-4: " << pulled.within << "/"
                       << pulled.total << ", vanilla: " << vanilla.within << "/" << vanilla.total << " JVMs within a quad");
  REQUIRE(weighted.total == 2 * seed000_runs);
  // At least 9 in 10 JVM results within a quad with neighbour weighting, more than half with
  // the group pull on top, fewer than half without.
  CHECK(weighted.within * 10 >= weighted.total * 9);
  CHECK(pulled.within * 2 > pulled.total);
  CHECK(vanilla.within * 2 < vanilla.total);
}

TEST_CASE("seed000: dropping neighbour weighting from patches 1-4 breaks quad convergence") {
  // patches-1-4 without neighbour_weighting: the group's preferred node and its pull remain.
  using no_weighting =
      stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>, group_preferred_pull<group_rule::v3_19>,
            preferred_settling<settle_rule::v3_15>, scan_pacing<scan_pacing_rule::v3_17>,
            page_migration<page_migration_rule::v3_15>, kernel_numa_migration<3, 18>, fork_placement<fork_placement_rule::v3_8>>;
  static_assert(std::is_same_v<stacks::patches_1_4,
                               stack<kernel_era::v3_19, fault_scoring<preferred_rule::v3_19>,
                                     neighbour_weighting<nearby_rule::v3_19>, group_preferred_pull<group_rule::v3_19>,
                                     preferred_settling<settle_rule::v3_15>, scan_pacing<scan_pacing_rule::v3_17>,
                                     page_migration<page_migration_rule::v3_15>, kernel_numa_migration<3, 18>,
                                     fork_placement<fork_placement_rule::v3_8>>>,
                "patches-1-4 changed: keep no_weighting equal to it less neighbour_weighting");
  const experiment e = shortened_seed000();
  const quad_count q = count_quads(run_custom<no_weighting>(e));
  INFO("without neighbour weighting: " << q.within << "/" << q.total << " JVMs within a quad");
  REQUIRE(q.total == 2 * seed000_runs);
  // Over 10 runs of 60 s: 0 of 20 (patches-1-4: 20 of 20).
  CHECK(q.within * 2 < q.total);
}

TEST_CASE("seed002: make's short jobs start where they allocate, so NUMA balancing has nothing to win") {
  // Each job first-touches its memory on the node it starts on and ends within a scan period
  // or two; the baseline runs the same kernel (fork placement, load balancer) with NUMA
  // balancing off. The balancing can only cost its hinting faults: within 1 % either way (10
  // runs: 49.26 s against 49.01 s). A baseline that placed new tasks differently from the
  // stack it is compared with (the simulator before the balancing loop moved into the
  // library: -7.5 %) fails this.
  experiment e = seed002_preset().experiments.at(0);
  e.stacks = {"no-balancing", "linux-modern"};
  e.runs = 3;
  const auto results = run_experiment(e);
  const double none = mean_metric(of(results, "no-balancing"), seed_claim::metric::elapsed);
  const double modern = mean_metric(of(results, "linux-modern"), seed_claim::metric::elapsed);
  INFO("no-balancing " << none << " s, linux-modern " << modern << " s");
  CHECK(modern > none * 0.99);
  CHECK(modern < none * 1.01);
}

TEST_CASE("seed003: hard binding each JVM to its node beats every balancing stack") {
  experiment e = seed003_preset().experiments.at(0);
  e.runs = 2;
  e.load.seconds = 20.0;
  const auto results = run_experiment(e);
  const double bound = mean_metric(of(results, "hard-binding"), seed_claim::metric::throughput);
  // Every JVM alone on its node and all local: 8 threads x 1000, less what its own 8 threads'
  // demand costs on the node's memory (6 GB/s of the Opteron node's 13.2: the loaded-latency
  // curve's factor near half load), never more.
  for (const auto& run : of(results, "hard-binding").runs) {
    for (const auto& g : run.groups) CHECK(g.local_fraction == doctest::Approx(1.0).epsilon(1e-12));
  }
  CHECK(bound < 8000.0);
  CHECK(bound > 8000.0 / 1.25);
  for (const auto& s : results) {
    if (s.stack == "hard-binding") continue;
    const double m = mean_metric(s, seed_claim::metric::throughput);
    INFO(s.stack << ": " << m << " against hard binding's " << bound);
    CHECK(m < bound);
  }
}

TEST_CASE("seed000: a JVM on one quad outruns one spread over both by the machine's costs alone") {
  // Seed 000's vanilla table: its JVMs that happened to land on one quad scored 14 % more than
  // those spread over both (4 JVMs at 951k bops against 16 at 834k). Placement alone: the two
  // JVMs hard-bound to a quad each, then each to two nodes of each quad. The measured costs
  // (DL980: node controllers between the quads) give about half the seed's gap; SLIT alone
  // (19 against 17) gives far less. The README reports both; 2x of 14 % is not reached.
  experiment e = seed000_preset().experiments.at(0);
  e.load.seconds = 10.0;
  e.runs = 1;
  e.stacks = {"hard-binding"};
  const auto gap = [&](const std::optional<machine_costs>& hw) {
    e.hardware = hw;
    e.load.processes[0].bind_nodes = {0, 1, 2, 3};
    e.load.processes[1].bind_nodes = {4, 5, 6, 7};
    const double quads = mean_metric(run_experiment(e).front(), seed_claim::metric::throughput);
    e.load.processes[0].bind_nodes = {0, 1, 4, 5};
    e.load.processes[1].bind_nodes = {2, 3, 6, 7};
    const double spread = mean_metric(run_experiment(e).front(), seed_claim::metric::throughput);
    return (quads / spread - 1.0) * 100.0;
  };
  const double measured = gap(hardware_preset("seed000-8node"));
  const double derived = gap(std::nullopt);
  MESSAGE("quad over spread: +" << measured << " % with measured costs, +" << derived << " % derived from SLIT");
  CHECK(measured > 5.0);
  CHECK(measured < 28.0);
  CHECK(derived < 4.0);
}
