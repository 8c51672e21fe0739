#pragma once
// What numaplace's reports compute from a sweep's results (sweep_report.hpp): each stack's
// statistics, node groups, the per-run samples two stacks are compared on with a Welch
// interval (welch.hpp), and each seed claim's verdict against the simulation.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../topology/dynamic_topology.hpp"
#include "../topology/types.hpp"
#include "result.hpp"
#include "sweep_report.hpp"
#include "welch.hpp"

namespace numaplace::sim {

// The value a group's run is judged by: throughput, or elapsed seconds.
inline double metric_of(const group_result& g, bool elapsed) {
  return elapsed ? g.elapsed_seconds : g.throughput;
}

namespace sweep_detail {

inline std::vector<node_index> near_set(const dynamic_topology& t, node_index m) {
  std::vector<node_index> set;
  for (node_index x = 0; x < t.node_count(); ++x) {
    if (x == m || t.distance(m, x) < t.max_distance()) set.push_back(x);
  }
  return set;
}

}  // namespace sweep_detail

/// Node groups: for each node, the nodes nearer to it than the maximum distance (itself
/// included); distinct sets, in node order. On seed 000's machine: {0-3} and {4-7}.
inline std::vector<std::vector<node_index>> node_groups(const dynamic_topology& t) {
  std::vector<std::vector<node_index>> groups;
  for (node_index m = 0; m < t.node_count(); ++m) {
    auto set = sweep_detail::near_set(t, m);
    if (std::find(groups.begin(), groups.end(), set) == groups.end()) groups.push_back(std::move(set));
  }
  return groups;
}

/// Whether every node in `ids` lies in one node group (false when `ids` is empty).
inline bool within_one_node_group(const dynamic_topology& t, const std::vector<node_id>& ids) {
  if (ids.empty()) return false;
  std::vector<node_index> indices;
  for (node_id id : ids) {
    const auto i = t.index_of(id);
    if (!i) return false;
    indices.push_back(*i);
  }
  // Within one group: some member's near set holds them all.
  for (node_index m : indices) {
    const auto set = sweep_detail::near_set(t, m);
    if (std::all_of(indices.begin(), indices.end(),
                    [&](node_index x) { return std::find(set.begin(), set.end(), x) != set.end(); })) {
      return true;
    }
  }
  return false;
}

/// The nodes holding at least a tenth of the group's tasks at the end of the run (ids).
inline std::vector<node_id> task_nodes(const group_result& g, const dynamic_topology& t) {
  std::vector<node_id> ids;
  if (g.tasks_over_time.empty()) return ids;
  const auto& last = g.tasks_over_time.back().tasks_per_node;
  std::uint64_t total = 0;
  for (auto v : last) total += v;
  for (std::size_t m = 0; m < last.size() && m < t.node_count(); ++m) {
    if (total > 0 && std::uint64_t{last[m]} * 10 >= total) ids.push_back(t.id_of(static_cast<node_index>(m)));
  }
  return ids;
}

/// Which program a group runs: its name less a trailing instance number. Groups named jvm1 ..
/// jvm4, rank0 .. rank7 or numa01-1 and numa01-2 are instances of one program, and their
/// figures pool; a database and a batch job are two programs, whose figures reports keep apart
/// (averaged together, their "stddev" would be the gap between two programs, not noise).
inline std::string_view program_of(std::string_view group_name) {
  const auto last = group_name.find_last_not_of("0123456789");
  return last == std::string_view::npos ? group_name : group_name.substr(0, last + 1);
}

/// A program of an experiment, as reports name it.
struct program {
  std::string stem;   ///< program_of() of its groups' names
  std::string label;  ///< its one group's name, or "stem*" when several instances run it
};

/// The programs of `e`'s groups, in the order they first appear. One program: reports pool
/// every group; several: they report each on its own.
inline std::vector<program> programs_of(const experiment_runs& e) {
  std::vector<program> out;
  std::vector<std::string> first_name;
  for (const auto& s : e.stacks) {
    for (const auto& run : s.runs) {
      for (const auto& g : run.groups) {
        const std::string stem(program_of(g.name));
        const auto at = std::find_if(out.begin(), out.end(), [&](const program& p) { return p.stem == stem; });
        if (at == out.end()) {
          out.push_back({stem, g.name});
          first_name.push_back(g.name);
        } else if (first_name[std::size_t(at - out.begin())] != g.name) {
          at->label = stem + "*";
        }
      }
    }
  }
  return out;
}

/// Whether group `g` runs program `only` (every group does when `only` is null).
inline bool runs_program(const group_result& g, const program* only) {
  return only == nullptr || program_of(g.name) == only->stem;
}

/// Statistics over every group of every run of one stack.
struct stack_stats {
  summary metric;                ///< throughput or elapsed seconds per group
  double local_fraction = 0;     ///< mean
  double converged_seconds = 0;  ///< mean
  std::size_t in_one_node_group = 0;
  std::size_t groups = 0;  ///< (run, group) pairs counted
};

/// ... of one program's groups only, when `only` is given.
inline stack_stats stats_of(const experiment_runs& e, const stack_runs& s, const program* only = nullptr) {
  stack_stats st;
  std::vector<double> values;
  double local = 0, converged = 0;
  for (const auto& run : s.runs) {
    for (const auto& g : run.groups) {
      if (!runs_program(g, only)) continue;
      values.push_back(metric_of(g, e.elapsed));
      local += g.local_fraction;
      converged += g.converged_seconds;
      if (within_one_node_group(e.topology, g.memory_nodes)) ++st.in_one_node_group;
      ++st.groups;
    }
  }
  st.metric = summary::of(values);
  if (st.groups > 0) {
    st.local_fraction = local / double(st.groups);
    st.converged_seconds = converged / double(st.groups);
  }
  return st;
}

/// The independent samples of one stack: for each run, in run order, the mean over the run's
/// groups of the throughput, or for elapsed time the last group's (the whole workload's wall
/// time, as a benchmark of several processes is timed). A run's groups share one machine, so
/// they are not independent. With `only`, the same over that program's groups.
inline std::vector<double> run_samples(const experiment_runs& e, const stack_runs& s, const program* only = nullptr) {
  std::vector<double> samples;
  for (const auto& run : s.runs) {
    double sum = 0, latest = 0;
    std::size_t groups = 0;
    for (const auto& g : run.groups) {
      if (!runs_program(g, only)) continue;
      sum += metric_of(g, e.elapsed);
      latest = std::max(latest, g.elapsed_seconds);
      ++groups;
    }
    if (groups == 0) continue;
    // Elapsed: what `time` gives for the whole workload (numa01's parent waits for its child).
    samples.push_back(e.elapsed ? latest : sum / double(groups));
  }
  return samples;
}

/// A variant stack against a baseline stack: the gain in percent (positive when the variant is
/// better) with its 95 % Welch interval over the runs of each.
struct stack_comparison {
  welch_interval gain;
  std::size_t baseline_runs = 0, variant_runs = 0;
};

inline stack_comparison compare_runs(const std::vector<double>& baseline, const std::vector<double>& variant, bool elapsed) {
  return {welch_gain_percent(baseline, variant, elapsed ? better::lower : better::higher),
          baseline.size(), variant.size()};
}

/// "not distinguishable" when the interval spans zero (or there is none), else "better" or "worse".
inline std::string comparison_verdict(const stack_comparison& c) {
  if (!c.gain.distinguishable()) return "not distinguishable";
  return c.gain.difference > 0 ? "better" : "worse";
}

namespace sweep_detail {

// "specjbb-1x24..40" -> prefix "specjbb-1x", 24, 40; nothing for a plain name.
struct name_range {
  std::string prefix;
  unsigned long lo = 0, hi = 0;
};

inline std::optional<unsigned long> parse_number(std::string_view s) {
  unsigned long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

inline std::optional<name_range> aggregate_of(const std::string& name) {
  const auto dots = name.find("..");
  if (dots == std::string::npos) return std::nullopt;
  std::size_t start = dots;
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  const auto lo = parse_number(std::string_view(name).substr(start, dots - start));
  const auto hi = parse_number(std::string_view(name).substr(dots + 2));
  if (!lo || !hi) return std::nullopt;
  return name_range{name.substr(0, start), *lo, *hi};
}

inline bool in_range(const std::string& experiment, const name_range& r) {
  if (!experiment.starts_with(r.prefix)) return false;
  const auto n = parse_number(std::string_view(experiment).substr(r.prefix.size()));
  return n && *n >= r.lo && *n <= r.hi;
}

inline const stack_runs* find_stack(const experiment_runs& e, const std::string& stack) {
  for (const auto& s : e.stacks) {
    if (s.stack == stack) return &s;
  }
  return nullptr;
}

// Per-run sums over several experiments, keyed by run index: a range's sample for run i is the
// mean of its experiments' run-i samples (only indices every experiment ran).
struct run_average {
  std::map<unsigned, std::pair<double, std::size_t>> by_run;  // sum, experiments

  void add(const experiment_runs& e, const stack_runs& s) {
    const auto samples = run_samples(e, s);
    for (std::size_t i = 0, k = 0; i < s.runs.size(); ++i) {
      if (s.runs[i].groups.empty()) continue;
      auto& [sum, count] = by_run[s.run_index[i]];
      sum += samples[k++];
      ++count;
    }
  }

  std::vector<double> samples(std::size_t experiments) const {
    std::vector<double> out;
    for (const auto& [run, entry] : by_run) {
      if (entry.second == experiments) out.push_back(entry.first / double(experiments));
    }
    return out;
  }
};

}  // namespace sweep_detail

/// A claim next to what the simulation gives for it.
struct claim_outcome {
  bool simulated = false;  ///< false when an experiment or stack it needs was not run
  std::string missing;     ///< why not
  double baseline = 0, variant = 0;  ///< simulated means
  std::optional<double> baseline_stddev, variant_stddev;  ///< simulated (single experiments)
  double reported_gain = 0, simulated_gain = 0;            ///< percent
  stack_comparison comparison;  ///< over per-run samples (averaged over a range's experiments)
  bool direction_agrees = false;  ///< the interval excludes zero on the reported gain's side
  bool within_2x = false;         ///< direction agrees and the magnitude is within a factor of 2
  /// "not distinguishable", "direction differs", or "direction agrees, magnitude within 2x: yes|no".
  std::string verdict;
};

inline claim_outcome evaluate_claim(const preset_runs& p, const sweep_claim& c) {
  claim_outcome o;
  o.reported_gain = c.gain_percent(c.reported_baseline, c.reported_variant);
  std::vector<const experiment_runs*> matched;
  const auto range = sweep_detail::aggregate_of(c.experiment);
  for (const auto& e : p.experiments) {
    if (range ? sweep_detail::in_range(e.name, *range) : e.name == c.experiment) matched.push_back(&e);
  }
  if (matched.empty()) {
    o.missing = "experiment " + c.experiment + " was not run";
    return o;
  }
  double base = 0, var = 0;
  sweep_detail::run_average base_runs, var_runs;
  for (const auto* e : matched) {
    const auto* b = sweep_detail::find_stack(*e, c.baseline);
    const auto* v = sweep_detail::find_stack(*e, c.variant);
    if (b == nullptr || v == nullptr) {
      o.missing = "stack " + (b == nullptr ? c.baseline : c.variant) + " was not run";
      return o;
    }
    const auto bs = stats_of(*e, *b);
    const auto vs = stats_of(*e, *v);
    if (bs.groups == 0 || vs.groups == 0) {
      o.missing = "no runs in this shard";
      return o;
    }
    base += bs.metric.mean;
    var += vs.metric.mean;
    base_runs.add(*e, *b);
    var_runs.add(*e, *v);
    if (matched.size() == 1) {
      o.baseline_stddev = bs.metric.stddev;
      o.variant_stddev = vs.metric.stddev;
    }
  }
  o.simulated = true;
  const auto base_samples = base_runs.samples(matched.size());
  const auto var_samples = var_runs.samples(matched.size());
  // The figures the interval is over (for elapsed time each run's last group, not the groups'
  // mean); the groups' means where a shard left no run every experiment ran.
  const auto mean = [](const std::vector<double>& xs) { return summary::of(xs).mean; };
  o.baseline = base_samples.empty() ? base / double(matched.size()) : mean(base_samples);
  o.variant = var_samples.empty() ? var / double(matched.size()) : mean(var_samples);
  o.simulated_gain = c.gain_percent(o.baseline, o.variant);
  o.comparison = compare_runs(base_samples, var_samples, c.elapsed);
  // The verdict reads the interval: a point estimate inside the noise agrees with nothing.
  if (!o.comparison.gain.distinguishable()) {
    o.verdict = "not distinguishable";
    return o;
  }
  o.direction_agrees = o.comparison.gain.difference * o.reported_gain > 0;
  const double ratio = o.reported_gain != 0 ? o.comparison.gain.difference / o.reported_gain : 0;
  o.within_2x = o.direction_agrees && ratio >= 0.5 && ratio <= 2.0;
  o.verdict = o.direction_agrees ? std::string("direction agrees, magnitude within 2x: ") + (o.within_2x ? "yes" : "no")
                                 : "direction differs";
  return o;
}

}  // namespace numaplace::sim
