// `numaplace sim --merge`: the --json reports of a sweep's shards read back into one sim_report.
// A report carries every input its summaries are computed from (runs, groups, the topology, the
// claims), so the merged report is computed exactly as the unsharded run's is.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include "json_checker.hpp"
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

numaplace::sim::group_result group_of(const part_reader& r, const json& doc, const std::string& at) {
  numaplace::sim::group_result g;
  g.name = r.get<std::string>(doc, at + "/name");
  g.throughput = r.get<double>(doc, at + "/throughput");
  g.elapsed_seconds = r.get<double>(doc, at + "/elapsed_seconds");
  g.local_fraction = r.get<double>(doc, at + "/local_fraction");
  g.task_migrations = r.get<std::uint64_t>(doc, at + "/task_migrations");
  g.page_migrations = r.get<std::uint64_t>(doc, at + "/page_migrations");
  g.converged_seconds = r.get<double>(doc, at + "/converged_seconds");
  g.memory_nodes = r.get<std::vector<numaplace::node_id>>(doc, at + "/memory_nodes");
  g.memory_per_node = r.get<std::vector<std::uint64_t>>(doc, at + "/memory_per_node");
  if (const auto& j = r.at(doc, at); j.contains("tasks_over_time")) {
    for (std::size_t i = 0; i < j["tasks_over_time"].size(); ++i) {
      const std::string o = fmt::format("{}/tasks_over_time/{}", at, i);
      g.tasks_over_time.push_back({r.get<double>(doc, o + "/seconds"), r.get<std::vector<std::uint32_t>>(doc, o + "/tasks_per_node")});
    }
  } else if (!r.at(doc, at + "/final_tasks").is_null()) {  // parts written without --timeline
    g.tasks_over_time.push_back({r.get<double>(doc, at + "/final_tasks/seconds"),
                                 r.get<std::vector<std::uint32_t>>(doc, at + "/final_tasks/tasks_per_node")});
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

void add_runs(const part_reader& r, const json& doc, sim_report& report) {
  for (std::size_t p = 0; p < report.presets.size(); ++p) {
    for (std::size_t x = 0; x < report.presets[p].experiments.size(); ++x) {
      auto& e = report.presets[p].experiments[x];
      for (std::size_t s = 0; s < e.stacks.size(); ++s) {
        const std::string sp = fmt::format("/presets/{}/experiments/{}/stacks/{}/runs", p, x, s);
        for (std::size_t i = 0; i < r.at(doc, sp).size(); ++i) {
          const std::string rp = fmt::format("{}/{}", sp, i);
          numaplace::sim::run_result run;
          run.simulated_seconds = r.get<double>(doc, rp + "/simulated_seconds");
          run.ticks = r.get<std::uint64_t>(doc, rp + "/ticks");
          run.events = r.get<std::uint64_t>(doc, rp + "/events");
          run.settles.settles = r.get<std::uint64_t>(doc, rp + "/settles/settles");
          run.settles.unsettled = r.get<std::uint64_t>(doc, rp + "/settles/unsettled");
          run.settles.sweeps = r.get<std::uint64_t>(doc, rp + "/settles/sweeps");
          run.settles.most_sweeps = r.get<int>(doc, rp + "/settles/most_sweeps");
          run.settles.worst_residual = r.get<double>(doc, rp + "/settles/worst_residual");
          for (std::size_t g = 0; g < r.at(doc, rp + "/groups").size(); ++g) {
            run.groups.push_back(group_of(r, doc, fmt::format("{}/groups/{}", rp, g)));
          }
          e.stacks[s].run_index.push_back(r.get<unsigned>(doc, rp + "/run"));
          e.stacks[s].run_seed.push_back(r.get<std::uint64_t>(doc, rp + "/seed"));
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

sim_report merge_sim_reports(const std::vector<std::string>& paths) {
  if (paths.empty()) throw usage_error("--merge needs the --json reports of a sweep's shards");
  sim_report merged;
  json sweep;
  std::string first;
  std::map<unsigned, std::string> shards;  // k -> file
  unsigned shard_count = 0;
  for (const auto& path : paths) {
    const part_reader r(path);
    json doc;
    try {
      doc = json::parse(read_json_file<bad_input_error>(path));
    } catch (const json::exception& e) {
      r.fail("", fmt::format("not JSON ({}); expected numaplace sim --json output", e.what()));
    }
    if (!doc.is_object() || !doc.contains("format")) r.fail("", "has no format; expected numaplace sim --json output");
    check_stamp(doc, sim_report_format, sim_report_schema_version, [&](std::string_view at, const std::string& what) { r.fail(at, what); });
    const auto [k, n] = shard_of(r, doc);
    if (shards.empty()) {
      shard_count = n;
      sweep = sweep_of(doc);
      first = path;
      merged = skeleton_of(r, doc);
    } else {
      if (n != shard_count) r.fail("/shard", fmt::format("is {}/{}, but {} is one of {} shards", k, n, first, shard_count));
      if (const auto at = first_difference(sweep, sweep_of(doc)); !at.empty()) {
        r.fail(at, fmt::format("differs from {}: a part of another sweep", first));
      }
    }
    if (const auto [it, fresh] = shards.emplace(k, path); !fresh) {
      r.fail("/shard", fmt::format("{}/{} again: {} is that shard too", k, n, it->second));
    }
    add_runs(r, doc, merged);
  }
  for (unsigned k = 0; k < shard_count; ++k) {
    if (!shards.contains(k)) throw bad_input_error(fmt::format("--merge: shard {}/{} is missing (given: {})", k, shard_count, fmt::join(paths, ", ")));
  }
  for (auto& p : merged.presets) {
    for (auto& e : p.experiments) {
      for (auto& s : e.stacks) sort_runs(s);
    }
  }
  return merged;
}

}  // namespace numaplace_cli
