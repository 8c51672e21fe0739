#pragma once
// Experiments: one workload on one machine under several stacks, several seeded runs each,
// the runs spread over threads. Results depend only on the seeds, never on the thread count.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../stacks.hpp"
#include "../topology/dynamic_topology.hpp"
#include "baselines.hpp"
#include "binding.hpp"
#include "compiled_stacks.hpp"
#include "result.hpp"
#include "run_engine.hpp"
#include "user_stacks.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// Every name `run_stack` accepts, named stacks first.
inline std::vector<std::string> simulation_stack_names() {
  std::vector<std::string> names;
  for_each_stack([&](std::string_view name, auto) { names.emplace_back(name); });
  names.emplace_back(no_balancing_name);
  names.emplace_back(hard_binding_name);
  names.emplace_back(inverse_binding_name);
  names.emplace_back(o1_scheduler_name);
  return names;
}

/// The stack whose kernel a baseline runs (with NUMA balancing off) when an experiment names
/// no other: the default stack.
inline std::string_view baseline_kernel_of(const std::vector<std::string>& stacks) {
  for (const auto& s : stacks) {
    if (!is_baseline(s)) return s;
  }
  return default_stack_name;
}

/// One run of `w` on `t` under the stack called `stack`: one of `mine`, a named stack or a
/// baseline. The baselines run the kernel of `baseline_kernel` (a stack of either kind) with
/// NUMA balancing off: its fork placement and load balancer, no scanning, no locality
/// preference, as numa_balancing=0 leaves them; `linux-2.5` has the O(1) scheduler instead of
/// that kernel's (o1_scheduler.hpp). Throws std::invalid_argument for an unknown
/// stack, or for hard or inverse binding of a process that binds no CPUs (bind_nodes or
/// cpu_nodes; binding.hpp's bind_nearest gives a workload the ones a user would).
inline run_result run_stack(const dynamic_topology& t, const workload& w, std::string_view stack, run_options o,
                            std::string_view baseline_kernel = default_stack_name, const user_stacks& mine = {}) {
  std::string_view kernel = stack;
  if (stack == no_balancing_name || stack == o1_scheduler_name) {
    o.mode = balancing::none;
    if (stack == o1_scheduler_name) o.scheduler = cpu_scheduler::o1;
    kernel = baseline_kernel;
  } else if (binds_to_nodes(stack)) {
    for (const auto& p : w.processes) {
      if (p.bound_cpu_nodes().empty() && !p.bind_each_thread) {
        throw std::invalid_argument(std::string(stack) + " needs bind_nodes or cpu_nodes for process " + p.name);
      }
    }
    o.mode = stack == hard_binding_name ? balancing::hard_binding : balancing::inverse_binding;
    kernel = baseline_kernel;
  } else {
    o.mode = balancing::numa;
  }
  if (const auto run = mine.find(kernel)) return run(t, w, o);
  run_result result;
  const bool found = with_stack(kernel, [&](auto type) { result = run_engine<typename decltype(type)::type>(t, w, o); });
  if (!found) throw std::invalid_argument("unknown stack '" + std::string(kernel) + "'");
  return result;
}

struct experiment {
  std::string name;
  dynamic_topology topology;
  workload load;
  machine_options machine{};
  cost_model costs{};
  std::vector<std::string> stacks;
  unsigned runs = 10;
  std::uint64_t seed = 1;
  /// The machine's measured costs; empty: derived from SLIT.
  std::optional<machine_costs> hardware{};
  /// Every run checks what must always hold all along, not only at its end
  /// (run_options::full_checks and verify_groups).
  bool full_checks = false;
  /// kernel.numa_balancing's mode and demotion (memory_tiering.hpp); the default: mode 1.
  tiering_options tiering{};
};

/// Binds the processes of `e` without a CPU binding as a user would (bind_nearest), by the cores
/// its runs will have.
inline binding_sizing bind_nearest(experiment& e) {
  return bind_nearest(e.load, e.topology, machine_of(e.machine, e.hardware));
}

/// All runs of one stack, in seed order.
struct stack_results {
  std::string stack;
  std::vector<run_result> runs;
};

/// The options of run `run` of `e`: seed e.seed + run, e's costs, machine and hardware.
inline run_options run_options_of(const experiment& e, unsigned run) {
  run_options o;
  o.seed = e.seed + run;
  o.costs = e.costs;
  o.machine = e.machine;
  o.hardware = e.hardware;
  o.full_checks = o.verify_groups = e.full_checks;
  o.tiering = e.tiering;
  return o;
}

/// The threads `jobs` jobs run on: `requested`, or every core for 0, never more than the jobs.
inline unsigned worker_threads(unsigned requested, std::size_t jobs) {
  const unsigned threads = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs)));
}

/// Runs `runs` of every stack in e.stacks, which may name `mine` besides the named stacks and
/// baselines: run i of every stack uses seed + i, so stacks meet the same random draws as far
/// as their decisions let them. `shard` k of n keeps runs with index % n == k.
/// `progress(done, total)` is called from worker threads, serialised.
inline std::vector<stack_results> run_experiment(const experiment& e, const user_stacks& mine, unsigned threads = 0,
                                                 unsigned shard = 0, unsigned shards = 1,
                                                 const std::function<void(std::size_t, std::size_t)>& progress = {}) {
  const auto names = simulation_stack_names();
  for (const auto& s : e.stacks) {
    if (std::find(names.begin(), names.end(), s) == names.end() && !mine.find(s)) {
      throw std::invalid_argument("unknown stack '" + s + "'");
    }
  }
  if (shards == 0 || shard >= shards) throw std::invalid_argument("shard must be k/n with k < n");
  struct job {
    std::size_t stack;
    unsigned run;
  };
  std::vector<job> jobs;
  std::vector<stack_results> out(e.stacks.size());
  for (std::size_t s = 0; s < e.stacks.size(); ++s) {
    out[s].stack = e.stacks[s];
    for (unsigned r = 0; r < e.runs; ++r) {
      if (r % shards == shard) jobs.push_back({s, r});
    }
  }
  std::vector<run_result> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex progress_lock;
  std::size_t done = 0;
  std::exception_ptr failure;
  const auto worker = [&] {
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      try {
        results[j] = run_stack(e.topology, e.load, e.stacks[jobs[j].stack], run_options_of(e, jobs[j].run),
                               baseline_kernel_of(e.stacks), mine);
      } catch (...) {
        const std::lock_guard lock(progress_lock);
        if (!failure) failure = std::current_exception();
      }
      const std::lock_guard lock(progress_lock);
      ++done;
      if (progress) progress(done, jobs.size());
    }
  };
  threads = worker_threads(threads, jobs.size());
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (failure) std::rethrow_exception(failure);
  for (std::size_t j = 0; j < jobs.size(); ++j) out[jobs[j].stack].runs.push_back(std::move(results[j]));
  return out;
}

/// run_experiment with the named stacks and baselines only.
inline std::vector<stack_results> run_experiment(const experiment& e, unsigned threads = 0, unsigned shard = 0,
                                                 unsigned shards = 1,
                                                 const std::function<void(std::size_t, std::size_t)>& progress = {}) {
  return run_experiment(e, user_stacks{}, threads, shard, shards, progress);
}

}  // namespace numaplace::sim
