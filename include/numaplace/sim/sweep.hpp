#pragma once
// A sweep: every run of every stack of every experiment, spread over threads and gathered into
// a sweep_report (sweep_report.hpp). Each run is the one run_experiment of the whole experiment
// makes: seed e.seed + run, and a baseline (no-balancing, ...) on the kernel of the experiment's
// first other stack (baseline_kernel_of); results go to their run's slot, so the report does not
// depend on the number of threads or shards. With
// NUMAPLACE_SIM_COMPILED_STACKS the engines come from the registry (compiled_stacks.hpp);
// without it they are instantiated here, as experiment.hpp does.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "experiment.hpp"
#include "machine_costs.hpp"
#include "memory_load.hpp"
#include "run_budget.hpp"
#include "seed_presets.hpp"
#include "sweep_report.hpp"

namespace numaplace::sim {

/// One run of a sweep: run `run` of stack `stack` of experiment `experiment` of preset `preset`.
struct sweep_run {
  std::size_t preset = 0, experiment = 0, stack = 0;
  unsigned run = 0;
};

/// Every run of `presets` that shard `shard` of `shards` holds (run index % shards == shard),
/// in report order.
inline std::vector<sweep_run> sweep_runs(const std::vector<seed_preset>& presets, unsigned shard = 0,
                                         unsigned shards = 1) {
  if (shards == 0 || shard >= shards) throw std::invalid_argument("sweep_runs: shard must be below shards");
  std::vector<sweep_run> runs;
  for (std::size_t p = 0; p < presets.size(); ++p) {
    for (std::size_t x = 0; x < presets[p].experiments.size(); ++x) {
      const auto& e = presets[p].experiments[x];
      for (std::size_t s = 0; s < e.stacks.size(); ++s) {
        for (unsigned r = 0; r < e.runs; ++r) {
          if (r % shards == shard) runs.push_back({p, x, s, r});
        }
      }
    }
  }
  return runs;
}

/// One run of `e` as the budget counts it (run_budget.hpp).
inline run_size run_size_of(const experiment& e) {
  run_size r;
  for (const auto& p : e.load.processes) {
    r.tasks += p.threads.size();
    for (const auto& region : p.regions) r.chunks += region.chunks;
  }
  r.nodes = e.topology.node_count();
  for (node_index i = 0; i < e.topology.node_count(); ++i) {
    if (e.topology.has_cpu(i)) r.cpus += e.topology.cpus(i).empty() ? e.machine.default_cpus_per_node : e.topology.cpus(i).size();
  }
  // Work-bound runs end when the work is done: at most three times the work's time on a
  // machine whose every CPU is busy (remote memory at SLIT 30 runs three times slower); the
  // simulated seconds are only their cap.
  r.seconds = e.load.seconds;
  const double waves = std::ceil(static_cast<double>(r.tasks) / static_cast<double>(std::max<std::uint64_t>(1, r.cpus)));
  if (e.load.report_elapsed) {
    // A thread's work in time: what SLIT-derived costs assume per core (from_slit's
    // defaults) when nobody measured the machine.
    const machine_costs per_core = e.hardware ? *e.hardware : machine_costs{};
    double work_ms = 0;
    for (const auto& p : e.load.processes) {
      if (p.jobs == 0) work_ms = std::max(work_ms, thread_work_ms(p, per_core, e.load.work_per_thread_ms));
    }
    if (work_ms > 0) r.seconds = std::min(r.seconds, 3 * work_ms / 1000 * waves);
  }
  return r;
}

struct sweep_options {
  unsigned threads = 0;  ///< 0: every core (worker_threads)
  /// Every run checks what must always hold all along (experiment::full_checks).
  bool full_checks = false;
  /// Called after each run, failed or not, from the worker threads, not serialised.
  std::function<void(const sweep_run&)> run_done{};
};

/// Runs `runs` (sweep_runs of `presets`) and appends each to its stack in `report`, whose
/// presets, experiments and stacks are those of `presets`, in the same order. The first run
/// that throws stops the others; its std::invalid_argument (a run its machine cannot hold:
/// memory that fits on no node it may use, a binding beyond the machine) comes back as one
/// naming the run ("seed000 specjbb-2x80, linux-modern run 3: ..."), anything else as it was.
inline void run_sweep(const std::vector<seed_preset>& presets, const std::vector<sweep_run>& runs,
                      sweep_report& report, const sweep_options& options = {}) {
  std::vector<run_result> results(runs.size());
  std::atomic<std::size_t> next{0};
  std::mutex failure_lock;
  std::exception_ptr failure;
  std::string failed_run;  // which run failed first, for its message
  const auto worker = [&] {
    for (std::size_t j = next++; j < runs.size(); j = next++) {
      const sweep_run& jb = runs[j];
      const experiment& e = presets[jb.preset].experiments[jb.experiment];
      try {
        run_options o = run_options_of(e, jb.run);
        o.full_checks = o.verify_groups = options.full_checks;
        // A baseline runs the kernel of the experiment's first other stack, as in run_experiment.
        results[j] = run_stack(e.topology, e.load, e.stacks[jb.stack], o, baseline_kernel_of(e.stacks));
      } catch (...) {
        const std::lock_guard lock(failure_lock);
        if (!failure) {
          failure = std::current_exception();
          failed_run = presets[jb.preset].name + " " + e.name + ", " + e.stacks[jb.stack] + " run " + std::to_string(jb.run);
        }
        next = runs.size();  // stop the others early
      }
      if (options.run_done) options.run_done(jb);
    }
  };
  // std::thread, not std::jthread: libc++ before 18 has no jthread.
  std::vector<std::thread> pool;
  const unsigned threads = worker_threads(options.threads, runs.size());
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::invalid_argument& bad) {
      throw std::invalid_argument(failed_run + ": " + bad.what());
    }
  }
  for (std::size_t j = 0; j < runs.size(); ++j) {
    const sweep_run& jb = runs[j];
    auto& s = report.presets[jb.preset].experiments[jb.experiment].stacks[jb.stack];
    s.run_index.push_back(jb.run);
    s.run_seed.push_back(presets[jb.preset].experiments[jb.experiment].seed + jb.run);
    s.runs.push_back(std::move(results[j]));
  }
}

}  // namespace numaplace::sim
