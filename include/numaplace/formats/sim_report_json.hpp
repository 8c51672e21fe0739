#pragma once
// A sweep's report as JSON, both ways: sim_report_json writes what `numaplace sim --json`
// prints, and merge_sim_reports reads the reports of a sweep's shards back into the one report
// the whole sweep gives (`numaplace sim --merge`). A report carries every input its summaries
// are computed from (runs, groups, the machine, the claims), so a merged report is computed
// exactly as the unsharded run's is (sim/sweep_analysis.hpp). Part of numaplace::formats
// (format_error.hpp).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../sim/result.hpp"
#include "../sim/sweep_analysis.hpp"
#include "../sim/sweep_report.hpp"
#include "../topology/dynamic_topology.hpp"
#include "../topology/error.hpp"
#include "../topology/types.hpp"
#include "format_error.hpp"
#include "json_checker.hpp"
#include "json_stamp.hpp"

namespace numaplace::formats {

/// What a report says it is (json_stamp.hpp).
inline constexpr std::string_view sim_report_format = "numaplace-sim-report";
/// 2: "presets" became "experiments" (as `sim --experiment` names them) and each one's
/// "experiments" its "workloads"; "all_presets" became "all_experiments". Version 1 parts
/// are still read (upgrade_from_v1).
inline constexpr int sim_report_schema_version = 2;

/// Parts that do not merge; the message names the part and the place in it, or says which
/// shard or run no part gives ("--merge: ...").
class sim_report_error : public format_error {
 public:
  using format_error::format_error;
};

/// One part of a sweep as read: its name in messages (a file's path) and its text.
struct report_part {
  std::string source;
  std::string text;
};

namespace sim_report_json_detail {

using json = nlohmann::json;

inline json summary_json(const sim::summary& s) {
  return {{"count", s.count}, {"mean", s.mean},   {"stddev", s.stddev},
          {"min", s.min},     {"max", s.max},     {"harmonic_mean", s.harmonic_mean}};
}

inline json group_json(const sim::group_result& g, const dynamic_topology& t, bool timeline) {
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
         {"task_nodes", sim::task_nodes(g, t)},
         {"memory_in_one_node_group", sim::within_one_node_group(t, g.memory_nodes)}};
  // Where its tasks ended (what task_nodes reads), also without the timeline: sim --merge needs it.
  j["final_tasks"] = g.tasks_over_time.empty() ? json(nullptr)
                                               : json{{"seconds", g.tasks_over_time.back().seconds},
                                                      {"tasks_per_node", g.tasks_over_time.back().tasks_per_node}};
  if (timeline) {
    json points = json::array();
    for (const auto& o : g.tasks_over_time) {
      json point{{"seconds", o.seconds}, {"tasks_per_node", o.tasks_per_node}};
      // None only in what a merge of version 1 parts, written before it was kept, prints.
      if (!o.memory_per_node.empty()) point["memory_per_node"] = o.memory_per_node;
      points.push_back(std::move(point));
    }
    j["tasks_over_time"] = std::move(points);
  }
  return j;
}

inline json node_groups_json(const dynamic_topology& t) {
  json groups = json::array();
  for (const auto& g : sim::node_groups(t)) {
    json ids = json::array();
    for (auto i : g) ids.push_back(t.id_of(i));
    groups.push_back(std::move(ids));
  }
  return groups;
}

// The interval's ends, or nulls when a stack has fewer than 2 runs.
inline void add_interval(json& j, const sim::stack_comparison& c) {
  j["ci95_low_percent"] = c.gain.has_interval ? json(c.gain.low) : json(nullptr);
  j["ci95_high_percent"] = c.gain.has_interval ? json(c.gain.high) : json(nullptr);
  j["runs"] = {{"baseline", c.baseline_runs}, {"variant", c.variant_runs}};
}

// Each later stack against the first: its gain, interval and verdict; for the whole workload
// and, when it runs several programs (sim::programs_of), for each ("program": its label).
inline json comparisons_json(const sim::experiment_runs& e, const std::vector<sim::program>& programs) {
  json out = json::array();
  if (e.stacks.empty()) return out;
  std::vector<const sim::program*> parts{nullptr};
  if (programs.size() > 1) {
    for (const auto& p : programs) parts.push_back(&p);
  }
  for (std::size_t i = 1; i < e.stacks.size(); ++i) {
    for (const sim::program* only : parts) {
      const sim::stack_comparison c = sim::compare_runs(sim::run_samples(e, e.stacks.front(), only),
                                                        sim::run_samples(e, e.stacks[i], only), e.elapsed);
      json j{{"baseline", e.stacks.front().stack}, {"variant", e.stacks[i].stack}, {"gain_percent", c.gain.difference}};
      if (only != nullptr) j["program"] = only->label;
      add_interval(j, c);
      j["verdict"] = sim::comparison_verdict(c);
      out.push_back(std::move(j));
    }
  }
  return out;
}

// The machine in full, so that a report read back (sim --merge) computes what this one did.
inline json machine_json(const dynamic_topology& t) {
  json nodes = json::array(), distances = json::array();
  for (node_index i = 0; i < t.node_count(); ++i) {
    const auto& a = t.node(i);
    nodes.push_back({{"id", a.id}, {"cpus", a.cpus}, {"memory_bytes", a.memory_bytes}, {"has_cpu", a.has_cpu},
                     {"has_memory", a.has_memory}});
    json row = json::array();
    for (node_index j = 0; j < t.node_count(); ++j) row.push_back(t.distance(i, j));
    distances.push_back(std::move(row));
  }
  return {{"nodes", std::move(nodes)}, {"distances", std::move(distances)}};
}

// How the run's memory load settled (sim::settle_stats).
inline json settles_json(const sim::settle_stats& s) {
  return {{"settles", s.settles},
          {"unsettled", s.unsettled},
          {"sweeps", s.sweeps},
          {"most_sweeps", s.most_sweeps},
          {"worst_residual", s.worst_residual}};
}

inline json assumptions_json(const std::vector<sim::scaled_assumption>& scaled) {
  json out = json::array();
  for (const auto& a : scaled) out.push_back({{"name", a.name}, {"factor", a.factor}});
  return out;
}

inline json experiment_json(const sim::experiment_runs& e, bool timeline, bool scaled) {
  const auto programs = sim::programs_of(e);
  json stacks = json::array();
  for (const auto& s : e.stacks) {
    const sim::stack_stats st = sim::stats_of(e, s);
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
      if (const auto& t = s.runs[i].tiering; t.any()) {
        runs.back()["tiering"] = {{"promoted", t.promoted},   {"too_cold", t.too_cold}, {"rate_limited", t.rate_limited},
                                  {"node_full", t.node_full}, {"demoted", t.demoted}};
      }
    }
    stacks.push_back({{"stack", s.stack},
                      {"summary", summary_json(st.metric)},
                      {"local_fraction_mean", st.local_fraction},
                      {"converged_seconds_mean", st.converged_seconds},
                      {"groups_in_one_node_group", st.in_one_node_group},
                      {"groups", st.groups},
                      {"runs", std::move(runs)}});
    // Several programs: each one's figures apart, since the summary above mixes them.
    if (programs.size() > 1) {
      json per_program = json::array();
      for (const auto& p : programs) {
        const sim::stack_stats ps = sim::stats_of(e, s, &p);
        per_program.push_back({{"program", p.label},
                               {"summary", summary_json(ps.metric)},
                               {"local_fraction_mean", ps.local_fraction},
                               {"converged_seconds_mean", ps.converged_seconds},
                               {"groups", ps.groups}});
      }
      stacks.back()["programs"] = std::move(per_program);
    }
  }
  json out{{"name", e.name},
           {"machine", e.machine},
           {"topology", machine_json(e.topology)},
           {"costs", e.costs},
           {"node_groups", node_groups_json(e.topology)},
           {"workload", e.workload},
           {"metric", e.elapsed ? "elapsed_seconds" : "throughput"},
           {"runs", e.runs},
           {"seed", e.seed},
           {"stacks", std::move(stacks)},
           {"comparisons", comparisons_json(e, programs)}};
  // Which of the sweep's scaled assumptions this experiment has (none: it ran the default model).
  if (scaled) out["assumptions"] = assumptions_json(e.assumptions);
  if (!e.binding.empty()) out["binding"] = e.binding;
  if (!e.tiering.empty()) out["tiering"] = e.tiering;
  return out;
}

