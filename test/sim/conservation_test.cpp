// Conservation: stepping the engine in small increments, after every step every live task is
// on exactly one CPU and every chunk is counted once; at the end each process still has all of
// its chunks, and its tasks were always all somewhere. Every workload generator, every mode,
// with more tasks than CPUs too.

#include <numeric>
#include <string>

#include "sim_support.hpp"

using namespace sim_test;

namespace {

struct named_workload {
  std::string name;
  workload load;
};

// Small instances of every generator; `scale` multiplies the thread counts.
std::vector<named_workload> small_workloads(std::size_t scale) {
  std::vector<named_workload> out;
  out.push_back({"specjbb", workloads::specjbb(2, 4 * scale, 3.0, 4)});
  out.push_back({"numa01", workloads::numa01(3 * scale, 48, 600)});
  out.push_back({"numa01_thread_alloc", workloads::numa01_thread_alloc(3 * scale, 48, 600)});
  out.push_back({"numa02", workloads::numa02(6 * scale, 4, 500)});
  out.push_back({"make_j", workloads::make_j(4 * scale, 25, 80)});  // job turnover: 25 jobs of 80 ms
  for (auto& w : out) {
    w.load.seconds = 3.0;
    // Hard binding: process i on two neighbouring nodes.
    for (std::uint32_t p = 0; p < w.load.processes.size(); ++p) w.load.processes[p].bind_nodes = {2 * p % 4, (2 * p + 1) % 4};
  }
  return out;
}

std::uint64_t chunks_of(const process_spec& p) {
  std::uint64_t n = 0;
  for (const auto& r : p.regions) n += r.chunks;
  return n;
}

// Steps `e` through the whole run in `step_ms` increments, checking the invariants after each
// step, then checks the result.
template <class Engine>
void step_and_check(Engine& e, const workload& w, const dynamic_topology& t, double step_ms, balancing mode) {
  std::size_t steps = 0;
  std::string broken = e.check_invariants();  // as built, before the first tick
  for (double ms = 0; ms < w.seconds * 1000.0 && broken.empty(); ms += step_ms, ++steps) {
    e.step(step_ms);
    broken = e.check_invariants();
  }
  INFO("after step " << steps << " (" << step_ms << " ms each; step 0: as built)");
  CHECK(broken == "");
  if (!broken.empty()) return;
  const run_result r = e.run();
  REQUIRE(e.check_invariants() == "");
  REQUIRE(r.groups.size() == w.processes.size());
  for (std::size_t p = 0; p < w.processes.size(); ++p) {
    const process_spec& ps = w.processes[p];
    const group_result& g = r.groups[p];
    INFO("process " << ps.name);
    REQUIRE(g.memory_per_node.size() == t.node_count());
    CHECK(std::accumulate(g.memory_per_node.begin(), g.memory_per_node.end(), std::uint64_t{0}) == chunks_of(ps));
    for (const auto& s : g.tasks_over_time) {
      const auto tasks = std::accumulate(s.tasks_per_node.begin(), s.tasks_per_node.end(), std::uint32_t{0});
      // A process started late (a staggered JVM) has no tasks before its start.
      const bool started = s.seconds * 1000.0 >= ps.start_ms;
      if (ps.jobs == 0 && !w.report_elapsed) CHECK(tasks == (started ? ps.threads.size() : 0));
      CHECK(tasks <= ps.threads.size());
      // Memory over time: a node list like the tasks', never more than the process has.
      REQUIRE(s.memory_per_node.size() == t.node_count());
      CHECK(std::accumulate(s.memory_per_node.begin(), s.memory_per_node.end(), std::uint64_t{0}) <= chunks_of(ps));
    }
    if (!g.tasks_over_time.empty()) CHECK(g.tasks_over_time.back().memory_per_node == g.memory_per_node);
    if (w.report_elapsed && g.elapsed_seconds < w.seconds) CHECK(g.tasks_over_time.back().tasks_per_node == std::vector<std::uint32_t>(t.node_count(), 0));
    if (binds_cpus(mode) && ps.bind_each_thread) {
      // Bound thread by thread (numa02's binding builds): each node holds the parts of the
      // threads whose memory it is, and runs at most the threads bound to it.
      std::vector<std::uint64_t> chunks(t.node_count(), 0);
      std::vector<std::uint32_t> threads(t.node_count(), 0);
      for (std::size_t i = 0; i < ps.threads.size(); ++i) {
        const thread_binding b = bind_thread(t, ps.threads.size(), i);
        for (const auto& a : ps.threads[i].accesses) chunks[b.home] += ps.regions[a.region].chunks;
        ++threads[mode == balancing::hard_binding ? b.home : b.mirrored];
      }
      CHECK(g.memory_per_node == chunks);
      for (const auto& s : g.tasks_over_time) {
        for (node_index m = 0; m < t.node_count(); ++m) CHECK(s.tasks_per_node[m] <= threads[m]);
      }
    } else if (binds_cpus(mode)) {
      // Nothing of a bound process, task or chunk, ever leaves its nodes (inverse binding's
      // memory: the farthest nodes, for the processes it inverts).
      const auto& cpus = ps.bind_nodes;
      const bool inverted = mode == balancing::inverse_binding && ps.inverse_moves_memory;
      const auto memory = inverted ? farthest_nodes(t, cpus) : cpus;
      for (node_index m = 0; m < t.node_count(); ++m) {
        if (std::find(memory.begin(), memory.end(), m) == memory.end()) {
          CHECK(g.memory_per_node[m] == 0);
          for (const auto& s : g.tasks_over_time) CHECK(s.memory_per_node[m] == 0);
        }
        if (std::find(cpus.begin(), cpus.end(), m) != cpus.end()) continue;
        for (const auto& s : g.tasks_over_time) CHECK(s.tasks_per_node[m] == 0);
      }
    }
  }
}

void check_all_modes(const dynamic_topology& t, std::size_t scale, machine_options m = {}) {
  for (const named_workload& nw : small_workloads(scale)) {
    const workload& w = nw.load;
    for (const double step_ms : {10.0, 25.0}) {
      run_options o;
      o.machine = m;
      o.seed = 7;
      INFO(nw.name << ", steps of " << step_ms << " ms");
      {
        INFO("linux-modern");
        with_engine<stacks::linux_modern>(t, w, o, [&](auto& e) { step_and_check(e, w, t, step_ms, balancing::numa); });
      }
      {
        INFO("shared-interleave");
        with_engine<stacks::shared_interleave>(t, w, o, [&](auto& e) {
          step_and_check(e, w, t, step_ms, balancing::numa);
        });
      }
      {
        INFO("no-balancing");
        with_baseline_engine(t, w, o, balancing::none, [&](auto& e) { step_and_check(e, w, t, step_ms, balancing::none); });
      }
      {
        INFO("hard-binding");
        with_baseline_engine(t, w, o, balancing::hard_binding, [&](auto& e) {
          step_and_check(e, w, t, step_ms, balancing::hard_binding);
        });
      }
      {
        INFO("inverse-binding");
        with_baseline_engine(t, w, o, balancing::inverse_binding, [&](auto& e) {
          step_and_check(e, w, t, step_ms, balancing::inverse_binding);
        });
      }
    }
  }
}

}  // namespace

