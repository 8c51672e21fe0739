// `numaplace sim --merge`: the --json reports of a sweep's shards read back into one sim_report.
// A report carries every input its summaries are computed from (runs, groups, the topology, the
// claims), so the merged report is computed exactly as the unsharded run's is.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "json_checker.hpp"
#include "read_input.hpp"
#include "json_stamp.hpp"
#include "sim_report_json.hpp"

namespace numaplace_cli {

namespace {

using json = nlohmann::json;

// A part's fields as the reader needs them; any missing or mistyped one names the file.
class part_reader : public json_checker<bad_input_error> {
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
json sweep_of(json doc) {
  doc.erase("shard");
  for (auto& p : doc["presets"]) {
    for (auto& e : p["experiments"]) {
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
std::string first_difference(const json& a, const json& b) {
  const json patch = json::diff(a, b);
  return patch.empty() ? "" : patch.front().value("path", "/");
}

numaplace::dynamic_topology topology_of(const part_reader& r, const json& e, const std::string& at) {
  const auto& nodes = r.at(e, at + "/nodes");
  std::vector<numaplace::node_attributes> attributes;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string n = fmt::format("{}/nodes/{}", at, i);
    attributes.push_back({r.get<numaplace::node_id>(e, n + "/id"), r.get<std::vector<unsigned>>(e, n + "/cpus"),
                          r.get<std::uint64_t>(e, n + "/memory_bytes"), r.get<bool>(e, n + "/has_cpu"),
                          r.get<bool>(e, n + "/has_memory")});
  }
  try {
    return numaplace::dynamic_topology(r.get<std::vector<std::vector<long long>>>(e, at + "/distances"), attributes);
  } catch (const std::exception& bad) {
    r.fail(at, bad.what());
  }
}

// A figure a simulation can print: finite and at least `low` (and at most `high`).
double figure(const part_reader& r, const json& doc, const std::string& at, double low = 0,
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
std::vector<T> per_node(const part_reader& r, const json& doc, const std::string& at, std::size_t nodes) {
  auto v = r.get<std::vector<T>>(doc, at);
  if (v.size() != nodes) r.fail(at, fmt::format("has {} entries for a machine of {} nodes", v.size(), nodes));
  return v;
}

numaplace::sim::group_result group_of(const part_reader& r, const json& doc, const std::string& at,
                                      const numaplace::dynamic_topology& topology) {
  const std::size_t nodes = topology.node_count();
  numaplace::sim::group_result g;
  g.name = r.get<std::string>(doc, at + "/name");
  g.throughput = figure(r, doc, at + "/throughput");
  g.elapsed_seconds = figure(r, doc, at + "/elapsed_seconds");
  g.local_fraction = figure(r, doc, at + "/local_fraction", 0, 1);
  g.task_migrations = r.get<std::uint64_t>(doc, at + "/task_migrations");
  g.page_migrations = r.get<std::uint64_t>(doc, at + "/page_migrations");
  g.balancer_seconds = figure(r, doc, at + "/balancer_seconds");
  g.converged_seconds = figure(r, doc, at + "/converged_seconds");
  g.memory_nodes = r.get<std::vector<numaplace::node_id>>(doc, at + "/memory_nodes");
  for (const numaplace::node_id id : g.memory_nodes) {
    if (!topology.index_of(id)) r.fail(at + "/memory_nodes", fmt::format("names node {}, which the machine does not have", id));
  }
  g.memory_per_node = per_node<std::uint64_t>(r, doc, at + "/memory_per_node", nodes);
  if (const auto& j = r.at(doc, at); j.contains("tasks_over_time")) {
    for (std::size_t i = 0; i < j["tasks_over_time"].size(); ++i) {
      const std::string o = fmt::format("{}/tasks_over_time/{}", at, i);
      g.tasks_over_time.push_back({figure(r, doc, o + "/seconds"), per_node<std::uint32_t>(r, doc, o + "/tasks_per_node", nodes)});
    }
  } else if (!r.at(doc, at + "/final_tasks").is_null()) {  // parts written without --timeline
    g.tasks_over_time.push_back({figure(r, doc, at + "/final_tasks/seconds"),
                                 per_node<std::uint32_t>(r, doc, at + "/final_tasks/tasks_per_node", nodes)});
  }
  return g;
}

// The scaled assumptions at `at`; none when it is absent (a default run's report).
std::vector<sim_assumption> assumptions_of(const part_reader& r, const json& doc, const std::string& at) {
  std::vector<sim_assumption> out;
  if (!doc.contains(json::json_pointer(at))) return out;
  if (!r.at(doc, at).is_array()) r.fail(at, "has the wrong type; expected numaplace sim --json output");
  for (std::size_t i = 0; i < r.at(doc, at).size(); ++i) {
    const std::string a = fmt::format("{}/{}", at, i);
    out.push_back({r.get<std::string>(doc, a + "/name"), r.get<double>(doc, a + "/factor")});
  }
  return out;
}

// The report without runs (they are added part by part).
sim_report skeleton_of(const part_reader& r, const json& doc) {
  sim_report report;
  report.all_presets = r.get<bool>(doc, "/all_presets");
  report.assumptions = assumptions_of(r, doc, "/assumptions");
  if (const auto request = doc.find("request"); request != doc.end()) {
    if (!request->is_object()) r.fail("/request", "has the wrong type; expected numaplace sim --json output");
    report.request = request->dump();
  }
  for (std::size_t p = 0; p < r.at(doc, "/presets").size(); ++p) {
    const std::string pp = fmt::format("/presets/{}", p);
    sim_preset_result pr{r.get<std::string>(doc, pp + "/name"), r.get<std::string>(doc, pp + "/title"), {}, {}};
    for (std::size_t x = 0; x < r.at(doc, pp + "/experiments").size(); ++x) {
      const std::string ep = fmt::format("{}/experiments/{}", pp, x);
      sim_experiment_result er{r.get<std::string>(doc, ep + "/name"),
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
      for (std::size_t s = 0; s < r.at(doc, ep + "/stacks").size(); ++s) {
        er.stacks.push_back({r.get<std::string>(doc, fmt::format("{}/stacks/{}/stack", ep, s)), {}, {}, {}});
      }
      pr.experiments.push_back(std::move(er));
    }
    for (std::size_t c = 0; c < r.at(doc, pp + "/claims").size(); ++c) {
      const std::string cp = fmt::format("{}/claims/{}", pp, c);
      const json& reported = r.at(doc, cp + "/reported");
      sim_claim sc{r.get<std::string>(doc, cp + "/experiment"),
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
void add_runs(const part_reader& r, const json& doc, std::pair<unsigned, unsigned> shard, sim_report& report,
              std::map<std::string, std::string>& run_file) {
  const auto [k, n] = shard;
  for (std::size_t p = 0; p < report.presets.size(); ++p) {
    for (std::size_t x = 0; x < report.presets[p].experiments.size(); ++x) {
      auto& e = report.presets[p].experiments[x];
      for (std::size_t s = 0; s < e.stacks.size(); ++s) {
        const std::string sp = fmt::format("/presets/{}/experiments/{}/stacks/{}/runs", p, x, s);
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
          numaplace::sim::run_result run;
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
void sort_runs(sim_stack_result& s) {
  std::vector<std::size_t> order(s.runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.run_index[a] < s.run_index[b]; });
  sim_stack_result sorted{s.stack, {}, {}, {}};
  for (auto i : order) {
    sorted.run_index.push_back(s.run_index[i]);
    sorted.run_seed.push_back(s.run_seed[i]);
    sorted.runs.push_back(std::move(s.runs[i]));
  }
  s = std::move(sorted);
}

std::vector<std::string> sources_of(const std::vector<report_part>& parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(p.source);
  return out;
}

std::pair<unsigned, unsigned> shard_of(const part_reader& r, const json& doc) {
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

}  // namespace

sim_report merge_sim_report_files(const std::vector<std::string>& paths) {
  std::vector<report_part> parts;
  for (const auto& path : paths) parts.push_back({path, read_input(path, "a numaplace sim --json report", max_report_bytes)});
  return merge_sim_reports(parts);
}

sim_report merge_sim_reports(const std::vector<report_part>& parts) {
  if (parts.empty()) throw usage_error("--merge needs the --json reports of a sweep's shards");
  sim_report merged;
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
    const auto [k, n] = shard_of(r, doc);
    // Read through the part's reader first: it checks every field sweep_of() indexes, which
    // would otherwise meet a number where an object belongs with nlohmann's own exception.
    sim_report skeleton = skeleton_of(r, doc);
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
    if (!shards.contains(k)) throw bad_input_error(fmt::format("--merge: shard {}/{} is missing (given: {})", k, shard_count, fmt::join(sources_of(parts), ", ")));
  }
  // Every shard was given once, each run at most once: a run missing now was left out of its part.
  for (auto& p : merged.presets) {
    for (auto& e : p.experiments) {
      for (auto& s : e.stacks) {
        sort_runs(s);
        for (unsigned i = 0; i < e.runs; ++i) {
          if (i >= s.run_index.size() || s.run_index[i] != i) {
            throw bad_input_error(fmt::format("--merge: run {} of stack {} in experiment {} is in no part (its shard, {}/{}, is {})", i,
                                              s.stack, e.name, i % shard_count, shard_count, shards.at(i % shard_count)));
          }
        }
      }
    }
  }
  return merged;
}

}  // namespace numaplace_cli