inline json claim_json(const sim::preset_runs& p, const sim::sweep_claim& c) {
  const sim::claim_outcome o = sim::evaluate_claim(p, c);
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

}  // namespace sim_report_json_detail

/// A sweep's report as `numaplace sim --json` prints it, stamped:
/// {"format", "schema_version", "numaplace_version", "shard": "k/n", "all_experiments",
///  "experiments": [{"name", "title", "workloads": [{..., "stacks": [{"stack", "summary",
///  "runs": [{"run", "seed", "groups": [...]}]}]}], "claims": [...]}], "request", "assumptions"}.
/// Each group's tasks_over_time is included only when `timeline`. merge_sim_reports reads it
/// back to the same report.
inline nlohmann::json sim_report_json(const sim::sweep_report& r, bool timeline) {
  using namespace sim_report_json_detail;
  json experiments = json::array();
  for (const auto& p : r.presets) {
    json workloads = json::array();
    for (const auto& e : p.experiments) workloads.push_back(experiment_json(e, timeline, !r.assumptions.empty()));
    json claims = json::array();
    for (const auto& c : p.claims) claims.push_back(claim_json(p, c));
    experiments.push_back(
        {{"name", p.name}, {"title", p.title}, {"workloads", std::move(workloads)}, {"claims", std::move(claims)}});
  }
  json out = {{"shard", fmt::format("{}/{}", r.shard, r.shards)}, {"all_experiments", r.all_presets},
              {"experiments", std::move(experiments)}};
  if (!r.request.empty()) out["request"] = json::parse(r.request);
  // Only when some are scaled: a default run's report stays as it was, and parts of one merge
  // with parts written before this field existed.
  if (!r.assumptions.empty()) out["assumptions"] = assumptions_json(r.assumptions);
  stamp_json(out, sim_report_format, sim_report_schema_version);
  return out;
}

