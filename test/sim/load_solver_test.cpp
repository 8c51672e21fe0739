// The demand/speed solver's invariants, over random machines and loads: it reaches a fixed
// point within its tolerance (checked here from its answer, not from its own residual), local
// memory never costs more than remote memory that is no less loaded, and a task never runs
// faster with its memory on another node than with the same load on its own.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <numaplace/sim/load_solver.hpp>
#include <numaplace/sim/machine_costs.hpp>

using namespace numaplace;
using namespace numaplace::sim;

namespace {

// The loaded-latency curves the simulator ships: the generic DDR one (from_slit) and the
// measured Skylake one, whose steep end is where a plain iteration cycles.
const std::vector<loaded_latency_curve> curves{
    {{{0.0, 1.0}, {0.4, 1.0}, {0.6, 1.1}, {0.8, 1.4}, {0.9, 2.0}, {1.0, 3.5}}},
    {{{0.0, 1.0}, {0.5, 1.21}, {0.8, 1.32}, {0.97, 1.51}, {1.0, 2.2}}},
};

// A machine of `n` nodes: latency ratios in [1.1, 2.5] (1 locally), node bandwidths in
// [5, 60] GB/s, and, with `links`, a ring with random chords of [3, 40] GB/s.
machine_costs random_machine(std::mt19937_64& rng, std::size_t n, bool links) {
  std::uniform_real_distribution<double> ratio(1.1, 2.5), bandwidth(5, 60), link(3, 40);
  machine_costs hw;
  hw.name = "random";
  hw.latency_ratio.assign(n * n, 1.0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a != b) hw.latency_ratio[a * n + b] = ratio(rng);
    }
    hw.node_bandwidth_gbs.push_back(bandwidth(rng));
  }
  if (links && n > 1) {
    for (std::size_t a = 0; a < n; ++a) hw.links.push_back({node_index(a), node_index((a + 1) % n), link(rng)});
    std::uniform_int_distribution<std::size_t> node(0, n - 1);
    for (std::size_t chords = n / 2; chords > 0; --chords) {
      const auto a = node(rng), b = node(rng);
      if (a != b) hw.links.push_back({node_index(a), node_index(b), link(rng)});
    }
  }
  hw.loaded = curves[std::uniform_int_distribution<std::size_t>(0, curves.size() - 1)(rng)];
  complete_routes(hw);
  REQUIRE(!validate(hw, n));
  return hw;
}

// Up to 64 tasks, each on a random node, memory-bound 0.05-0.95, asking 0.5-20 GB/s, its
// accesses split over 1-3 random nodes.
demand_problem random_load(std::mt19937_64& rng, std::size_t n) {
  std::uniform_int_distribution<std::size_t> count(1, 64), node(0, n - 1), spread(1, 3);
  std::uniform_real_distribution<double> mb(0.05, 0.95), gbs(0.5, 20), weight(0.1, 1.0);
  demand_problem p;
  for (std::size_t i = count(rng); i > 0; --i) {
    p.add_task(node_index(node(rng)), mb(rng), gbs(rng));
    std::vector<double> w(spread(rng));
    for (auto& x : w) x = weight(rng);
    const double sum = std::accumulate(w.begin(), w.end(), 0.0);
    for (const double x : w) p.add_share(node_index(node(rng)), x / sum);
  }
  return p;
}

