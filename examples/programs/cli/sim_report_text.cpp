#include "sim_report_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace numaplace_cli {

namespace sim = numaplace::sim;

namespace {

constexpr std::size_t per_run_limit = 20;  // seed 000 lists 10 runs x 2 JVMs

std::string value(double v, bool elapsed) { return elapsed ? fmt::format("{:.2f} s", v) : fmt::format("{:.0f}", v); }

std::string signed_percent(double p) { return fmt::format("{:+.1f} %", p); }

// "95 % CI +1.1 .. +4.7 %, Welch, 10 runs each"
std::string interval_text(const sim::stack_comparison& c) {
  const auto count = [](std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); };
  const std::string runs = c.baseline_runs == c.variant_runs
                               ? count(c.baseline_runs) + " each"
                               : fmt::format("{} and {}", c.baseline_runs, count(c.variant_runs));
  if (!c.gain.has_interval) return fmt::format("no interval: {}, fewer than 2", runs);
  return fmt::format("95 % CI {:+.1f} .. {:+.1f} %, Welch, {}", c.gain.low, c.gain.high, runs);
}

void print_runs(const sim::experiment_runs& e, const sim::stack_runs& s) {
  std::size_t name_width = 0;
  for (const auto& run : s.runs) {
    for (const auto& g : run.groups) name_width = std::max(name_width, g.name.size() + 1);
  }
  const std::size_t run_width = std::to_string(e.runs == 0 ? 0 : e.runs - 1).size();
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    for (const auto& g : s.runs[i].groups) {
      const std::string what = e.elapsed ? fmt::format("elapsed = {:8.2f} s", g.elapsed_seconds)
                                         : fmt::format("throughput = {:10.2f} ops/s", g.throughput);
      fmt::print("  run {:<{}}  {:<{}} {}  memory on nodes {}  tasks on {}  local {:.2f}  converged {:.0f} s  moves {} "
                 "task / {} page  balancer {:.2f} s\n",
                 s.run_index[i], run_width, g.name + ":", name_width, what, node_list(g.memory_nodes),
                 node_list(sim::task_nodes(g, e.topology)), g.local_fraction, g.converged_seconds, g.task_migrations,
                 g.page_migrations, g.balancer_seconds);
    }
  }
}

// One row per stack, or per stack and program when the experiment runs several programs
// (sim::programs_of): a database's and a batch job's figures are never averaged together.
void print_table(const sim::experiment_runs& e) {
  const auto programs = e.stacks.empty() ? std::vector<sim::program>{} : sim::programs_of(e);
  const bool split = programs.size() > 1;
  std::size_t w = 5;
  for (const auto& s : e.stacks) w = std::max(w, s.stack.size());
  std::size_t pw = 7;
  for (const auto& p : programs) pw = std::max(pw, p.label.size());
  const std::string program_head = split ? fmt::format("  {:<{}}", "program", pw) : "";
  const char* unit = e.elapsed ? "elapsed s" : "ops/s";
  fmt::print("  {:<{}}{}  {:>6}  {:>12}  {:>10}  {:>12}  {:>12}  {:>12}  {:>5}  {:>6}  {}\n", "stack", w, program_head,
             "groups", fmt::format("mean {}", unit), "stddev", "min", "max", "hmean", "local", "conv s", "one node group");
  const auto row = [&](const sim::stack_runs& s, const sim::program* only) {
    const sim::stack_stats st = sim::stats_of(e, s, only);
    const std::string program_cell = only != nullptr ? fmt::format("  {:<{}}", only->label, pw) : "";
    if (st.groups == 0) {
      fmt::print("  {:<{}}{}  {:>6}  (no runs in this shard)\n", s.stack, w, program_cell, 0);
      return;
    }
    fmt::print("  {:<{}}{}  {:>6}  {:>12.2f}  {:>10.2f}  {:>12.2f}  {:>12.2f}  {:>12.2f}  {:>5.2f}  {:>6.1f}  {}/{}\n",
               s.stack, w, program_cell, st.groups, st.metric.mean, st.metric.stddev, st.metric.min, st.metric.max,
               st.metric.harmonic_mean, st.local_fraction, st.converged_seconds, st.in_one_node_group, st.groups);
  };
  for (const auto& s : e.stacks) {
    if (!split) {
      row(s, nullptr);
      continue;
    }
    for (const auto& p : programs) row(s, &p);
  }
}

