#include "sim_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <numaplace/sim/assumptions.hpp>
#include <numaplace/sim/binding.hpp>
#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/run_budget.hpp>
#include <numaplace/sim/seed_presets.hpp>
#include <numaplace/sim/sweep.hpp>
#include <numaplace/topology/presets.hpp>

#include "exit_codes.hpp"
#include "sim_budget.hpp"
#include "sim_workload_spec.hpp"

namespace numaplace_cli {

namespace sim = numaplace::sim;

namespace {

/// Custom runs compare these unless --stacks says otherwise.
const std::vector<std::string> default_custom_stacks{"no-balancing", "linux-modern"};
constexpr unsigned default_custom_runs = 5;
constexpr const char* default_custom_machine = "seed000-8node";
constexpr unsigned max_runs = 100000;

bool same_machine(const numaplace::dynamic_topology& a, const numaplace::dynamic_topology& b) {
  if (a.node_count() != b.node_count()) return false;
  for (numaplace::node_index i = 0; i < a.node_count(); ++i) {
    if (a.id_of(i) != b.id_of(i) || a.has_cpu(i) != b.has_cpu(i) || a.cpus(i).size() != b.cpus(i).size()) return false;
    for (numaplace::node_index j = 0; j < a.node_count(); ++j) {
      if (a.distance(i, j) != b.distance(i, j)) return false;
    }
  }
  return true;
}

// The preset machine a seed experiment runs on, by its matrix and CPUs.
std::string machine_label(const numaplace::dynamic_topology& t) {
  for (const auto& p : numaplace::presets::all()) {
    if (same_machine(p.build(), t)) return fmt::format("preset {}", p.name);
  }
  return "custom machine";
}

std::string cpu_summary(const numaplace::dynamic_topology& t, unsigned default_cpus_per_node) {
  std::size_t cpus = 0;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    if (t.has_cpu(i)) cpus += t.cpus(i).empty() ? default_cpus_per_node : t.cpus(i).size();
  }
  return fmt::format("{} nodes, {} CPUs, {}, max distance {}", t.node_count(), cpus, to_string(t.kind()),
                     t.max_distance());
}

std::string describe_costs(const sim::experiment& e) {
  if (e.hardware) {
    const auto smt = e.hardware->threads_per_core > 1 ? fmt::format(", SMT{}", e.hardware->threads_per_core) : "";
    return fmt::format("{}{}: measured, {} sources{}", e.hardware->name, smt, e.hardware->sources.size(),
                       e.hardware->assumption.empty() ? "" : " (some figures derived: --costs-json says which)");
  }
  return "assumed, " + sim::from_slit_assumption();
}

// How hard and inverse binding sized their node sets, said as the costs are.
std::string describe_binding(const sim::binding_sizing& b) {
  if (b.thread_by_thread > 0) {
    const auto each = fmt::format("{} process{} thread by thread, as autonuma-benchmark's numa02 HARD_BIND and "
                                  "INVERSE_BIND builds bind (inverse: each thread on the mirrored node)",
                                  b.thread_by_thread, b.thread_by_thread == 1 ? "" : "es");
    if (b.processes == 0) return each;
    return each + "; the others " + describe_binding({b.threads_per_core, b.by_cores, b.processes, b.threads, b.cores, 0});
  }
  if (b.processes == 0) return "as the experiment gives it (every process names its nodes)";
  const auto load = fmt::format("{} thread{} in {} process{}, {} free core{}", b.threads, b.threads == 1 ? "" : "s",
                                b.processes, b.processes == 1 ? "" : "es", b.cores, b.cores == 1 ? "" : "s");
  if (b.threads_per_core == 1) return "by cores (no SMT: a core is a CPU): " + load;
  if (!b.by_cores) {
    return fmt::format("by logical CPUs (SMT{}): the free cores cannot hold the processes apart, one thread per "
                       "core: {}",
                       b.threads_per_core, load);
  }
  return fmt::format("by cores (SMT{}), one thread per core, as numactl users bind: {}", b.threads_per_core, load);
}

sim::seed_preset resolve_preset(const std::string& name) {
  // Presets by number, as the issue counts them: 1 is seed000.
  if (name.size() == 1 && name[0] >= '1' && name[0] <= '5') return sim::all_seed_presets()[std::size_t(name[0] - '1')];
  try {
    return sim::find_seed_preset(name);
  } catch (const std::invalid_argument&) {
    throw usage_error(fmt::format("unknown experiment '{}'; valid experiments: {}, all (or 1..5)", name,
                                  fmt::join(sim_preset_names(), ", ")));
  }
}

void check_stacks(const std::vector<std::string>& stacks) {
  const auto names = sim::simulation_stack_names();
  for (const auto& s : stacks) {
    if (std::find(names.begin(), names.end(), s) == names.end()) {
      throw usage_error(fmt::format("unknown stack '{}'; valid stacks: {}", s, fmt::join(names, ", ")));
    }
  }
}

// The runs' tiering in words, with the tiers the kernel would see; empty for mode 1.
std::string describe_tiering(const sim::experiment& e) {
  const sim::tiering_options& t = e.tiering;
  if (t.numa_balancing == sim::numa_balancing_normal && !t.demotion) return {};
  std::string mode = t.numa_balancing == 2 ? "numa_balancing=2 (hot pages promoted, no task placement)"
                   : t.numa_balancing == 3 ? "numa_balancing=3 (task placement and hot-page promotion)"
                                           : "numa_balancing=1 (no promotion)";
  // The tiers the runs' kernel sees: from the machine's costs, measured or derived from SLIT.
  const sim::machine m(e.topology, sim::machine_of(e.machine, e.hardware));
  const sim::memory_tiering tiering(e.topology, sim::run_costs(e.topology, e.hardware, m), sim::cpus_per_node(m));
  std::vector<std::string> tiers;
  for (numaplace::node_index n = 0; n < e.topology.node_count(); ++n) {
    if (e.topology.has_memory(n)) tiers.push_back(fmt::format("node {} tier {}{}", e.topology.id_of(n), tiering.tier(n),
                                                              tiering.toptier(n) ? "" : " (lower)"));
  }
  return fmt::format("{}, demotion {}; {}{}", mode, t.demotion ? "on" : "off", fmt::join(tiers, ", "),
                     tiering.has_lower_tier() ? "" : "; no node below the top tier: nothing to promote");
}

bool is_custom(const sim_request& rq) { return !rq.workloads.empty() || !rq.loads.empty(); }

// The experiments to run, by preset, each with how hard and inverse binding sized its sets
// (describe_binding; empty when no binding stack runs).
struct planned_sweep {
  std::vector<sim::seed_preset> presets;
  std::vector<std::vector<std::string>> binding;
};

planned_sweep build_presets(const sim_request& rq) {
  std::vector<sim::seed_preset> presets;
  if (is_custom(rq)) {
    numaplace::dynamic_topology machine =
        rq.machine ? *rq.machine : numaplace::presets::find(default_custom_machine)->build();
    sim::seed_preset p{"custom", "custom run", {}, {}};
    for (const auto& spec : rq.workloads) {
      p.experiments.push_back({spec, machine, parse_workload_spec(spec), {}, {}, default_custom_stacks, default_custom_runs, 1});
    }
    for (const auto& w : rq.loads) {
      p.experiments.push_back({w.name, machine, w, {}, {}, default_custom_stacks, default_custom_runs, 1});
    }
    for (auto& e : p.experiments) {
      e.hardware = rq.hardware;
      e.machine.threads_per_core = rq.threads_per_core;
      e.machine.default_cpus_per_node = rq.default_cpus_per_node;
      e.costs = rq.costs;
    }
    presets.push_back(std::move(p));
  } else {
    for (const auto& name : rq.presets) {
      if (name == "all") {
        for (auto& p : sim::all_seed_presets()) presets.push_back(std::move(p));
      } else {
        presets.push_back(resolve_preset(name));
      }
    }
  }
  std::vector<std::vector<std::string>> binding;
  for (auto& p : presets) {
    auto& sized = binding.emplace_back(p.experiments.size());
    for (std::size_t x = 0; x < p.experiments.size(); ++x) {
      auto& e = p.experiments[x];
      if (!rq.stacks.empty()) e.stacks = rq.stacks;
      if (rq.runs) e.runs = *rq.runs;
      if (rq.seed) e.seed = *rq.seed;
      e.tiering = rq.tiering;
      check_stacks(e.stacks);
      // The binding baselines need bind_nodes: a process without them gets those a user would
      // give it, the nearest nodes whose cores hold it (explicit ones, from presets, are kept).
      try {
        if (std::any_of(e.stacks.begin(), e.stacks.end(), [](const auto& s) { return sim::binds_to_nodes(s); })) {
          sized[x] = describe_binding(sim::bind_nearest(e));
          const auto kept = std::count_if(e.load.processes.begin(), e.load.processes.end(),
                                          [](const sim::process_spec& ps) { return !ps.inverse_moves_memory; });
          if (kept > 0 && std::find(e.stacks.begin(), e.stacks.end(), sim::inverse_binding_name) != e.stacks.end()) {
            sized[x] += fmt::format("; inverse binding leaves {} {} memory with {} CPUs, as numa01's "
                                    "INVERSE_BIND build does",
                                    kept, kept == 1 ? "process's" : "processes'", kept == 1 ? "its" : "their");
          }
        }
        sim::check_bindings(e.load, e.topology);
      } catch (const std::invalid_argument& bad) {
        throw usage_error(fmt::format("{}: {}", e.name, bad.what()));
      }
    }
  }
  return {std::move(presets), std::move(binding)};
}

// The report without runs: every preset, experiment, stack and claim as the sweep has them.
sim::sweep_report report_frame(const sim_request& rq, const planned_sweep& sweep) {
  sim::sweep_report report;
  report.shard = rq.shard;
  report.shards = rq.shards;
  report.all_presets = std::find(rq.presets.begin(), rq.presets.end(), "all") != rq.presets.end();
  for (std::size_t pi = 0; pi < sweep.presets.size(); ++pi) {
    const auto& p = sweep.presets[pi];
    sim::preset_runs pr{p.name, p.title, {}, {}};
    for (std::size_t x = 0; x < p.experiments.size(); ++x) {
      const auto& e = p.experiments[x];
      sim::experiment_runs er{e.name,
                               is_custom(rq) ? rq.machine_source : machine_label(e.topology),
                               describe_workload(e.load),
                               e.topology,
                               e.load.report_elapsed,
                               e.runs,
                               e.seed,
                               {}};
      er.machine += " (" + cpu_summary(e.topology, e.machine.default_cpus_per_node) + ")";
      er.costs = describe_costs(e);
      er.binding = sweep.binding[pi][x];
      er.tiering = describe_tiering(e);
      for (const auto& s : e.stacks) er.stacks.push_back({s, {}, {}, {}});
      pr.experiments.push_back(std::move(er));
    }
    for (const auto& c : p.claims) {
      pr.claims.push_back({c.experiment, c.baseline, c.variant, c.measure == sim::seed_claim::metric::elapsed,
                           c.reported_baseline, c.reported_variant, c.note, c.reported_baseline_stddev,
                           c.reported_variant_stddev});
    }
    report.presets.push_back(std::move(pr));
  }
  return report;
}

// Each scaled assumption is one the model has, scaled once, by a factor in range.
void check_assumptions(const std::vector<sim::scaled_assumption>& request) {
  for (std::size_t i = 0; i < request.size(); ++i) {
    const auto& a = request[i];
    if (sim::find_assumption(a.name) == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& known : sim::assumptions()) names.push_back(known.name);
      throw usage_error(fmt::format("--assume {}={}: unknown assumption '{}'; valid assumptions: {}", a.name, a.factor,
                                    a.name, fmt::join(names, ", ")));
    }
    if (!(a.factor >= sim::min_assumption_factor && a.factor <= sim::max_assumption_factor)) {
      throw usage_error(fmt::format("--assume {}={}: the factor must be from {} to {}", a.name, a.factor,
                                    sim::min_assumption_factor, sim::max_assumption_factor));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (request[j].name == a.name) throw usage_error(fmt::format("--assume {}: scaled twice", a.name));
    }
  }
}