TEST_CASE("conservation on a 4-node machine with a CPU per task") {
  // 4 nodes x 6 CPUs: at most 12 tasks per workload.
  check_all_modes(direct(4, 6), 1);
}

TEST_CASE("conservation on an oversubscribed backplane machine") {
  // 4 nodes x 2 CPUs (pairs 20 apart, 30 across): 2 to 3 times more tasks than CPUs.
  check_all_modes(generate::two_level_backplane(2, 2, 20, 30, {2, std::uint64_t{1} << 30}), 3);
}

TEST_CASE("conservation with SMT siblings and job turnover") {
  machine_options smt;
  smt.threads_per_core = 2;
  check_all_modes(direct(4, 2), 2, smt);
}

TEST_CASE("a stepped run ends exactly where a single run() ends") {
  const auto t = direct(4, 2);
  const workload w = workloads::specjbb(2, 6, 2.0, 4);
  run_result whole, stepped;
  with_engine<stacks::linux_modern>(t, w, {}, [&](auto& e) { whole = e.run(); });
  with_engine<stacks::linux_modern>(t, w, {}, [&](auto& e) {
    for (int i = 0; i < 13; ++i) e.step(37.0);
    stepped = e.run();
  });
  CHECK(first_difference(whole, stepped) == "");
}

TEST_CASE("checking all through a run (sim --check) changes none of its results") {
  // full_checks only reads the state; a check that moved, woke or settled anything would make
  // the checked run differ from the unchecked one. Every workload generator, with NUMA
  // balancing and without.
  const auto t = generate::two_level_backplane(2, 2, 20, 30, {2, std::uint64_t{1} << 30});
  for (const named_workload& nw : small_workloads(2)) {
    const workload& w = nw.load;
    INFO(nw.name);
    run_options plain, checked;
    checked.full_checks = checked.verify_groups = true;
    run_result a, b;
    with_engine<stacks::linux_modern>(t, w, plain, [&](auto& e) { a = e.run(); });
    with_engine<stacks::linux_modern>(t, w, checked, [&](auto& e) { b = e.run(); });
    CHECK(first_difference(a, b) == "");
    with_baseline_engine(t, w, plain, balancing::none, [&](auto& e) { a = e.run(); });
    with_baseline_engine(t, w, checked, balancing::none, [&](auto& e) { b = e.run(); });
    CHECK(first_difference(a, b) == "");
  }
}