// Whether the solver's answer is a fixed point, recomputed from its speeds alone: the demand
// they make, the queueing that demand implies, and the speeds those costs give. The first
// task whose speed is off by more than `within` (relative), or "".
std::string fixed_point_error(const demand_problem& p, const machine_costs& hw, const load_solver& s,
                              double within) {
  const std::size_t n = hw.node_count();
  const auto speed = s.speeds();
  // Each link's load per direction: index 2 l when the data flows from its a to its b.
  // Data comes back from the memory's node: walk the route from the CPU's node, each hop's
  // data flowing from the far end to the near one.
  const auto directions = [&](node_index cpu, node_index memory) {
    std::vector<std::size_t> out;
    node_index at = cpu;
    for (const auto l : hw.route(cpu, memory)) {
      const node_index next = hw.links[l].a == at ? hw.links[l].b : hw.links[l].a;
      out.push_back(2 * l + (next == hw.links[l].a ? 0 : 1));
      at = next;
    }
    return out;
  };
  std::vector<double> demand(n, 0.0), traffic(n * n, 0.0), link_load(2 * hw.links.size(), 0.0);
  for (std::size_t i = 0; i < p.tasks.size(); ++i) {
    for (auto k = p.tasks[i].first; k < p.tasks[i].last; ++k) {
      const double bytes = p.tasks[i].unloaded_gbs * speed[i] * p.shares[k].share;
      demand[p.shares[k].node] += bytes;
      traffic[p.tasks[i].node * n + p.shares[k].node] += bytes;
    }
  }
  for (node_index a = 0; a < n; ++a) {
    for (node_index b = 0; b < n; ++b) {
      for (const auto d : directions(a, b)) link_load[d] += traffic[a * n + b];
    }
  }
  for (std::size_t i = 0; i < p.tasks.size(); ++i) {
    const demand_task& t = p.tasks[i];
    double cost = 0;
    for (auto k = t.first; k < t.last; ++k) {
      const node_index to = p.shares[k].node;
      double route = 1.0;
      for (const auto d : directions(t.node, to)) route = std::max(route, hw.loaded.at(link_load[d] / hw.links[d / 2].gb_per_s));
      cost += p.shares[k].share * hw.ratio(t.node, to) * hw.loaded.at(demand[to] / hw.node_bandwidth_gbs[to]) * route;
    }
    const double expected = task_speed(t.memory_bound, cost);
    if (std::abs(speed[i] - expected) > within * expected) {
      return "task " + std::to_string(i) + ": speed " + std::to_string(speed[i]) + ", its costs give " +
             std::to_string(expected);
    }
  }
  return "";
}

}  // namespace

TEST_CASE("the solver reaches a fixed point on random machines and loads, and keeps local memory first") {
  std::mt19937_64 rng(20261202);
  int settles = 0, most_steps = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 8)(rng);
    const bool links = trial % 2 == 1;
    const machine_costs hw = random_machine(rng, n, links);
    load_solver solver;
    // Several loads in a row on one solver: each settle starts from the last one's answer,
    // as the engine's refreshes do.
    for (int load = 0; load < 3; ++load) {
      const demand_problem p = random_load(rng, n);
      const settle_outcome out = solver.solve(p, hw);
      ++settles;
      most_steps = std::max(most_steps, out.steps);
      INFO("trial ", trial, " load ", load, " nodes ", n, " links ", links);
      REQUIRE(out.converged);
      CHECK(out.residual <= load_solver::tolerance);
      CHECK(fixed_point_error(p, hw, solver, 1e-5) == "");
      CHECK(!solver.check_local_first(hw));
    }
  }
  MESSAGE(settles, " settles, at most ", most_steps, " sweeps");
}

TEST_CASE("a task is never faster with its memory on another node than with the same load on its own") {
  // n identical nodes with identical tasks; either every task's memory is on its own node, or
  // every node's tasks use the next node's memory: each memory then carries the same load,
  // so the remote placement can only add latency and link queueing. The former solver's
  // two-state cycle broke this on saturated nodes.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(2, 8)(rng);
    machine_costs hw = random_machine(rng, n, trial % 2 == 1);
    std::fill(hw.node_bandwidth_gbs.begin(), hw.node_bandwidth_gbs.end(), hw.node_bandwidth_gbs[0]);
    const std::size_t per_node = std::uniform_int_distribution<std::size_t>(1, 24)(rng);
    const double mb = std::uniform_real_distribution<double>(0.3, 0.95)(rng);
    const double gbs = std::uniform_real_distribution<double>(1, 15)(rng);
    // Every node's tasks use the memory `shift` nodes on; the speeds at the fixed point.
    const auto speeds_with_memory_shifted = [&](std::size_t shift) {
      demand_problem p;
      for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t k = 0; k < per_node; ++k) {
          p.add_task(node_index(a), mb, gbs);
          p.add_share(node_index((a + shift) % n), 1.0);
        }
      }
      load_solver solver;
      REQUIRE(solver.solve(p, hw).converged);
      return std::vector<double>(solver.speeds().begin(), solver.speeds().end());
    };
    INFO("trial ", trial, " nodes ", n, " tasks per node ", per_node, " mb ", mb, " GB/s ", gbs);
    const auto local = speeds_with_memory_shifted(0), remote = speeds_with_memory_shifted(1);
    for (std::size_t i = 0; i < local.size(); ++i) CHECK(remote[i] <= local[i] * (1 + 1e-9));
  }
}