// Scales the request's assumptions in every experiment, and notes in the report which of them
// each experiment has. One that no experiment has changed nothing: said on stderr.
void apply_assumptions(const std::vector<sim::scaled_assumption>& request, std::vector<sim::seed_preset>& presets,
                       sim::sweep_report& report) {
  report.assumptions = request;
  if (request.empty()) return;
  std::vector<sim::assumption_scaling> scalings;
  for (const auto& a : request) scalings.push_back({a.name, a.factor});
  std::vector<bool> held_anywhere(request.size(), false);
  for (std::size_t p = 0; p < presets.size(); ++p) {
    for (std::size_t x = 0; x < presets[p].experiments.size(); ++x) {
      auto& e = presets[p].experiments[x];
      std::vector<bool> held;
      try {
        held = sim::scale_assumptions(e, scalings);
      } catch (const std::invalid_argument& bad) {
        throw usage_error(fmt::format("--assume: {}: {}", e.name, bad.what()));
      }
      for (std::size_t i = 0; i < held.size(); ++i) {
        if (!held[i]) continue;
        held_anywhere[i] = true;
        report.presets[p].experiments[x].assumptions.push_back(request[i]);
      }
    }
  }
  for (std::size_t i = 0; i < request.size(); ++i) {
    if (!held_anywhere[i]) {
      fmt::print(stderr, "numaplace: notice: --assume {}: no experiment of this run has it; it changed nothing\n",
                 request[i].name);
    }
  }
}

