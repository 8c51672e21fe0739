#pragma once
// An experiment sweep written down as a JSON file (what `numaplace sim --config FILE.json`
// reads): the machine, the workloads as data (numaplace::sim::workload, field for field), the
// stacks, runs, seed and cost model. examples/programs/cli/schema/experiment.schema.json describes the
// same rules; every problem is reported as "FILE:LINE:COLUMN: /json/pointer: what". Part of
// numaplace::formats (format_error.hpp).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../sim/cost_model.hpp"
#include "../sim/workload.hpp"
#include "../topology/error.hpp"
#include "../topology/generator_spec.hpp"
#include "format_error.hpp"
#include "json_checker.hpp"
#include "json_positions.hpp"
#include "json_stamp.hpp"
#include "machine_request.hpp"
#include "topology_json.hpp"
#include "workload_bounds.hpp"

namespace numaplace::formats {

/// What experiment_config_json's output says it is (json_stamp.hpp); hand-written files need no
/// stamp.
inline constexpr std::string_view experiment_format = "numaplace-experiment";
inline constexpr int experiment_schema_version = 1;

/// A config file that cannot be used; the message starts with the file and the place in it.
class experiment_config_error : public format_error {
 public:
  using format_error::format_error;
};

/// What an experiment file asks for, before anything is loaded.
struct experiment_config {
  /// The machine; its file and sysfs paths are already resolved against the config's folder.
  machine_request machine;
  /// numaplace::sim::machine_options.
  unsigned threads_per_core = 1;
  unsigned default_cpus_per_node = 4;
  /// A machine costs file (machine_costs_json.hpp), resolved like the machine's file.
  std::optional<std::string> costs_file;
  sim::cost_model cost_model{};
  std::vector<sim::workload> workloads;
  std::vector<std::string> stacks;  ///< empty: the custom runs' default
  std::optional<unsigned> runs;
  std::optional<std::uint64_t> seed;
  std::optional<unsigned> threads;
  /// kernel.numa_balancing (1 to 3) and /sys/kernel/mm/numa/demotion_enabled in every run
  /// (sim::tiering_options); unset: 1 and off.
  std::optional<unsigned> numa_balancing;
  std::optional<bool> demotion;
};

/// Which machine sources a config may name: a fuzzer must not read files or this machine.
enum class machine_sources { any, names_only };

namespace experiment_detail {

using json = nlohmann::json;
namespace sim = numaplace::sim;

// Far beyond any experiment a simulation finishes; keeps a hostile file's work bounded.
inline constexpr std::uint64_t max_processes = 1024;
inline constexpr std::uint64_t max_threads = 4096;
inline constexpr std::uint64_t max_regions = 1024;
inline constexpr std::uint64_t max_chunks = 1 << 20;
inline constexpr double max_seconds = 86400;

// Reports a problem at a value's line and column and JSON pointer.
class checker {
 public:
  checker(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  // A key given twice is an error (one of the two is a mistake), found while indexing.
  void check_duplicate_keys() const {
    const auto& key = positions().duplicate_key();
    if (key) fail(*key, "given twice in one object; the second would silently win");
  }

  [[noreturn]] void fail(const std::string& pointer, std::string_view what) const {
    fail_at(positions().offset_of(pointer), fmt::format("{}: {}", pointer.empty() ? "/" : pointer, what));
  }
  [[noreturn]] void fail_at(std::size_t offset, std::string_view what) const {
    const auto [line, column] = line_and_column(text_, offset);
    throw experiment_config_error(fmt::format("{}:{}:{}: {}", source_, line, column, what));
  }
  const std::string& source() const noexcept { return source_; }

 private:
  const json_positions& positions() const {
    if (!positions_) positions_.emplace(text_);
    return *positions_;
  }

  std::string_view text_;
  std::string source_;
  mutable std::optional<json_positions> positions_;
};

inline std::string child(const std::string& pointer, std::string_view key) { return fmt::format("{}/{}", pointer, key); }
inline std::string child(const std::string& pointer, std::size_t i) { return fmt::format("{}/{}", pointer, i); }

inline const json& object(const checker& c, const json& v, const std::string& at, std::initializer_list<std::string_view> keys) {
  if (!v.is_object()) c.fail(at, fmt::format("expected an object, got {}", shown(v)));
  for (const auto& [key, value] : v.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      c.fail(child(at, key), fmt::format("unknown key '{}'; allowed: {}", key, fmt::join(keys, ", ")));
    }
  }
  return v;
}

inline const json& array(const checker& c, const json& v, const std::string& at, std::uint64_t min, std::uint64_t max) {
  if (!v.is_array()) c.fail(at, fmt::format("expected an array, got {}", shown(v)));
  if (v.size() < min || v.size() > max) c.fail(at, fmt::format("expected {} to {} items, got {}", min, max, v.size()));
  return v;
}

inline std::uint64_t integer(const checker& c, const json& v, const std::string& at, std::uint64_t min, std::uint64_t max) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < min) {
    c.fail(at, min == 1 ? fmt::format("expected a positive integer, got {}", shown(v))
                        : fmt::format("expected an integer from {} to {}, got {}", min, max, shown(v)));
  }
  if (v.get<std::uint64_t>() > max) c.fail(at, fmt::format("expected at most {}, got {}", max, shown(v)));
  return v.get<std::uint64_t>();
}

