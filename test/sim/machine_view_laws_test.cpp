// The simulator's machine_view (sim::machine_view_of) keeps machine_view's laws: checked by
// check_machine_view at every tick of runs with groups and with hard binding; a simulator
// machine left inconsistent fails on the law it breaks.
#include <numaplace/policy/check_machine_view.hpp>
#include <numaplace/sim/seed_presets.hpp>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

// Steps `e` 10 ms at a time, requiring its view lawful after each step, until 100 steps after
// a running task was first seen in a group, or `max_ticks`; true when one was.
template <class Engine>
bool lawful_at_every_tick(Engine& e, int max_ticks) {
  int grouped_at = -1;
  for (int tick = 0; tick < max_ticks && (grouped_at < 0 || tick < grouped_at + 100); ++tick) {
    e.step(10);
    const view_problem p = check_machine_view(machine_view_of(e.state()));
    INFO("tick " << tick << ": " << p.message);
    REQUIRE_FALSE(p);
    for (const auto& t : e.state().tasks) {
      if (grouped_at < 0 && t.alive && !t.asleep && t.group != no_group) grouped_at = tick;
    }
  }
  return grouped_at >= 0;
}

}  // namespace

TEST_CASE("the simulator's view keeps machine_view's laws at every tick") {
  // Seed 001's numa01 (two processes whose threads share memory, so groups form), as the
  // preset runs it.
  const experiment x = seed001_preset().experiments.front();
  run_options o;
  o.seed = x.seed;
  o.costs = x.costs;
  o.machine = x.machine;
  o.hardware = x.hardware;
  with_engine<stacks::linux_modern>(x.topology, x.load, o, [&](auto& e) { CHECK(lawful_at_every_tick(e, 3000)); });
  // Hard binding: every task allowed on its nodes only.
  const auto topo = direct(2, 4);
  const workload jvms = workloads::specjbb(2, 4, 2.0, 2);
  with_baseline_engine(topo, jvms, {}, balancing::hard_binding, [&](auto& e) { lawful_at_every_tick(e, 100); });
}

TEST_CASE("a simulator machine with a stale task node breaks task_node_is_cpu_node") {
  const auto topo = direct(2, 2);
  machine m(topo, machine_options{});
  m.processes.emplace_back();
  task_state t(m.node_count());
  t.cpu = 2;
  t.node = 0;  // CPU 2 is on node 1
  m.cpus[2].tasks.push_back(0);
  m.tasks.push_back(std::move(t));
  ++m.processes[0].live;
  const view_problem p = check_machine_view(machine_view_of(m));
  CHECK(p.law == view_law::task_node_is_cpu_node);
  CHECK(p.message == "task_node_is_cpu_node: task 0 runs on CPU 2 of node 1, but its task_node is 0");
}
