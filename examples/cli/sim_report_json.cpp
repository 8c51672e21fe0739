#include "sim_report_json.hpp"

#include <fmt/format.h>

#include <string>

namespace numaplace_cli {

using nlohmann::json;

namespace {

json summary_json(const numaplace::sim::summary& s) {
  return {{"count", s.count}, {"mean", s.mean},   {"stddev", s.stddev},
          {"min", s.min},     {"max", s.max},     {"harmonic_mean", s.harmonic_mean}};
}

json group_json(const numaplace::sim::group_result& g, const numaplace::dynamic_topology& t, bool timeline) {
  json j{{"name", g.name},
         {"throughput", g.throughput},
         {"elapsed_seconds", g.elapsed_seconds},
         {"local_fraction", g.local_fraction},
         {"task_migrations", g.task_migrations},
         {"page_migrations", g.page_migrations},
         {"balancer_seconds", g.balancer_seconds},
         {"converged_seconds", g.converged_seconds},
         {"memory_nodes", g.memory_nodes},
         {"memory_per_node", g.memory_per_node},
         {"task_nodes", task_nodes(g, t)},
         {"memory_in_one_node_group", within_one_node_group(t, g.memory_nodes)}};
  // Where its tasks ended (what task_nodes reads), also without the timeline: sim --merge needs it.
  j["final_tasks"] = g.tasks_over_time.empty() ? json(nullptr)
                                               : json{{"seconds", g.tasks_over_time.back().seconds},
                                                      {"tasks_per_node", g.tasks_over_time.back().tasks_per_node}};
  if (timeline) {
    json points = json::array();
    for (const auto& o : g.tasks_over_time) points.push_back({{"seconds", o.seconds}, {"tasks_per_node", o.tasks_per_node}});
    j["tasks_over_time"] = std::move(points);
  }
  return j;
}

json node_groups_json(const numaplace::dynamic_topology& t) {
  json groups = json::array();
  for (const auto& g : node_groups(t)) {
    json ids = json::array();
    for (auto i : g) ids.push_back(t.id_of(i));
    groups.push_back(std::move(ids));
  }
  return groups;
}

// The interval's ends, or nulls when a stack has fewer than 2 runs.
void add_interval(json& j, const stack_comparison& c) {
  j["ci95_low_percent"] = c.gain.has_interval ? json(c.gain.low) : json(nullptr);
  j["ci95_high_percent"] = c.gain.has_interval ? json(c.gain.high) : json(nullptr);
  j["runs"] = {{"baseline", c.baseline_runs}, {"variant", c.variant_runs}};
}

// Each later stack against the first: its gain, interval and verdict.
json comparisons_json(const sim_experiment_result& e) {
  json out = json::array();
  if (e.stacks.empty()) return out;
  const auto first = run_samples(e, e.stacks.front());
  for (std::size_t i = 1; i < e.stacks.size(); ++i) {
    const stack_comparison c = compare_runs(first, run_samples(e, e.stacks[i]), e.elapsed);
    json j{{"baseline", e.stacks.front().stack}, {"variant", e.stacks[i].stack}, {"gain_percent", c.gain.difference}};
    add_interval(j, c);
    j["verdict"] = comparison_verdict(c);
    out.push_back(std::move(j));
  }
  return out;
}

// The machine in full, so that a report read back (sim --merge) computes what this one did.
json topology_json(const numaplace::dynamic_topology& t) {
  json nodes = json::array(), distances = json::array();
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    const auto& a = t.node(i);
    nodes.push_back({{"id", a.id}, {"cpus", a.cpus}, {"memory_bytes", a.memory_bytes}, {"has_cpu", a.has_cpu},
                     {"has_memory", a.has_memory}});
    json row = json::array();
    for (numaplace::node_index j = 0; j < t.node_count(); ++j) row.push_back(t.distance(i, j));
    distances.push_back(std::move(row));
  }
  return {{"nodes", std::move(nodes)}, {"distances", std::move(distances)}};
}

// How the run's memory load settled (numaplace::sim::settle_stats).
json settles_json(const numaplace::sim::settle_stats& s) {
  return {{"settles", s.settles},
          {"unsettled", s.unsettled},
          {"sweeps", s.sweeps},
          {"most_sweeps", s.most_sweeps},
          {"worst_residual", s.worst_residual}};
}

json assumptions_json(const std::vector<sim_assumption>& scaled) {
  json out = json::array();
  for (const auto& a : scaled) out.push_back({{"name", a.name}, {"factor", a.factor}});
  return out;
}

json experiment_json(const sim_experiment_result& e, bool timeline, bool scaled) {
  json stacks = json::array();
  for (const auto& s : e.stacks) {
    const stack_stats st = stats_of(e, s);
    json runs = json::array();
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      json groups = json::array();
      for (const auto& g : s.runs[i].groups) groups.push_back(group_json(g, e.topology, timeline));
      runs.push_back({{"run", s.run_index[i]},
                      {"seed", s.run_seed[i]},
                      {"simulated_seconds", s.runs[i].simulated_seconds},
                      {"ticks", s.runs[i].ticks},
                      {"events", s.runs[i].events},
                      {"settles", settles_json(s.runs[i].settles)},
                      {"full_nodes",
                       {{"fell_back", s.runs[i].full_nodes.fell_back},
                        {"migrations_refused", s.runs[i].full_nodes.migrations_refused}}},
                      {"groups", std::move(groups)}});
    }
    stacks.push_back({{"stack", s.stack},
                      {"summary", summary_json(st.metric)},
                      {"local_fraction_mean", st.local_fraction},
                      {"converged_seconds_mean", st.converged_seconds},
                      {"groups_in_one_node_group", st.in_one_node_group},
                      {"groups", st.groups},
                      {"runs", std::move(runs)}});
  }
  json out{{"name", e.name},
           {"machine", e.machine},
           {"topology", topology_json(e.topology)},
           {"costs", e.costs},
           {"node_groups", node_groups_json(e.topology)},
           {"workload", e.workload},
           {"metric", e.elapsed ? "elapsed_seconds" : "throughput"},
           {"runs", e.runs},
           {"seed", e.seed},
           {"stacks", std::move(stacks)},
           {"comparisons", comparisons_json(e)}};
  // Which of the sweep's scaled assumptions this experiment has (none: it ran the default model).
  if (scaled) out["assumptions"] = assumptions_json(e.assumptions);
  if (!e.binding.empty()) out["binding"] = e.binding;
  return out;
}

