#include "sim_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "memory_text.hpp"

namespace numaplace_cli {

using numaplace::dynamic_topology;
using numaplace::node_id;
using numaplace::node_index;

std::string scaled_text(const std::vector<sim_assumption>& scaled) {
  std::string out;
  for (const auto& a : scaled) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", a.name, a.factor);
  return out;
}

double metric_of(const numaplace::sim::group_result& g, bool elapsed) {
  return elapsed ? g.elapsed_seconds : g.throughput;
}

namespace {

std::vector<node_index> near_set(const dynamic_topology& t, node_index m) {
  std::vector<node_index> set;
  for (node_index x = 0; x < t.node_count(); ++x) {
    if (x == m || t.distance(m, x) < t.max_distance()) set.push_back(x);
  }
  return set;
}

// "0-3", "0,2", "4-7,9"
std::string compact(const std::vector<node_id>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j - i >= 2 ? fmt::format("{}-{}", ids[i], ids[j])
                      : (j == i ? fmt::format("{}", ids[i]) : fmt::format("{},{}", ids[i], ids[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace

std::vector<std::vector<node_index>> node_groups(const dynamic_topology& t) {
  std::vector<std::vector<node_index>> groups;
  for (node_index m = 0; m < t.node_count(); ++m) {
    auto set = near_set(t, m);
    if (std::find(groups.begin(), groups.end(), set) == groups.end()) groups.push_back(std::move(set));
  }
  return groups;
}

bool within_one_node_group(const dynamic_topology& t, const std::vector<node_id>& ids) {
  if (ids.empty()) return false;
  std::vector<node_index> indices;
  for (node_id id : ids) {
    const auto i = t.index_of(id);
    if (!i) return false;
    indices.push_back(*i);
  }
  // Within one group: some member's near set holds them all.
  for (node_index m : indices) {
    const auto set = near_set(t, m);
    if (std::all_of(indices.begin(), indices.end(),
                    [&](node_index x) { return std::find(set.begin(), set.end(), x) != set.end(); })) {
      return true;
    }
  }
  return false;
}

std::vector<node_id> task_nodes(const numaplace::sim::group_result& g, const dynamic_topology& t) {
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

std::string node_list(const std::vector<node_id>& ids) {
  if (ids.empty()) return "-";
  std::string out;
  for (node_id id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

std::string describe_node_groups(const dynamic_topology& t) {
  std::string out;
  for (const auto& g : node_groups(t)) {
    std::vector<node_id> ids;
    for (node_index i : g) ids.push_back(t.id_of(i));
    std::sort(ids.begin(), ids.end());
    out += (out.empty() ? "{" : " {") + compact(ids) + "}";
  }
  return out;
}

std::string describe_node_memory(const dynamic_topology& t) {
  bool all_known = true, all_unknown = true, all_same = true;
  for (node_index i = 0; i < t.node_count(); ++i) {
    const bool known = !t.has_memory(i) || t.memory_bytes(i) != 0;
    (known ? all_unknown : all_known) = false;
    all_same = all_same && memory_text(t.node(i)) == memory_text(t.node(0));
  }
  if (all_unknown) return "node sizes not given: no node fills (--file, --generate /memory=SIZE give them)";
  std::string sizes;
  if (all_same) {
    sizes = memory_text(t.node(0)) + " a node";
  } else {
    for (node_index i = 0; i < t.node_count(); ++i) {
      sizes += fmt::format("{}node {} {}", sizes.empty() ? "" : ", ", t.id_of(i), memory_text(t.node(i)));
    }
  }
  return sizes + (all_known ? "" : " (unknown: no limit)") +
         "; the workload may use all of it, and a full node's allocations fall back to the nearest with room";
}

stack_stats stats_of(const sim_experiment_result& e, const sim_stack_result& s) {
  stack_stats st;
  std::vector<double> values;
  double local = 0, converged = 0;
  for (const auto& run : s.runs) {
    for (const auto& g : run.groups) {
      values.push_back(metric_of(g, e.elapsed));
      local += g.local_fraction;
      converged += g.converged_seconds;
      if (within_one_node_group(e.topology, g.memory_nodes)) ++st.in_one_node_group;
      ++st.groups;
    }
  }
  st.metric = numaplace::sim::summary::of(values);
  if (st.groups > 0) {
    st.local_fraction = local / double(st.groups);
    st.converged_seconds = converged / double(st.groups);
  }
  return st;
}

std::vector<double> run_samples(const sim_experiment_result& e, const sim_stack_result& s) {
  std::vector<double> samples;
  for (const auto& run : s.runs) {
    if (run.groups.empty()) continue;
    if (e.elapsed) {
      // What `time` gives for the whole workload: numa01's parent waits for its child.
      samples.push_back(run.max_elapsed());
      continue;
    }
    double sum = 0;
    for (const auto& g : run.groups) sum += metric_of(g, e.elapsed);
    samples.push_back(sum / double(run.groups.size()));
  }
  return samples;
}

stack_comparison compare_runs(const std::vector<double>& baseline, const std::vector<double>& variant, bool elapsed) {
  using numaplace::sim::better;
  return {numaplace::sim::welch_gain_percent(baseline, variant, elapsed ? better::lower : better::higher),
          baseline.size(), variant.size()};
}

std::string comparison_verdict(const stack_comparison& c) {
  if (!c.gain.distinguishable()) return "not distinguishable";
  return c.gain.difference > 0 ? "better" : "worse";
}

namespace {

// "specjbb-1x24..40" -> prefix "specjbb-1x", 24, 40; nothing for a plain name.
struct name_range {
  std::string prefix;
  unsigned long lo = 0, hi = 0;
};

std::optional<unsigned long> parse_number(std::string_view s) {
  unsigned long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<name_range> aggregate_of(const std::string& name) {
  const auto dots = name.find("..");
  if (dots == std::string::npos) return std::nullopt;
  std::size_t start = dots;
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  const auto lo = parse_number(std::string_view(name).substr(start, dots - start));
  const auto hi = parse_number(std::string_view(name).substr(dots + 2));
  if (!lo || !hi) return std::nullopt;
  return name_range{name.substr(0, start), *lo, *hi};
}

bool in_range(const std::string& experiment, const name_range& r) {
  if (!experiment.starts_with(r.prefix)) return false;
  const auto n = parse_number(std::string_view(experiment).substr(r.prefix.size()));
  return n && *n >= r.lo && *n <= r.hi;
}

const sim_stack_result* find_stack(const sim_experiment_result& e, const std::string& stack) {
  for (const auto& s : e.stacks) {
    if (s.stack == stack) return &s;
  }
  return nullptr;
}

// Per-run sums over several experiments, keyed by run index: a range's sample for run i is the
// mean of its experiments' run-i samples (only indices every experiment ran).
struct run_average {
  std::map<unsigned, std::pair<double, std::size_t>> by_run;  // sum, experiments

  void add(const sim_experiment_result& e, const sim_stack_result& s) {
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

}  // namespace

claim_outcome evaluate_claim(const sim_preset_result& p, const sim_claim& c) {
  claim_outcome o;
  o.reported_gain = c.gain_percent(c.reported_baseline, c.reported_variant);
  std::vector<const sim_experiment_result*> matched;
  const auto range = aggregate_of(c.experiment);
  for (const auto& e : p.experiments) {
    if (range ? in_range(e.name, *range) : e.name == c.experiment) matched.push_back(&e);
  }
  if (matched.empty()) {
    o.missing = fmt::format("experiment {} was not run", c.experiment);
    return o;
  }
  double base = 0, var = 0;
  run_average base_runs, var_runs;
  for (const auto* e : matched) {
    const auto* b = find_stack(*e, c.baseline);
    const auto* v = find_stack(*e, c.variant);
    if (b == nullptr || v == nullptr) {
      o.missing = fmt::format("stack {} was not run", b == nullptr ? c.baseline : c.variant);
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
  const auto mean = [](const std::vector<double>& xs) { return numaplace::sim::summary::of(xs).mean; };
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
  o.verdict = o.direction_agrees ? fmt::format("direction agrees, magnitude within 2x: {}", o.within_2x ? "yes" : "no")
                                 : "direction differs";
  return o;
}

}  // namespace numaplace_cli