// A sweep estimated to take longer than this says so before it starts, even without --progress.
constexpr double long_sweep_seconds = 60;

// "[3/20] ..." per finished run, with the time left at the pace so far.
class progress_meter {
 public:
  progress_meter(bool on, std::size_t total) : on_(on), tty_(::isatty(STDERR_FILENO) != 0), total_(total) {}
  void done(const std::string& label) {
    if (!on_) return;
    const std::lock_guard lock(mutex_);
    ++done_;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string left =
        done_ < total_ ? fmt::format(", about {} left", readable_seconds(elapsed / done_ * (total_ - done_))) : "";
    if (tty_) {
      fmt::print(stderr, "\r\033[K[{}/{}{}] {}", done_, total_, left, label);
      if (done_ == total_) fmt::print(stderr, "\n");
    } else {
      fmt::print(stderr, "[{}/{}{}] {}\n", done_, total_, left, label);
    }
    std::fflush(stderr);
  }

 private:
  bool on_, tty_;
  std::size_t total_, done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
};

}  // namespace

std::vector<std::string> sim_stack_names() { return sim::simulation_stack_names(); }

std::vector<std::string> sim_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : sim::all_seed_presets()) names.push_back(p.name);
  return names;
}

std::vector<std::pair<std::string, std::string>> sim_assumption_names() {
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& a : sim::assumptions()) names.emplace_back(a.name, a.description);
  return names;
}