// A number in [min, max], or (min, max] when `above` (a duration or rate that cannot be 0).
inline double number(const checker& c, const json& v, const std::string& at, double min, double max, bool above = false) {
  const bool fits = v.is_number() && (above ? v.get<double>() > min : v.get<double>() >= min) && v.get<double>() <= max;
  if (!fits) c.fail(at, fmt::format("expected a number {} {} and at most {}, got {}", above ? "above" : "from", min, max, shown(v)));
  return v.get<double>();
}

inline bool boolean(const checker& c, const json& v, const std::string& at) {
  if (!v.is_boolean()) c.fail(at, fmt::format("expected true or false, got {}", shown(v)));
  return v.get<bool>();
}

inline std::string text(const checker& c, const json& v, const std::string& at) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) c.fail(at, fmt::format("expected a non-empty string, got {}", shown(v)));
  return v.get<std::string>();
}

// Each member present in `v`, with its pointer.
template <class Read>
inline void optional_member(const json& v, const std::string& at, std::string_view key, Read&& read) {
  if (const auto it = v.find(key); it != v.end()) read(*it, child(at, key));
}

inline const json& required(const checker& c, const json& v, const std::string& at, std::string_view key, std::string_view what) {
  const auto it = v.find(key);
  if (it == v.end()) c.fail(at, fmt::format("missing '{}': {}", key, what));
  return *it;
}

inline std::string resolved(const std::string& folder, const std::string& path) {
  if (path == "-" || std::filesystem::path(path).is_absolute() || folder.empty()) return path;
  return (std::filesystem::path(folder) / path).string();
}