namespace sim_report_read_detail {

using json = nlohmann::json;

// A part's fields as the reader needs them; any missing or mistyped one names the file.
class part_reader : public json_checker<sim_report_error> {
 public:
  using json_checker::json_checker;

  const json& at(const json& j, const std::string& pointer) const {
    try {
      return j.at(json::json_pointer(pointer));
    } catch (const json::exception&) {
      fail(pointer, "missing; expected numaplace sim --json output");
    }
  }
  template <class T>
  T get(const json& j, const std::string& pointer) const {
    try {
      return at(j, pointer).get<T>();
    } catch (const json::exception&) {
      fail(pointer, "has the wrong type; expected numaplace sim --json output");
    }
  }
};

// What must be equal in every part of one sweep: everything but the shard and the runs.
inline json sweep_of(json doc) {
  doc.erase("shard");
  for (auto& p : doc["experiments"]) {
    for (auto& e : p["workloads"]) {
      for (auto& s : e["stacks"]) s = s["stack"];
      e.erase("comparisons");
    }
    for (auto& c : p["claims"]) c = json{{"experiment", c["experiment"]}, {"baseline", c["baseline"]},
                                         {"variant", c["variant"]}, {"metric", c["metric"]},
                                         {"note", c["note"]}, {"reported", c["reported"]}};
  }
  return doc;
}

// The first place two sweeps differ, as a JSON pointer.
inline std::string first_difference(const json& a, const json& b) {
  const json patch = json::diff(a, b);
  return patch.empty() ? "" : patch.front().value("path", "/");
}

inline dynamic_topology topology_of(const part_reader& r, const json& e, const std::string& at) {
  const auto& nodes = r.at(e, at + "/nodes");
  std::vector<node_attributes> attributes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string n = fmt::format("{}/nodes/{}", at, i);
    attributes.push_back({r.get<node_id>(e, n + "/id"), r.get<std::vector<unsigned>>(e, n + "/cpus"),
                          r.get<std::uint64_t>(e, n + "/memory_bytes"), r.get<bool>(e, n + "/has_cpu"),
                          r.get<bool>(e, n + "/has_memory")});
  }
  try {
    return dynamic_topology(r.get<std::vector<std::vector<long long>>>(e, at + "/distances"), attributes);
  } catch (const std::exception& bad) {
    r.fail(at, bad.what());
  }
}

