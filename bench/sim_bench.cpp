// numaplace_sim_bench: the simulator's speed and memory against the goals the README states.
//
//   BM_seed000_preset                 preset 1 (seed 000): 10 runs x 3 stacks through
//                                     run_experiment on every core. Goal: under 10 s wall on
//                                     a 2-core machine.
//   BM_large_machine/<seconds>        a 64-node backplane machine (8 groups of 8 nodes, 64 CPUs
//                                     each), SPECjbb-like 64 JVMs x 64 warehouses (4096 tasks)
//                                     under linux-modern for <seconds> simulated seconds.
//                                     Goal at 60: under 60 s wall and under 1 GiB peak memory.
//   BM_large_machine_no_balancing/60  the same without NUMA balancing (the engine's floor).
//
// Each runs once (the runs are seconds long) and reports, besides wall time:
//   events         run_result::events summed over the runs (task-ticks plus sampled faults)
//   events_per_s   events per wall second
//   peak_rss_MiB   the peak resident set during the benchmark (VmHWM, reset before it through
//                  /proc/self/clear_refs; where that is refused, getrusage's lifetime maximum)
// scripts/sim-speed builds this at -O2, runs it, and checks the goals.

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/seed_presets.hpp>
#include <numaplace/topology/generators.hpp>

namespace {

using namespace numaplace;
using namespace numaplace::sim;

// Resets the peak resident set (Linux 4.0+: "5" to clear_refs); false when refused.
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  if (!f) return false;
  f << "5";
  f.flush();
  return bool(f);
}

// Peak resident set in MiB: VmHWM when `reset` worked, else getrusage's lifetime maximum.
double peak_rss_mib(bool reset) {
  if (reset) {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
      if (key == "VmHWM:") {
        double kib = 0;
        status >> kib;
        return kib / 1024.0;
      }
      status.ignore(1 << 12, '\n');
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

void report(benchmark::State& state, std::uint64_t events, double wall_s, bool reset) {
  state.counters["events"] = benchmark::Counter(double(events));
  state.counters["events_per_s"] = benchmark::Counter(double(events) / wall_s);
  state.counters["peak_rss_MiB"] = benchmark::Counter(peak_rss_mib(reset));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_seed000_preset(benchmark::State& state) {
  const experiment e = seed000_preset().experiments.at(0);
  const bool reset = reset_peak_rss();
  std::uint64_t events = 0;
  double wall = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto results = run_experiment(e);
    wall += seconds_since(t0);
    for (const auto& s : results) {
      for (const auto& r : s.runs) events += r.events;
    }
    benchmark::DoNotOptimize(results.data());
  }
  state.counters["runs"] = benchmark::Counter(double(e.runs * e.stacks.size()));
  report(state, events, wall, reset);
}
BENCHMARK(BM_seed000_preset)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

dynamic_topology large_machine() {
  return generate::two_level_backplane(8, 8, 20, 30, {64, std::uint64_t{64} << 30});
}

void run_one(benchmark::State& state, const dynamic_topology& t, const workload& w, std::string_view stack) {
  const bool reset = reset_peak_rss();
  std::uint64_t events = 0;
  double wall = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const run_result r = run_stack(t, w, stack, {});
    wall += seconds_since(t0);
    events += r.events;
    benchmark::DoNotOptimize(r.groups.data());
  }
  std::size_t tasks = 0;
  for (const auto& p : w.processes) tasks += p.threads.size();
  state.counters["tasks"] = benchmark::Counter(double(tasks));
  state.counters["nodes"] = benchmark::Counter(double(t.node_count()));
  report(state, events, wall, reset);
}

// SPECjbb with every JVM started at once: staggered starts (2 s apart) would leave most of 64
// or 128 JVMs unstarted within the run, and the goals are for all of their tasks running.
workload specjbb_all_at_once(std::size_t jvms, std::size_t warehouses, double seconds) {
  workload w = workloads::specjbb(jvms, warehouses, seconds);
  for (auto& p : w.processes) p.start_ms = 0;
  return w;
}

void large_run(benchmark::State& state, std::string_view stack) {
  run_one(state, large_machine(), specjbb_all_at_once(64, 64, double(state.range(0))), stack);
}

void BM_large_machine(benchmark::State& state) { large_run(state, "linux-modern"); }
BENCHMARK(BM_large_machine)->Arg(60)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

void BM_large_machine_no_balancing(benchmark::State& state) { large_run(state, "no-balancing"); }
BENCHMARK(BM_large_machine_no_balancing)->Arg(60)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// The large case users with very big machines care about: 256 nodes of 32 CPUs (16 boards of
// 16 nodes), 8,192 SPECjbb tasks (128 JVMs x 64 warehouses), 60 simulated seconds, one run.
void BM_huge_machine(benchmark::State& state) {
  run_one(state, generate::two_level_backplane(16, 16, 20, 30, {32, std::uint64_t{16} << 30}),
          specjbb_all_at_once(128, 64, double(state.range(0))), "linux-modern");
}
BENCHMARK(BM_huge_machine)->Arg(60)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