inline void read_machine(const checker& c, const json& v, experiment_config& out, const std::string& folder,
                  machine_sources allowed) {
  const std::string at = "/machine";
  object(c, v, at,
         {"description", "name", "file", "sysfs", "hwloc", "hwloc_xml", "hwloc_synthetic", "generate", "topology",
          "threads_per_core", "default_cpus_per_node"});
  int sources = 0;
  for (const char* key : {"name", "file", "sysfs", "hwloc", "hwloc_xml", "hwloc_synthetic", "generate", "topology"}) {
    sources += v.contains(key) ? 1 : 0;
  }
  if (sources != 1) {
    c.fail(at, fmt::format("expected exactly one of name, file, sysfs, hwloc, hwloc_xml, hwloc_synthetic, generate, "
                           "topology; got {}",
                           sources));
  }
  optional_member(v, at, "description", [&](const json& x, const std::string& p) { text(c, x, p); });
  optional_member(v, at, "name", [&](const json& x, const std::string& p) { out.machine.name = text(c, x, p); });
  optional_member(v, at, "file", [&](const json& x, const std::string& p) {
    if (allowed == machine_sources::names_only) c.fail(p, "machine files are not read here");
    out.machine.file = resolved(folder, text(c, x, p));
  });
  optional_member(v, at, "sysfs", [&](const json& x, const std::string& p) {
    if (allowed == machine_sources::names_only) c.fail(p, "sysfs folders are not read here");
    out.machine.sysfs = resolved(folder, text(c, x, p));
  });
  optional_member(v, at, "hwloc", [&](const json& x, const std::string& p) {
    if (!boolean(c, x, p)) c.fail(p, "expected true (leave it out for another source)");
    if (allowed == machine_sources::names_only) c.fail(p, "this machine is not read here");
    out.machine.hwloc = true;
  });
  optional_member(v, at, "hwloc_xml", [&](const json& x, const std::string& p) {
    if (allowed == machine_sources::names_only) c.fail(p, "hwloc XML files are not read here");
    out.machine.hwloc_xml = resolved(folder, text(c, x, p));
  });
  optional_member(v, at, "hwloc_synthetic", [&](const json& x, const std::string& p) {
    if (allowed == machine_sources::names_only) c.fail(p, "hwloc is not run here");
    out.machine.hwloc_synthetic = text(c, x, p);
  });
  // A generated or inline machine is checked here, so that its errors point into this file
  // (and the fuzzer reaches those readers too); whoever loads the machine builds it again.
  optional_member(v, at, "generate", [&](const json& x, const std::string& p) {
    const std::string spec = text(c, x, p);
    try {
      (void)numaplace::generate::from_spec(spec);
    } catch (const numaplace::topology_error& e) {
      c.fail(p, e.what());
    }
    out.machine.generate = spec;
  });
  optional_member(v, at, "topology", [&](const json& x, const std::string& p) {
    if (!x.is_object()) c.fail(p, "expected a topology document (an object, as `numaplace topo --json` prints)");
    const std::string source = fmt::format("{}: {}", c.source(), p);
    try {
      (void)numaplace::formats::parse_topology_json(x.dump(), source);
    } catch (const numaplace::topology_error& e) {
      c.fail(p, e.what());
    } catch (const numaplace::formats::topology_file_error& e) {
      throw experiment_config_error(e.what());  // already "FILE: /machine/topology: /nodes/...: what"
    }
    out.machine.topology_json = x.dump();
    out.machine.topology_json_source = source;
  });
  optional_member(v, at, "threads_per_core", [&](const json& x, const std::string& p) {
    out.threads_per_core = static_cast<unsigned>(integer(c, x, p, 1, 16));
  });
  optional_member(v, at, "default_cpus_per_node", [&](const json& x, const std::string& p) {
    out.default_cpus_per_node = static_cast<unsigned>(integer(c, x, p, 1, 4096));
  });
}

inline void read_cost_model(const checker& c, const json& v, sim::cost_model& m) {
  const std::string at = "/cost_model";
  object(c, v, at,
         {"description", "tick_ms", "smt_gain_per_sibling", "task_move_cost_ms", "page_migrate_cost_ms",
          "hinting_fault_cost_ms", "interleave_chunks", "interleave_interval_ms", "pages_per_chunk",
          "refresh_interval_ms"});
  optional_member(v, at, "description", [&](const json& x, const std::string& p) { text(c, x, p); });
  optional_member(v, at, "tick_ms", [&](const json& x, const std::string& p) { m.tick_ms = number(c, x, p, 0.1, 1000); });
  optional_member(v, at, "smt_gain_per_sibling",
                  [&](const json& x, const std::string& p) { m.smt_gain_per_sibling = number(c, x, p, 0, 1); });
  optional_member(v, at, "task_move_cost_ms",
                  [&](const json& x, const std::string& p) { m.task_move_cost_ms = number(c, x, p, 0, 1000); });
  optional_member(v, at, "page_migrate_cost_ms",
                  [&](const json& x, const std::string& p) { m.page_migrate_cost_ms = number(c, x, p, 0, 1000); });
  optional_member(v, at, "hinting_fault_cost_ms",
                  [&](const json& x, const std::string& p) { m.hinting_fault_cost_ms = number(c, x, p, 0, 1000); });
  optional_member(v, at, "interleave_chunks", [&](const json& x, const std::string& p) {
    m.interleave_chunks = static_cast<unsigned>(integer(c, x, p, 1, max_chunks));
  });
  optional_member(v, at, "interleave_interval_ms",
                  [&](const json& x, const std::string& p) { m.interleave_interval_ms = number(c, x, p, 0, 1e7, true); });
  optional_member(v, at, "pages_per_chunk",
                  [&](const json& x, const std::string& p) { m.pages_per_chunk = integer(c, x, p, 1, 1 << 18); });
  optional_member(v, at, "refresh_interval_ms",
                  [&](const json& x, const std::string& p) { m.refresh_interval_ms = number(c, x, p, 0, 1e7, true); });
}