json claim_json(const sim_preset_result& p, const sim_claim& c) {
  const claim_outcome o = evaluate_claim(p, c);
  json j{{"experiment", c.experiment},
         {"baseline", c.baseline},
         {"variant", c.variant},
         {"metric", c.elapsed ? "elapsed_seconds" : "throughput"},
         {"note", c.note},
         {"reported", {{"baseline", c.reported_baseline}, {"variant", c.reported_variant}, {"gain_percent", o.reported_gain}}}};
  if (c.reported_baseline_stddev) j["reported"]["baseline_stddev"] = *c.reported_baseline_stddev;
  if (c.reported_variant_stddev) j["reported"]["variant_stddev"] = *c.reported_variant_stddev;
  if (o.simulated) {
    j["simulated"] = {{"baseline", o.baseline}, {"variant", o.variant}, {"gain_percent", o.simulated_gain}};
    if (o.baseline_stddev) j["simulated"]["baseline_stddev"] = *o.baseline_stddev;
    if (o.variant_stddev) j["simulated"]["variant_stddev"] = *o.variant_stddev;
    add_interval(j["simulated"], o.comparison);
    j["verdict"] = o.verdict;
    j["direction_agrees"] = o.direction_agrees;
    j["within_2x"] = o.within_2x;
  } else {
    j["simulated"] = nullptr;
    j["missing"] = o.missing;
  }
  return j;
}

// RFC 4180: quote a field holding a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_nodes(const std::vector<numaplace::node_id>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out;
}

}  // namespace

json sim_json(const sim_report& r, bool timeline) {
  json presets = json::array();
  for (const auto& p : r.presets) {
    json experiments = json::array();
    for (const auto& e : p.experiments) experiments.push_back(experiment_json(e, timeline, !r.assumptions.empty()));
    json claims = json::array();
    for (const auto& c : p.claims) claims.push_back(claim_json(p, c));
    presets.push_back(
        {{"name", p.name}, {"title", p.title}, {"experiments", std::move(experiments)}, {"claims", std::move(claims)}});
  }
  json out = {{"shard", fmt::format("{}/{}", r.shard, r.shards)}, {"all_presets", r.all_presets}, {"presets", std::move(presets)}};
  if (!r.request.empty()) out["request"] = json::parse(r.request);
  // Only when some are scaled: a default run's report stays as it was, and parts of one merge
  // with parts written before this field existed.
  if (!r.assumptions.empty()) out["assumptions"] = assumptions_json(r.assumptions);
  return out;
}

void print_sim_csv(const sim_report& r) {
  fmt::print(
      "preset,experiment,stack,run,seed,group,throughput,elapsed_seconds,local_fraction,task_migrations,"
      "page_migrations,balancer_seconds,converged_seconds,memory_nodes,task_nodes,memory_in_one_node_group\n");
  for (const auto& p : r.presets) {
    for (const auto& e : p.experiments) {
      for (const auto& s : e.stacks) {
        for (std::size_t i = 0; i < s.runs.size(); ++i) {
          for (const auto& g : s.runs[i].groups) {
            fmt::print("{},{},{},{},{},{},{:.2f},{:.3f},{:.4f},{},{},{:.3f},{:.1f},{},{},{}\n", csv_field(p.name),
                       csv_field(e.name), csv_field(s.stack), s.run_index[i], s.run_seed[i], csv_field(g.name),
                       g.throughput, g.elapsed_seconds, g.local_fraction, g.task_migrations, g.page_migrations,
                       g.balancer_seconds, g.converged_seconds, csv_nodes(g.memory_nodes), csv_nodes(task_nodes(g, e.topology)),
                       within_one_node_group(e.topology, g.memory_nodes) ? 1 : 0);
          }
        }
      }
    }
  }
}

}  // namespace numaplace_cli