TEST_CASE("past saturation the solver lands on the fixed point worked by hand") {
  // One node, 32 streaming tasks asking 10 GB/s each of 40 GB/s: four times saturation. Worked
  // by hand, the fixed point has the memory just past its bandwidth.
  machine_costs hw;
  hw.name = "one saturated node";
  hw.latency_ratio = {1.0};
  hw.node_bandwidth_gbs = {40.0};
  hw.loaded.points = {{0.0, 1.0}, {0.4, 1.0}, {0.6, 1.1}, {0.8, 1.4}, {0.9, 2.0}, {1.0, 3.5}};
  complete_routes(hw);
  demand_problem p;
  for (int i = 0; i < 32; ++i) {
    p.add_task(0, 0.95, 10.0);
    p.add_share(0, 1.0);
  }
  load_solver solver;
  const settle_outcome out = solver.solve(p, hw);
  REQUIRE(out.converged);
  CHECK(fixed_point_error(p, hw, solver, 1e-6) == "");
  // Demand 32 x 10 x s at the fixed point, s = 1 / (0.05 + 0.95 q), q = L(demand / 40); past
  // u = 1 the curve goes on at slope 15: q = 3.5 + 15 (u - 1). So 40 u (0.05 + 0.95 (3.5 +
  // 15 (u - 1))) = 320, whose root is u = 1.22242 (q = 6.83623).
  CHECK(solver.node_demand_gbs(0) / 40.0 == doctest::Approx(1.22242).epsilon(1e-5));
  CHECK(solver.access_costs()[0] == doctest::Approx(6.83623).epsilon(1e-5));
}

TEST_CASE("a link carries its bandwidth each way: traffic one way does not queue behind traffic the other") {
  // Two nodes with ample memory, one link of 10 GB/s each way. Node 0's tasks read node 1's
  // memory at 8 GB/s in all; mirrored, node 1's read node 0's. Each direction carries 8 GB/s,
  // so adding the mirror must not slow node 0's tasks (summed on one link, 16 GB/s would).
  machine_costs hw;
  hw.name = "two nodes, one link";
  hw.latency_ratio = {1.0, 1.5, 1.5, 1.0};
  hw.node_bandwidth_gbs = {1000.0, 1000.0};
  hw.links = {{0, 1, 10.0}};
  hw.loaded.points = {{0.0, 1.0}, {0.4, 1.0}, {0.6, 1.1}, {0.8, 1.4}, {0.9, 2.0}, {1.0, 3.5}};
  complete_routes(hw);
  const auto speed_of_first = [&](bool mirrored) {
    demand_problem p;
    for (node_index a = 0; a < (mirrored ? 2 : 1); ++a) {
      for (int k = 0; k < 4; ++k) {
        p.add_task(a, 0.9, 2.0);
        p.add_share(node_index(1 - a), 1.0);
      }
    }
    load_solver solver;
    REQUIRE(solver.solve(p, hw).converged);
    CHECK(fixed_point_error(p, hw, solver, 1e-6) == "");
    if (mirrored) CHECK(solver.link_load_gbs(0, true) == doctest::Approx(solver.link_load_gbs(0, false)));
    else CHECK(solver.link_load_gbs(0, true) == 0.0);  // node 1's memory to node 0's CPUs: b to a
    return solver.speeds()[0];
  };
  CHECK(speed_of_first(true) == doctest::Approx(speed_of_first(false)).epsilon(1e-9));
}