// A region's `touch`, by name: the one table the reader and the writer share.
inline constexpr std::pair<std::string_view, sim::shared_touch> touch_names[] = {
    {"any_thread", sim::shared_touch::any_thread},
    {"first_thread", sim::shared_touch::first_thread},
    {"allocating_threads", sim::shared_touch::allocating_threads},
    {"collector_threads", sim::shared_touch::collector_threads},
    {"every_thread_once", sim::shared_touch::every_thread_once}};

inline sim::shared_touch touch_of(const checker& c, const json& v, const std::string& at) {
  if (v.is_string()) {
    for (const auto& [name, touch] : touch_names) {
      if (v.get_ref<const std::string&>() == name) return touch;
    }
  }
  c.fail(at, fmt::format("expected any_thread, first_thread, allocating_threads, collector_threads or every_thread_once, got {}",
                         shown(v)));
}

inline std::vector<sim::access> read_accesses(const checker& c, const json& v, const std::string& at, std::size_t regions) {
  std::vector<sim::access> out;
  array(c, v, at, 1, max_regions);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = child(at, i);
    object(c, v[i], p, {"region", "weight"});
    sim::access a;
    a.region = static_cast<std::uint32_t>(
        integer(c, required(c, v[i], p, "region", "the index of a region of this process"), child(p, "region"), 0,
                regions - 1));
    optional_member(v[i], p, "weight", [&](const json& x, const std::string& q) { a.weight = number(c, x, q, 0, 1e6, true); });
    out.push_back(a);
  }
  return out;
}