// A figure a simulation can print: finite and at least `low` (and at most `high`).
inline double figure(const part_reader& r, const json& doc, const std::string& at, double low = 0,
              double high = std::numeric_limits<double>::infinity()) {
  const double v = r.get<double>(doc, at);
  if (!std::isfinite(v) || v < low || v > high) {
    r.fail(at, std::isinf(high) ? fmt::format("{} is not a figure a simulation gives (expected a finite number >= {})", v, low)
                                : fmt::format("{} is not a figure a simulation gives (expected {} to {})", v, low, high));
  }
  return v;
}

// A per-node list, which must have one entry per node of the experiment's machine.
template <class T>
inline std::vector<T> per_node(const part_reader& r, const json& doc, const std::string& at, std::size_t nodes) {
  auto v = r.get<std::vector<T>>(doc, at);
  if (v.size() != nodes) r.fail(at, fmt::format("has {} entries for a machine of {} nodes", v.size(), nodes));
  return v;
}

inline sim::group_result group_of(const part_reader& r, const json& doc, const std::string& at,
                                      const dynamic_topology& topology) {
  const std::size_t nodes = topology.node_count();
  sim::group_result g;
  g.name = r.get<std::string>(doc, at + "/name");
  g.throughput = figure(r, doc, at + "/throughput");
  g.elapsed_seconds = figure(r, doc, at + "/elapsed_seconds");
  g.local_fraction = figure(r, doc, at + "/local_fraction", 0, 1);
  g.task_migrations = r.get<std::uint64_t>(doc, at + "/task_migrations");
  g.page_migrations = r.get<std::uint64_t>(doc, at + "/page_migrations");
  g.balancer_seconds = figure(r, doc, at + "/balancer_seconds");
  g.converged_seconds = figure(r, doc, at + "/converged_seconds");
  g.memory_nodes = r.get<std::vector<node_id>>(doc, at + "/memory_nodes");
  for (const node_id id : g.memory_nodes) {
    if (!topology.index_of(id)) r.fail(at + "/memory_nodes", fmt::format("names node {}, which the machine does not have", id));
  }
  g.memory_per_node = per_node<std::uint64_t>(r, doc, at + "/memory_per_node", nodes);
  if (const auto& j = r.at(doc, at); j.contains("tasks_over_time")) {
    for (std::size_t i = 0; i < j["tasks_over_time"].size(); ++i) {
      const std::string o = fmt::format("{}/tasks_over_time/{}", at, i);
      // Memory over time came with schema version 2: a version 1 point has none, nor what a
      // merge of version 1 parts prints.
      const bool has_memory = r.at(doc, o).contains("memory_per_node");
      g.tasks_over_time.push_back({figure(r, doc, o + "/seconds"), per_node<std::uint32_t>(r, doc, o + "/tasks_per_node", nodes),
                                   has_memory ? per_node<std::uint64_t>(r, doc, o + "/memory_per_node", nodes)
                                              : std::vector<std::uint64_t>{}});
    }
  } else if (!r.at(doc, at + "/final_tasks").is_null()) {  // parts written without --timeline
    g.tasks_over_time.push_back({figure(r, doc, at + "/final_tasks/seconds"),
                                 per_node<std::uint32_t>(r, doc, at + "/final_tasks/tasks_per_node", nodes),
                                 g.memory_per_node});
  }
  return g;
}

// The scaled assumptions at `at`; none when it is absent (a default run's report).
inline std::vector<sim::scaled_assumption> assumptions_of(const part_reader& r, const json& doc, const std::string& at) {
  std::vector<sim::scaled_assumption> out;
  if (!doc.contains(json::json_pointer(at))) return out;
  if (!r.at(doc, at).is_array()) r.fail(at, "has the wrong type; expected numaplace sim --json output");
  for (std::size_t i = 0; i < r.at(doc, at).size(); ++i) {
    const std::string a = fmt::format("{}/{}", at, i);
    out.push_back({r.get<std::string>(doc, a + "/name"), r.get<double>(doc, a + "/factor")});
  }
  return out;
}

// A version 1 part in version 2's names, so that parts written before the rename still merge.
inline void upgrade_from_v1(json& doc) {
  if (doc.value("schema_version", 2) != 1) return;
  const auto rename = [](json& j, const char* from, const char* to) {
    if (j.is_object() && j.contains(from) && !j.contains(to)) {
      j[to] = std::move(j[from]);
      j.erase(from);
    }
  };
  rename(doc, "all_presets", "all_experiments");
  rename(doc, "presets", "experiments");
  if (doc.contains("experiments") && doc["experiments"].is_array()) {
    for (auto& x : doc["experiments"]) rename(x, "experiments", "workloads");
  }
}

