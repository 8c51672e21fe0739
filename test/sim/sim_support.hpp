#pragma once
// Shared helpers of the simulator tests: small machines, hand-made workloads, and a field by
// field comparison of run results (exact: the simulator is deterministic to the bit).

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <numaplace/sim/engine.hpp>
#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/random.hpp>
#include <numaplace/sim/result.hpp>
#include <numaplace/sim/workload.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/generators.hpp>

namespace sim_test {

using namespace numaplace;
using namespace numaplace::sim;

/// `nodes` nodes `remote` apart with `cpus` CPUs each.
inline dynamic_topology direct(std::size_t nodes, unsigned cpus, distance_t remote = 20) {
  return generate::fully_connected(nodes, remote, {cpus, std::uint64_t{1} << 30});
}

/// A random machine's shape: 2 to 4 nodes of `step` to `step * steps` CPUs, a multiple of `step`.
struct shape {
  std::size_t nodes;
  unsigned cpus;
};
inline shape random_shape(random_engine& rng, unsigned step, std::size_t steps) {
  const std::size_t nodes = 2 + random_index(rng, 3);
  return {nodes, step * (1u + static_cast<unsigned>(random_index(rng, steps)))};
}

/// Calls `f(topology, shape)` on `count` random machines drawn from `seed` (random_shape(rng,
/// step, steps), nodes 21 apart, 1 GiB each), each named in the test's INFO.
template <class F>
void on_random_machines(std::uint64_t seed, int count, unsigned step, std::size_t steps, F&& f) {
  random_engine rng(seed);
  for (int i = 0; i < count; ++i) {
    const shape c = random_shape(rng, step, steps);
    const dynamic_topology t = direct(c.nodes, c.cpus, 21);
    INFO(c.nodes << " nodes x " << c.cpus << " CPUs");
    f(t, c);
  }
}

/// One process of `threads` threads, each working only on its own private region of `chunks`.
inline process_spec private_process(std::string name, std::size_t threads, double memory_bound,
                                    std::uint32_t chunks = 4) {
  process_spec p;
  p.name = std::move(name);
  p.memory_bound = memory_bound;
  for (std::size_t t = 0; t < threads; ++t) {
    p.regions.push_back({chunks, false});
    p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
  }
  return p;
}

inline workload throughput_workload(std::vector<process_spec> processes, double seconds) {
  workload w;
  w.name = "test";
  w.processes = std::move(processes);
  w.seconds = seconds;
  return w;
}

/// The first field in which two results differ ("" when they are identical, every double
/// compared exactly).
inline std::string first_difference(const run_result& a, const run_result& b) {
  std::ostringstream d;
  d.precision(17);
  if (a.simulated_seconds != b.simulated_seconds) d << "simulated_seconds " << a.simulated_seconds << " vs " << b.simulated_seconds;
  else if (a.ticks != b.ticks) d << "ticks " << a.ticks << " vs " << b.ticks;
  else if (a.events != b.events) d << "events " << a.events << " vs " << b.events;
  else if (a.groups.size() != b.groups.size()) d << "group count " << a.groups.size() << " vs " << b.groups.size();
  if (!d.str().empty()) return d.str();
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    const group_result& x = a.groups[i];
    const group_result& y = b.groups[i];
    const std::string g = "group " + std::to_string(i) + ": ";
    if (x.name != y.name) d << g << "name " << x.name << " vs " << y.name;
    else if (x.throughput != y.throughput) d << g << "throughput " << x.throughput << " vs " << y.throughput;
    else if (x.elapsed_seconds != y.elapsed_seconds) d << g << "elapsed_seconds " << x.elapsed_seconds << " vs " << y.elapsed_seconds;
    else if (x.local_fraction != y.local_fraction) d << g << "local_fraction " << x.local_fraction << " vs " << y.local_fraction;
    else if (x.task_migrations != y.task_migrations) d << g << "task_migrations " << x.task_migrations << " vs " << y.task_migrations;
    else if (x.page_migrations != y.page_migrations) d << g << "page_migrations " << x.page_migrations << " vs " << y.page_migrations;
    else if (x.balancer_seconds != y.balancer_seconds) d << g << "balancer_seconds " << x.balancer_seconds << " vs " << y.balancer_seconds;
    else if (x.converged_seconds != y.converged_seconds) d << g << "converged_seconds " << x.converged_seconds << " vs " << y.converged_seconds;
    else if (x.memory_nodes != y.memory_nodes) d << g << "memory_nodes";
    else if (x.memory_per_node != y.memory_per_node) d << g << "memory_per_node";
    else if (x.tasks_over_time.size() != y.tasks_over_time.size()) d << g << "tasks_over_time length";
    if (!d.str().empty()) return d.str();
    for (std::size_t s = 0; s < x.tasks_over_time.size(); ++s) {
      if (x.tasks_over_time[s].seconds != y.tasks_over_time[s].seconds ||
          x.tasks_over_time[s].tasks_per_node != y.tasks_over_time[s].tasks_per_node ||
          x.tasks_over_time[s].memory_per_node != y.tasks_over_time[s].memory_per_node) {
        return g + "tasks_over_time[" + std::to_string(s) + "]";
      }
    }
  }
  return {};
}

/// Runs `f(engine&)` on an engine of stack `Stack`'s placement for `t` (numa mode).
template <class Stack, class F>
void with_engine(const dynamic_topology& t, const workload& w, run_options o, F&& f) {
  o.mode = balancing::numa;
  with_placement<Stack>(t, [&](const auto& pl) {
    using P = std::decay_t<decltype(pl)>;
    engine<P> e(t, &pl, w, o);
    f(e);
  });
}

/// Runs `f(engine&)` on an engine without NUMA placement: mode none or hard_binding.
template <class F>
void with_baseline_engine(const dynamic_topology& t, const workload& w, run_options o, balancing mode, F&& f) {
  o.mode = mode;
  const no_placement none;
  engine<no_placement> e(t, &none, w, o);
  f(e);
}

/// The results of stack `stack` in an experiment's results; fails the test when it has none.
inline const stack_results& of(const std::vector<stack_results>& all, std::string_view stack) {
  for (const auto& s : all) {
    if (s.stack == stack) return s;
  }
  FAIL("no results for " << stack);
  throw;  // not reached
}

/// Whether every node holding a tenth of the group's memory lies within one of seed 000's quads.
inline bool within_one_quad(const group_result& g) {
  bool low = true, high = true;
  for (auto n : g.memory_nodes) (n < 4 ? high : low) = false;
  return !g.memory_nodes.empty() && (low || high);
}

}  // namespace sim_test