inline sim::process_spec read_process(const checker& c, const json& v, const std::string& at, std::size_t index) {
  object(c, v, at,
         {"description", "name", "regions", "threads", "accesses", "memory_bound", "streaming",
          "main_thread_touches_first", "first_touch_nodes", "work_bytes_per_thread", "jobs", "job_work_ms", "bind_nodes",
          "cpu_nodes", "memory_nodes", "bind_each_thread",
          "inverse_moves_memory", "start_ms", "gc"});
  sim::process_spec p;
  p.name = fmt::format("p{}", index + 1);
  optional_member(v, at, "description", [&](const json& x, const std::string& q) { text(c, x, q); });
  optional_member(v, at, "name", [&](const json& x, const std::string& q) { p.name = text(c, x, q); });
  const std::string regions_at = child(at, "regions");
  const json& regions = array(c, required(c, v, at, "regions", "the process's memory regions"), regions_at, 1, max_regions);
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const std::string q = child(regions_at, i);
    object(c, regions[i], q, {"description", "chunks", "first_touch_by_all", "touch"});
    sim::region r;
    optional_member(regions[i], q, "description", [&](const json& x, const std::string& s) { text(c, x, s); });
    r.chunks = static_cast<std::uint32_t>(integer(c, required(c, regions[i], q, "chunks", "its size in 2 MiB chunks"),
                                                  child(q, "chunks"), 1, max_chunks));
    optional_member(regions[i], q, "first_touch_by_all",
                    [&](const json& x, const std::string& s) { r.first_touch_by_all = boolean(c, x, s); });
    optional_member(regions[i], q, "touch", [&](const json& x, const std::string& s) { r.touch = touch_of(c, x, s); });
    p.regions.push_back(r);
  }
  // threads: a count, every thread with the process's `accesses`; or one object per thread.
  const std::string threads_at = child(at, "threads");
  const json& threads = required(c, v, at, "threads", "a thread count, or one {\"accesses\": [...]} per thread");
  const auto shared = v.find("accesses");
  if (threads.is_array()) {
    if (shared != v.end()) c.fail(child(at, "accesses"), "give accesses per thread when threads is an array");
    array(c, threads, threads_at, 1, max_threads);
    for (std::size_t i = 0; i < threads.size(); ++i) {
      const std::string q = child(threads_at, i);
      object(c, threads[i], q, {"accesses"});
      p.threads.push_back({read_accesses(c, required(c, threads[i], q, "accesses", "the regions it works on"),
                                         child(q, "accesses"), p.regions.size())});
    }
  } else {
    const auto count = integer(c, threads, threads_at, 1, max_threads);
    if (shared == v.end()) c.fail(at, "missing 'accesses': the regions each of its threads works on");
    const sim::thread_spec t{read_accesses(c, *shared, child(at, "accesses"), p.regions.size())};
    p.threads.assign(count, t);
  }
  optional_member(v, at, "memory_bound", [&](const json& x, const std::string& q) { p.memory_bound = number(c, x, q, 0, 1); });
  optional_member(v, at, "streaming", [&](const json& x, const std::string& q) { p.streaming = number(c, x, q, 0, 1); });
  optional_member(v, at, "main_thread_touches_first",
                  [&](const json& x, const std::string& q) { p.main_thread_touches_first = boolean(c, x, q); });
  optional_member(v, at, "first_touch_nodes", [&](const json& x, const std::string& q) {
    array(c, x, q, 0, 4096);
    for (std::size_t i = 0; i < x.size(); ++i)
      p.first_touch_nodes.push_back(static_cast<std::uint32_t>(integer(c, x[i], child(q, i), 0, 4095)));
  });
  optional_member(v, at, "jobs", [&](const json& x, const std::string& q) {
    p.jobs = static_cast<std::uint32_t>(integer(c, x, q, 0, 1 << 20));
  });
  optional_member(v, at, "job_work_ms", [&](const json& x, const std::string& q) { p.job_work_ms = number(c, x, q, 0, 1e7, true); });
  if (p.jobs > 0 && p.job_work_ms <= 0) c.fail(at, "jobs needs job_work_ms, each job's CPU time");
  // Node index lists: bind_nodes binds CPUs and memory together (numactl --cpunodebind=B
  // --membind=B), cpu_nodes and memory_nodes each alone; the machine checks the indices
  // (sim::check_binding).
  const auto nodes_into = [&](std::vector<std::uint32_t>& out) {
    return [&](const json& x, const std::string& q) {
      array(c, x, q, 0, 4096);
      for (std::size_t i = 0; i < x.size(); ++i) out.push_back(static_cast<std::uint32_t>(integer(c, x[i], child(q, i), 0, 4095)));
    };
  };
  optional_member(v, at, "bind_nodes", nodes_into(p.bind_nodes));
  optional_member(v, at, "cpu_nodes", nodes_into(p.cpu_nodes));
  optional_member(v, at, "memory_nodes", nodes_into(p.memory_nodes));
  if (!p.bind_nodes.empty() && (!p.cpu_nodes.empty() || !p.memory_nodes.empty())) {
    c.fail(child(at, p.cpu_nodes.empty() ? "memory_nodes" : "cpu_nodes"),
           "bind_nodes binds CPUs and memory both; give cpu_nodes and memory_nodes instead of it, as numactl "
           "--cpunodebind and --membind");
  }
  optional_member(v, at, "work_bytes_per_thread",
                  [&](const json& x, const std::string& q) { p.work_bytes_per_thread = number(c, x, q, 0, 1e18); });
  optional_member(v, at, "bind_each_thread", [&](const json& x, const std::string& q) { p.bind_each_thread = boolean(c, x, q); });
  optional_member(v, at, "inverse_moves_memory",
                  [&](const json& x, const std::string& q) { p.inverse_moves_memory = boolean(c, x, q); });
  optional_member(v, at, "start_ms", [&](const json& x, const std::string& q) { p.start_ms = number(c, x, q, 0, max_seconds * 1000); });
  optional_member(v, at, "gc", [&](const json& x, const std::string& q) {
    object(c, x, q, {"description", "young_region", "alloc_chunks_per_s", "work_ms_per_chunk", "threads"});
    optional_member(x, q, "description", [&](const json& y, const std::string& s) { text(c, y, s); });
    p.gc.young_region = static_cast<std::uint32_t>(
        integer(c, required(c, x, q, "young_region", "the index of the young generation's region"), child(q, "young_region"),
                0, p.regions.size() - 1));
    p.gc.alloc_chunks_per_s = number(c, required(c, x, q, "alloc_chunks_per_s", "chunks each mutator allocates per second"),
                                     child(q, "alloc_chunks_per_s"), 0, 1e6, true);
    p.gc.work_ms_per_chunk = number(c, required(c, x, q, "work_ms_per_chunk", "collector work per young chunk, in ms"),
                                    child(q, "work_ms_per_chunk"), 0, 1e4);
    optional_member(x, q, "threads", [&](const json& y, const std::string& s) {
      p.gc.threads = static_cast<std::uint32_t>(integer(c, y, s, 0, max_threads));
    });
  });
  return p;
}