// The report without runs (they are added part by part).
inline sim::sweep_report skeleton_of(const part_reader& r, const json& doc) {
  sim::sweep_report report;
  report.all_presets = r.get<bool>(doc, "/all_experiments");
  report.assumptions = assumptions_of(r, doc, "/assumptions");
  if (const auto request = doc.find("request"); request != doc.end()) {
    if (!request->is_object()) r.fail("/request", "has the wrong type; expected numaplace sim --json output");
    report.request = request->dump();
  }
  for (std::size_t p = 0; p < r.at(doc, "/experiments").size(); ++p) {
    const std::string pp = fmt::format("/experiments/{}", p);
    sim::preset_runs pr{r.get<std::string>(doc, pp + "/name"), r.get<std::string>(doc, pp + "/title"), {}, {}};
    for (std::size_t x = 0; x < r.at(doc, pp + "/workloads").size(); ++x) {
      const std::string ep = fmt::format("{}/workloads/{}", pp, x);
      sim::experiment_runs er{r.get<std::string>(doc, ep + "/name"),
                               r.get<std::string>(doc, ep + "/machine"),
                               r.get<std::string>(doc, ep + "/workload"),
                               topology_of(r, doc, ep + "/topology"),
                               r.get<std::string>(doc, ep + "/metric") == "elapsed_seconds",
                               r.get<unsigned>(doc, ep + "/runs"),
                               r.get<std::uint64_t>(doc, ep + "/seed"),
                               {},
                               r.get<std::string>(doc, ep + "/costs"),
                               assumptions_of(r, doc, ep + "/assumptions")};
      if (r.at(doc, ep).contains("binding")) er.binding = r.get<std::string>(doc, ep + "/binding");
      if (r.at(doc, ep).contains("tiering")) er.tiering = r.get<std::string>(doc, ep + "/tiering");
      for (std::size_t s = 0; s < r.at(doc, ep + "/stacks").size(); ++s) {
        er.stacks.push_back({r.get<std::string>(doc, fmt::format("{}/stacks/{}/stack", ep, s)), {}, {}, {}});
      }
      pr.experiments.push_back(std::move(er));
    }
    for (std::size_t c = 0; c < r.at(doc, pp + "/claims").size(); ++c) {
      const std::string cp = fmt::format("{}/claims/{}", pp, c);
      const json& reported = r.at(doc, cp + "/reported");
      sim::sweep_claim sc{r.get<std::string>(doc, cp + "/experiment"),
                   r.get<std::string>(doc, cp + "/baseline"),
                   r.get<std::string>(doc, cp + "/variant"),
                   r.get<std::string>(doc, cp + "/metric") == "elapsed_seconds",
                   r.get<double>(doc, cp + "/reported/baseline"),
                   r.get<double>(doc, cp + "/reported/variant"),
                   r.get<std::string>(doc, cp + "/note"),
                   std::nullopt,
                   std::nullopt};
      if (reported.contains("baseline_stddev")) sc.reported_baseline_stddev = r.get<double>(doc, cp + "/reported/baseline_stddev");
      if (reported.contains("variant_stddev")) sc.reported_variant_stddev = r.get<double>(doc, cp + "/reported/variant_stddev");
      pr.claims.push_back(std::move(sc));
    }
    report.presets.push_back(std::move(pr));
  }
  return report;
}