// Whether every settle of memory demand and speed reached its fixed point: a run where one
// did not is reported, not hidden.
void print_settles(const sim::experiment_runs& e) {
  numaplace::sim::settle_stats all;
  for (const auto& s : e.stacks) {
    for (const auto& run : s.runs) {
      all.settles += run.settles.settles;
      all.unsettled += run.settles.unsettled;
      all.sweeps += run.settles.sweeps;
      all.most_sweeps = std::max(all.most_sweeps, run.settles.most_sweeps);
      all.worst_residual = std::max(all.worst_residual, run.settles.worst_residual);
    }
  }
  if (all.settles == 0) return;
  const double mean = double(all.sweeps) / double(all.settles);
  if (all.unsettled == 0) {
    fmt::print("  memory load: {} settles, each at its fixed point ({:.1f} sweeps on average, at most {})\n",
               all.settles, mean, all.most_sweeps);
  } else {
    fmt::print("  memory load: WARNING: {} of {} settles stopped short of the fixed point (worst residual {:.2g}); "
               "these runs' speeds are approximate\n",
               all.unsettled, all.settles, all.worst_residual);
  }
}

// What full nodes did, over every run; nothing when no node filled.
void print_full_nodes(const sim::experiment_runs& e) {
  numaplace::sim::full_node_stats all;
  for (const auto& s : e.stacks) {
    for (const auto& run : s.runs) {
      all.fell_back += run.full_nodes.fell_back;
      all.migrations_refused += run.full_nodes.migrations_refused;
    }
  }
  if (all.fell_back == 0 && all.migrations_refused == 0) return;
  fmt::print("  full nodes: {} chunks placed on another node because theirs was full, {} page migrations refused "
             "by a full node (all runs)\n",
             all.fell_back, all.migrations_refused);
}

// What memory tiering did, per stack over its runs; nothing when it did nothing.
void print_tiering(const sim::experiment_runs& e) {
  for (const auto& s : e.stacks) {
    numaplace::sim::tiering_stats all;
    for (const auto& run : s.runs) {
      all.promoted += run.tiering.promoted;
      all.too_cold += run.tiering.too_cold;
      all.rate_limited += run.tiering.rate_limited;
      all.node_full += run.tiering.node_full;
      all.demoted += run.tiering.demoted;
    }
    if (!all.any()) continue;
    fmt::print("  tiering, {}: {} chunks promoted, {} hint faults too cold, {} over the rate limit, {} refused by a full "
               "node; {} chunks demoted (all runs)\n",
               s.stack, all.promoted, all.too_cold, all.rate_limited, all.node_full, all.demoted);
  }
}

// Without claims: each later stack against the first, with its interval, for the whole workload
// and, when it runs several programs, for each on its own.
void print_comparisons(const sim::experiment_runs& e) {
  if (e.stacks.size() < 2) return;
  const auto programs = sim::programs_of(e);
  std::vector<const sim::program*> parts{nullptr};
  if (programs.size() > 1) {
    for (const auto& p : programs) parts.push_back(&p);
  }
  fmt::print("\n");
  for (std::size_t i = 1; i < e.stacks.size(); ++i) {
    for (const sim::program* only : parts) {
      const sim::stack_comparison c = sim::compare_runs(sim::run_samples(e, e.stacks.front(), only),
                                                        sim::run_samples(e, e.stacks[i], only), e.elapsed);
      const std::string what = parts.size() == 1 ? ""
                               : only == nullptr ? (e.elapsed ? ", whole workload (the last to finish)"
                                                              : ", whole workload (mean over its groups)")
                                                 : ", " + only->label;
      fmt::print("  {} vs {}{}: {} ({}): {}\n", e.stacks[i].stack, e.stacks.front().stack, what,
                 signed_percent(c.gain.difference), interval_text(c), sim::comparison_verdict(c));
    }
  }
}