inline sim::workload read_workload(const checker& c, const json& v, const std::string& at, std::size_t index) {
  object(c, v, at, {"description", "name", "processes", "seconds", "report_elapsed", "work_per_thread_ms", "barrier_steps"});
  sim::workload w;
  w.name = fmt::format("workload{}", index + 1);
  optional_member(v, at, "description", [&](const json& x, const std::string& q) { text(c, x, q); });
  optional_member(v, at, "name", [&](const json& x, const std::string& q) { w.name = text(c, x, q); });
  const std::string processes_at = child(at, "processes");
  const json& processes = array(c, required(c, v, at, "processes", "its processes"), processes_at, 1, max_processes);
  std::uint64_t tasks = 0;
  for (std::size_t i = 0; i < processes.size(); ++i) {
    w.processes.push_back(read_process(c, processes[i], child(processes_at, i), i));
    // Per-process limits allow 1024 x 4096 threads; a workload is bounded as a whole, as
    // --workload specs are (the sweep's memory and time are the budget's: sim_budget.hpp).
    tasks += w.processes.back().threads.size();
    if (tasks > max_sim_tasks) {
      c.fail(child(child(processes_at, i), "threads"),
             fmt::format("brings the workload to {} threads; a workload has at most {}", tasks, max_sim_tasks));
    }
  }
  optional_member(v, at, "seconds", [&](const json& x, const std::string& q) { w.seconds = number(c, x, q, 0, max_seconds, true); });
  optional_member(v, at, "report_elapsed", [&](const json& x, const std::string& q) { w.report_elapsed = boolean(c, x, q); });
  optional_member(v, at, "work_per_thread_ms",
                  [&](const json& x, const std::string& q) { w.work_per_thread_ms = number(c, x, q, 0, 1e9); });
  optional_member(v, at, "barrier_steps", [&](const json& x, const std::string& q) {
    w.barrier_steps = static_cast<std::uint32_t>(integer(c, x, q, 0, 1'000'000));
  });
  const bool has_jobs = std::any_of(w.processes.begin(), w.processes.end(), [](const auto& p) { return p.jobs > 0; });
  const bool all_bytes = std::all_of(w.processes.begin(), w.processes.end(),
                                     [](const auto& p) { return p.jobs > 0 || p.work_bytes_per_thread > 0; });
  if (w.report_elapsed && !has_jobs && w.work_per_thread_ms <= 0 && !all_bytes) {
    c.fail(at,
           "report_elapsed without jobs needs work_per_thread_ms, the work each thread finishes, or every process's "
           "work_bytes_per_thread");
  }
  std::size_t refused = w.processes.size();
  if (const std::string why = sim::barriers_refused(w, refused); !why.empty()) {
    c.fail(refused < w.processes.size() ? child(processes_at, refused) : child(at, "barrier_steps"), why);
  }
  return w;
}

}  // namespace experiment_detail