// Adds the runs of part k of n. Each must be one of that shard's (index % n == k), of the
// sweep's run count, with the seed its index gives, and not one an earlier part gave
// (`run_file` remembers whose each run is); its figures must be ones a simulation prints.
inline void add_runs(const part_reader& r, const json& doc, std::pair<unsigned, unsigned> shard, sim::sweep_report& report,
              std::map<std::string, std::string>& run_file) {
  const auto [k, n] = shard;
  for (std::size_t p = 0; p < report.presets.size(); ++p) {
    for (std::size_t x = 0; x < report.presets[p].experiments.size(); ++x) {
      auto& e = report.presets[p].experiments[x];
      for (std::size_t s = 0; s < e.stacks.size(); ++s) {
        const std::string sp = fmt::format("/experiments/{}/workloads/{}/stacks/{}/runs", p, x, s);
        for (std::size_t i = 0; i < r.at(doc, sp).size(); ++i) {
          const std::string rp = fmt::format("{}/{}", sp, i);
          const auto index = r.get<unsigned>(doc, rp + "/run");
          if (index >= e.runs) r.fail(rp + "/run", fmt::format("is {}, but the sweep has {} runs per stack", index, e.runs));
          if (index % n != k) r.fail(rp + "/run", fmt::format("run {} belongs to shard {}/{}, not this part's {}/{}", index, index % n, n, k, n));
          const auto seed = r.get<std::uint64_t>(doc, rp + "/seed");
          if (seed != e.seed + index) r.fail(rp + "/seed", fmt::format("is {}, but run {} of a sweep seeded {} uses {}", seed, index, e.seed, e.seed + index));
          const std::string key = fmt::format("{}/{}", sp, index);
          if (const auto [it, fresh] = run_file.emplace(key, r.source()); !fresh) {
            r.fail(rp + "/run", fmt::format("run {} of stack {} again ({} gave it already)", index, e.stacks[s].stack, it->second));
          }
          sim::run_result run;
          run.simulated_seconds = figure(r, doc, rp + "/simulated_seconds");
          run.ticks = r.get<std::uint64_t>(doc, rp + "/ticks");
          run.events = r.get<std::uint64_t>(doc, rp + "/events");
          run.settles.settles = r.get<std::uint64_t>(doc, rp + "/settles/settles");
          run.settles.unsettled = r.get<std::uint64_t>(doc, rp + "/settles/unsettled");
          if (run.settles.unsettled > run.settles.settles) {
            r.fail(rp + "/settles/unsettled", fmt::format("{} of {} settles: more than there were", run.settles.unsettled, run.settles.settles));
          }
          run.settles.sweeps = r.get<std::uint64_t>(doc, rp + "/settles/sweeps");
          run.settles.most_sweeps = r.get<int>(doc, rp + "/settles/most_sweeps");
          if (run.settles.most_sweeps < 0) r.fail(rp + "/settles/most_sweeps", fmt::format("{} is negative", run.settles.most_sweeps));
          run.settles.worst_residual = figure(r, doc, rp + "/settles/worst_residual");
          // Reports from before node memory limits have none: nothing was full.
          if (r.at(doc, rp).contains("full_nodes")) {
            run.full_nodes.fell_back = r.get<std::uint64_t>(doc, rp + "/full_nodes/fell_back");
            run.full_nodes.migrations_refused = r.get<std::uint64_t>(doc, rp + "/full_nodes/migrations_refused");
          }
          // Runs without memory tiering, or in which it did nothing, have none.
          if (r.at(doc, rp).contains("tiering")) {
            run.tiering.promoted = r.get<std::uint64_t>(doc, rp + "/tiering/promoted");
            run.tiering.too_cold = r.get<std::uint64_t>(doc, rp + "/tiering/too_cold");
            run.tiering.rate_limited = r.get<std::uint64_t>(doc, rp + "/tiering/rate_limited");
            run.tiering.node_full = r.get<std::uint64_t>(doc, rp + "/tiering/node_full");
            run.tiering.demoted = r.get<std::uint64_t>(doc, rp + "/tiering/demoted");
          }
          for (std::size_t g = 0; g < r.at(doc, rp + "/groups").size(); ++g) {
            run.groups.push_back(group_of(r, doc, fmt::format("{}/groups/{}", rp, g), e.topology));
          }
          e.stacks[s].run_index.push_back(index);
          e.stacks[s].run_seed.push_back(seed);
          e.stacks[s].runs.push_back(std::move(run));
        }
      }
    }
  }
}

// Each stack's runs in run order, as an unsharded sweep lists them.
inline void sort_runs(sim::stack_runs& s) {
  std::vector<std::size_t> order(s.runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.run_index[a] < s.run_index[b]; });
  sim::stack_runs sorted{s.stack, {}, {}, {}};
  for (auto i : order) {
    sorted.run_index.push_back(s.run_index[i]);
    sorted.run_seed.push_back(s.run_seed[i]);
    sorted.runs.push_back(std::move(s.runs[i]));
  }
  s = std::move(sorted);
}

inline std::vector<std::string> sources_of(const std::vector<report_part>& parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(p.source);
  return out;
}