std::string claim_line(const sim::preset_runs& p, const sim::sweep_claim& c) {
  const sim::claim_outcome o = sim::evaluate_claim(p, c);
  std::string line = fmt::format("seed reported: {} vs {} {} ({} -> {});  ", c.variant, c.baseline,
                                 signed_percent(o.reported_gain), value(c.reported_baseline, c.elapsed),
                                 value(c.reported_variant, c.elapsed));
  if (!o.simulated) return line + fmt::format("simulated: not available ({})", o.missing);
  line += fmt::format("simulated: {} ({} -> {}; {}): {}", signed_percent(o.simulated_gain), value(o.baseline, c.elapsed),
                      value(o.variant, c.elapsed), interval_text(o.comparison), o.verdict);
  if (c.reported_baseline_stddev && c.reported_variant_stddev && o.baseline_stddev && o.variant_stddev) {
    const auto ratio = [](double a, double b) { return b > 0 ? fmt::format("/{:.1f}", a / b) : std::string("/-"); };
    line += fmt::format("\n  stddev: seed {:.0f} -> {:.0f} ({});  simulated {} -> {} ({})", *c.reported_baseline_stddev,
                        *c.reported_variant_stddev, ratio(*c.reported_baseline_stddev, *c.reported_variant_stddev),
                        value(*o.baseline_stddev, c.elapsed), value(*o.variant_stddev, c.elapsed),
                        ratio(*o.baseline_stddev, *o.variant_stddev));
  }
  return line;
}

}  // namespace

void print_sim_text(const sim::sweep_report& r, bool per_run) {
  std::vector<std::pair<std::string, std::string>> recap;
  const std::string scaled = scaled_text(r.assumptions);
  if (!scaled.empty()) {
    fmt::print("assumed constants scaled (--assume): {}; these are not the default model's results\n\n", scaled);
  }
  bool first = true;
  for (const auto& p : r.presets) {
    fmt::print("{}[{}] {}\n", first ? "" : "\n", p.name, p.title);
    first = false;
    if (r.shards > 1) fmt::print("shard {}/{}: runs whose index modulo {} is {}\n", r.shard, r.shards, r.shards, r.shard);
    for (const auto& e : p.experiments) {
      fmt::print("\nexperiment {}\n", e.name);
      fmt::print("  machine:  {}\n", e.machine);
      fmt::print("  costs:    {}\n", e.costs);
      if (!scaled.empty()) {
        fmt::print("  scaled:   {}\n", e.assumptions.empty() ? "none of the scaled assumptions applies here"
                                                             : scaled_text(e.assumptions));
      }
      if (!e.binding.empty()) fmt::print("  binding:  {}\n", e.binding);
      if (!e.tiering.empty()) fmt::print("  tiering:  {}\n", e.tiering);
      fmt::print("  memory:   {}\n", describe_node_memory(e.topology));
      fmt::print("  node groups (nodes nearer than the max distance): {}\n", describe_node_groups(e.topology));
      fmt::print("  workload: {}\n", e.workload);
      fmt::print("  runs:     {} per stack, run i with seed {} + i\n", e.runs, e.seed);
      for (const auto& s : e.stacks) {
        std::size_t results = 0;
        for (const auto& run : s.runs) results += run.groups.size();
        if (per_run || (!r.all_presets && results <= per_run_limit)) {
          if (!s.runs.empty()) {
            fmt::print("\n  {}\n", s.stack);
            print_runs(e, s);
          }
        }
      }
      fmt::print("\n");
      print_table(e);
      print_settles(e);
      print_full_nodes(e);
      print_tiering(e);
      if (p.claims.empty()) print_comparisons(e);
    }
    if (!p.claims.empty()) fmt::print("\n");
    for (const auto& c : p.claims) {
      const std::string line = claim_line(p, c);
      fmt::print("{}\n", line);
      recap.emplace_back(p.name, line);
    }
  }
  if (r.presets.size() > 1 && !recap.empty()) {
    fmt::print("\nseed reported vs simulated, all presets{}:\n", scaled.empty() ? "" : ", with " + scaled);
    for (const auto& [preset, line] : recap) fmt::print("{}: {}\n", preset, line);
  }
}

}  // namespace numaplace_cli