/// Parses and checks `input`; `source` names it in messages, `folder` is where its relative paths
/// start and `stack_names` are the stacks it may name. Throws experiment_config_error.
inline experiment_config parse_experiment_config(std::string_view input, const std::string& source, const std::string& folder,
                                                 const std::vector<std::string>& stack_names,
                                                 machine_sources allowed = machine_sources::any) {
  using namespace experiment_detail;
  const checker c(input, source);
  if (input.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    c.fail_at(0, "the file is empty; expected a JSON object with machine and workloads");
  }
  if (const auto deep = too_deep_at(input)) c.fail_at(*deep, too_deep_message());
  json doc;
  try {
    doc = json::parse(input);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (const auto colon = what.find(": ", what.find("parse error")); colon != std::string::npos) what.erase(0, colon + 2);
    c.fail_at(e.byte == 0 ? 0 : e.byte - 1, what);
  } catch (const json::exception& e) {
    c.fail_at(0, e.what());  // a number beyond double and the like
  }
  c.check_duplicate_keys();
  object(c, doc, "",
         {"$schema", "description", "format", "schema_version", "numaplace_version", "machine", "costs", "cost_model",
          "workloads", "stacks", "runs", "seed", "threads", "numa_balancing", "demotion"});
  check_stamp(doc, experiment_format, experiment_schema_version,
              [&](std::string_view pointer, const std::string& what) { c.fail(std::string(pointer), what); });
  experiment_config out;
  optional_member(doc, "", "$schema", [&](const json& x, const std::string& p) { text(c, x, p); });
  optional_member(doc, "", "description", [&](const json& x, const std::string& p) { text(c, x, p); });
  read_machine(c, required(c, doc, "", "machine", "the machine, e.g. {\"name\": \"seed000-8node\"}"), out, folder, allowed);
  optional_member(doc, "", "costs", [&](const json& x, const std::string& p) {
    if (allowed == machine_sources::names_only) c.fail(p, "costs files are not read here");
    out.costs_file = resolved(folder, text(c, x, p));
  });
  optional_member(doc, "", "cost_model", [&](const json& x, const std::string&) { read_cost_model(c, x, out.cost_model); });
  const json& workloads = array(c, required(c, doc, "", "workloads", "the experiments, one workload each"), "/workloads", 1, 64);
  for (std::size_t i = 0; i < workloads.size(); ++i) out.workloads.push_back(read_workload(c, workloads[i], child("/workloads", i), i));
  optional_member(doc, "", "stacks", [&](const json& x, const std::string& p) {
    array(c, x, p, 1, 64);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::string name = text(c, x[i], child(p, i));
      if (std::find(stack_names.begin(), stack_names.end(), name) == stack_names.end()) {
        c.fail(child(p, i), fmt::format("unknown stack '{}'; valid stacks: {}", name, fmt::join(stack_names, ", ")));
      }
      out.stacks.push_back(name);
    }
  });
  optional_member(doc, "", "runs", [&](const json& x, const std::string& p) { out.runs = static_cast<unsigned>(integer(c, x, p, 1, 100000)); });
  optional_member(doc, "", "seed", [&](const json& x, const std::string& p) {
    out.seed = integer(c, x, p, 0, std::numeric_limits<std::uint64_t>::max());
  });
  optional_member(doc, "", "threads", [&](const json& x, const std::string& p) { out.threads = static_cast<unsigned>(integer(c, x, p, 1, 4096)); });
  optional_member(doc, "", "numa_balancing", [&](const json& x, const std::string& p) {
    out.numa_balancing = static_cast<unsigned>(integer(c, x, p, 1, 3));
  });
  optional_member(doc, "", "demotion", [&](const json& x, const std::string& p) { out.demotion = boolean(c, x, p); });
  return out;
}