inline std::pair<unsigned, unsigned> shard_of(const part_reader& r, const json& doc) {
  const auto text = r.get<std::string>(doc, "/shard");
  unsigned k = 0, n = 0;
  const auto slash = text.find('/');
  const char* end = text.data() + text.size();
  if (slash == std::string::npos || std::from_chars(text.data(), text.data() + slash, k).ptr != text.data() + slash ||
      std::from_chars(text.data() + slash + 1, end, n).ptr != end || n == 0 || k >= n) {
    r.fail("/shard", fmt::format("'{}' is not k/n with k < n", text));
  }
  return {k, n};
}

}  // namespace sim_report_read_detail

/// The reports of the shards of one sweep (`numaplace sim --shard k/n --json` for every k),
/// joined into the report the whole sweep gives (what `numaplace sim --merge` prints). Refuses,
/// naming the part and the place in it: parts of different sweeps; shards missing or given
/// twice; a run outside its part's shard or the sweep's run count, with another seed than its
/// index gives, given twice or given by no part; a figure no simulation prints (negative, not
/// finite, a local fraction above 1, a per-node list of another length than the machine's
/// nodes). Throws sim_report_error.
inline sim::sweep_report merge_sim_reports(const std::vector<report_part>& parts) {
  using namespace sim_report_read_detail;
  if (parts.empty()) throw sim_report_error("--merge needs the --json reports of a sweep's shards");
  sim::sweep_report merged;
  json sweep;
  std::string first;
  std::map<unsigned, std::string> shards;  // k -> file
  std::map<std::string, std::string> run_file;  // a run's place in the sweep -> file
  unsigned shard_count = 0;
  for (const auto& [path, text] : parts) {
    const part_reader r(path);
    json doc;
    try {
      if (const auto deep = too_deep_at(text)) r.fail_at(text, *deep, too_deep_message());
      doc = json::parse(text);
    } catch (const json::exception& e) {
      r.fail("", fmt::format("not JSON ({}); expected numaplace sim --json output", e.what()));
    }
    if (!doc.is_object() || !doc.contains("format")) r.fail("", "has no format; expected numaplace sim --json output");
    check_stamp(doc, sim_report_format, sim_report_schema_version, [&](std::string_view at, const std::string& what) { r.fail(at, what); });
    upgrade_from_v1(doc);
    const auto [k, n] = shard_of(r, doc);
    // Read through the part's reader first: it checks every field sweep_of() indexes, which
    // would otherwise meet a number where an object belongs with nlohmann's own exception.
    sim::sweep_report skeleton = skeleton_of(r, doc);
    if (shards.empty()) {
      shard_count = n;
      sweep = sweep_of(doc);
      first = path;
      merged = std::move(skeleton);
    } else {
      if (n != shard_count) r.fail("/shard", fmt::format("is {}/{}, but {} is one of {} shards", k, n, first, shard_count));
      if (const auto at = first_difference(sweep, sweep_of(doc)); !at.empty()) {
        r.fail(at, fmt::format("differs from {}: a part of another sweep", first));
      }
    }
    if (const auto [it, fresh] = shards.emplace(k, path); !fresh) {
      r.fail("/shard", fmt::format("{}/{} again: {} is that shard too", k, n, it->second));
    }
    add_runs(r, doc, {k, n}, merged, run_file);
  }
  for (unsigned k = 0; k < shard_count; ++k) {
    if (!shards.contains(k)) throw sim_report_error(fmt::format("--merge: shard {}/{} is missing (given: {})", k, shard_count, fmt::join(sources_of(parts), ", ")));
  }
  // Every shard was given once, each run at most once: a run missing now was left out of its part.
  for (auto& p : merged.presets) {
    for (auto& e : p.experiments) {
      for (auto& s : e.stacks) {
        sort_runs(s);
        for (unsigned i = 0; i < e.runs; ++i) {
          if (i >= s.run_index.size() || s.run_index[i] != i) {
            throw sim_report_error(fmt::format("--merge: run {} of stack {} in experiment {} is in no part (its shard, {}/{}, is {})", i,
                                               s.stack, e.name, i % shard_count, shard_count, shards.at(i % shard_count)));
          }
        }
      }
    }
  }
  return merged;
}

}  // namespace numaplace::formats