sim::sweep_report run_simulations(const sim_request& rq) {
  if (rq.shards == 0 || rq.shard >= rq.shards) {
    throw usage_error(fmt::format("--shard {}/{}: k must be below n", rq.shard, rq.shards));
  }
  if (rq.runs && (*rq.runs == 0 || *rq.runs > max_runs)) {
    throw usage_error(fmt::format("--runs {}: must be 1 to {}", *rq.runs, max_runs));
  }
  check_assumptions(rq.assumptions);
  planned_sweep sweep = build_presets(rq);
  std::vector<sim::seed_preset>& presets = sweep.presets;
  // The report's frame first: the costs are described before scaling makes derived ones concrete.
  sim::sweep_report report = report_frame(rq, sweep);
  apply_assumptions(rq.assumptions, presets, report);

  const std::vector<sim::sweep_run> jobs = sim::sweep_runs(presets, rq.shard, rq.shards);

  const unsigned threads = sim::worker_threads(rq.threads, jobs.size());
  std::vector<sim::run_size> sizes;
  sizes.reserve(jobs.size());
  for (const sim::sweep_run& jb : jobs) sizes.push_back(sim::run_size_of(presets[jb.preset].experiments[jb.experiment]));
  const sim::sweep_estimate estimate = sim::estimate_sweep(sizes, threads);
  check_budget(estimate, rq.budget);
  if (rq.progress) {
    const sim::run_size& l = estimate.largest;
    fmt::print(stderr,
               "{} run{}, {} at once: about {} of CPU time ({} here) and {} of memory, estimated (the largest run: {} "
               "tasks, {} chunks, {} nodes, {} CPUs, {:.4g} s)\n",
               jobs.size(), jobs.size() == 1 ? "" : "s", estimate.at_once, readable_seconds(estimate.cpu_seconds),
               readable_seconds(estimate.wall_seconds), readable_bytes(estimate.peak_bytes), l.tasks, l.chunks, l.nodes,
               l.cpus, l.seconds);
  } else if (estimate.wall_seconds > long_sweep_seconds) {
    // Within the budget but long: said once, so that a sweep of minutes does not look hung.
    fmt::print(stderr, "note: {} run{}, about {} here ({} of CPU time), estimated; --progress shows how far it is\n",
               jobs.size(), jobs.size() == 1 ? "" : "s", readable_seconds(estimate.wall_seconds),
               readable_seconds(estimate.cpu_seconds));
  }

  progress_meter meter(rq.progress, jobs.size());
  sim::sweep_options options;
  options.threads = threads;
  options.full_checks = rq.full_checks;
  options.run_done = [&](const sim::sweep_run& jb) {
    const auto& e = presets[jb.preset].experiments[jb.experiment];
    meter.done(fmt::format("{} {} {} run {}", presets[jb.preset].name, e.name, e.stacks[jb.stack], jb.run));
  };
  try {
    sim::run_sweep(presets, jobs, report, options);
  } catch (const std::invalid_argument& bad) {
    // A run refuses what its input asks and the machine cannot do (memory that fits on no node
    // it may use, a binding beyond the machine): bad input, not a failed simulation.
    throw bad_input_error(bad.what());
  }
  return report;
}

}  // namespace numaplace_cli