namespace experiment_detail {

using ojson = nlohmann::ordered_json;

inline ojson machine_json(const experiment_config& config) {
  const machine_request& m = config.machine;
  ojson out = ojson::object();
  if (m.name) out["name"] = *m.name;
  if (m.file) out["file"] = *m.file;
  if (m.sysfs) out["sysfs"] = *m.sysfs;
  if (m.hwloc) out["hwloc"] = true;
  if (m.hwloc_xml) out["hwloc_xml"] = *m.hwloc_xml;
  if (m.hwloc_synthetic) out["hwloc_synthetic"] = *m.hwloc_synthetic;
  if (m.generate) out["generate"] = *m.generate;
  if (m.topology_json) out["topology"] = ojson::parse(*m.topology_json);
  out["threads_per_core"] = config.threads_per_core;
  out["default_cpus_per_node"] = config.default_cpus_per_node;
  return out;
}

inline ojson cost_model_json(const sim::cost_model& m) {
  return {{"tick_ms", m.tick_ms},
          {"smt_gain_per_sibling", m.smt_gain_per_sibling},
          {"task_move_cost_ms", m.task_move_cost_ms},
          {"page_migrate_cost_ms", m.page_migrate_cost_ms},
          {"hinting_fault_cost_ms", m.hinting_fault_cost_ms},
          {"interleave_chunks", m.interleave_chunks},
          {"interleave_interval_ms", m.interleave_interval_ms},
          {"pages_per_chunk", m.pages_per_chunk},
          {"refresh_interval_ms", m.refresh_interval_ms}};
}

inline ojson process_json(const sim::process_spec& p) {
  ojson regions = ojson::array();
  for (const sim::region& r : p.regions) {
    ojson region = {{"chunks", r.chunks}, {"first_touch_by_all", r.first_touch_by_all}};
    for (const auto& [name, touch] : touch_names) {
      if (touch == r.touch) region["touch"] = name;
    }
    regions.push_back(std::move(region));
  }
  ojson threads = ojson::array();
  for (const sim::thread_spec& t : p.threads) {
    ojson accesses = ojson::array();
    for (const sim::access& a : t.accesses) accesses.push_back({{"region", a.region}, {"weight", a.weight}});
    threads.push_back({{"accesses", std::move(accesses)}});
  }
  ojson out = {{"name", p.name},
               {"regions", std::move(regions)},
               {"threads", std::move(threads)},
               {"memory_bound", p.memory_bound},
               {"streaming", p.streaming},
               {"main_thread_touches_first", p.main_thread_touches_first},
               {"jobs", p.jobs}};
  if (p.jobs > 0) out["job_work_ms"] = p.job_work_ms;  // the reader wants it above 0, and only with jobs
  out["first_touch_nodes"] = p.first_touch_nodes;
  // Bindings apart are written apart, each as the process takes it (bind_nearest may have
  // given bind_nodes to a process with memory_nodes): the reader takes bind_nodes alone.
  const bool apart = !p.cpu_nodes.empty() || !p.memory_nodes.empty();
  out["bind_nodes"] = apart ? std::vector<std::uint32_t>{} : p.bind_nodes;
  if (apart && !p.bound_cpu_nodes().empty()) out["cpu_nodes"] = p.bound_cpu_nodes();
  if (apart && !p.bound_memory_nodes().empty()) out["memory_nodes"] = p.bound_memory_nodes();
  out["bind_each_thread"] = p.bind_each_thread;
  out["inverse_moves_memory"] = p.inverse_moves_memory;
  if (p.work_bytes_per_thread > 0) out["work_bytes_per_thread"] = p.work_bytes_per_thread;
  out["start_ms"] = p.start_ms;
  if (p.gc.enabled()) {
    out["gc"] = {{"young_region", p.gc.young_region},
                 {"alloc_chunks_per_s", p.gc.alloc_chunks_per_s},
                 {"work_ms_per_chunk", p.gc.work_ms_per_chunk},
                 {"threads", p.gc.threads}};
  }
  return out;
}

}  // namespace experiment_detail

/// `config` as an experiment file that parse_experiment_config reads back to the same config
/// (what `numaplace sim --config-json` prints): a run written down, to edit and share. Every
/// field is written, defaults too, so that the file says everything the run used; paths stay as
/// given.
inline nlohmann::ordered_json experiment_config_json(const experiment_config& config) {
  using namespace experiment_detail;
  ojson workloads = ojson::array();
  for (const sim::workload& w : config.workloads) {
    ojson processes = ojson::array();
    for (const auto& p : w.processes) processes.push_back(process_json(p));
    workloads.push_back({{"name", w.name},
                         {"processes", std::move(processes)},
                         {"seconds", w.seconds},
                         {"report_elapsed", w.report_elapsed},
                         {"work_per_thread_ms", w.work_per_thread_ms},
                         {"barrier_steps", w.barrier_steps}});
  }
  ojson out = ojson::object();
  stamp_json(out, experiment_format, experiment_schema_version);
  out["machine"] = machine_json(config);
  if (config.costs_file) out["costs"] = *config.costs_file;
  out["cost_model"] = cost_model_json(config.cost_model);
  out["workloads"] = std::move(workloads);
  if (!config.stacks.empty()) out["stacks"] = config.stacks;
  if (config.runs) out["runs"] = *config.runs;
  if (config.seed) out["seed"] = *config.seed;
  if (config.threads) out["threads"] = *config.threads;
  if (config.numa_balancing) out["numa_balancing"] = *config.numa_balancing;
  if (config.demotion) out["demotion"] = *config.demotion;
  return out;
}

}  // namespace numaplace::formats
