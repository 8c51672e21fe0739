#include "sim_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <numaplace/formats/experiment_json.hpp>
#include <numaplace/formats/json_stamp.hpp>
#include <numaplace/formats/machine_costs_json.hpp>
#include <numaplace/formats/read_input.hpp>
#include <numaplace/formats/sim_report_json.hpp>
#include <numaplace/formats/topology_json.hpp>
#include <numaplace/sim/hardware_presets.hpp>

#include "command.hpp"
#include "exit_codes.hpp"
#include "sim_report_csv.hpp"
#include "sim_report_plot.hpp"
#include "sim_report_text.hpp"
#include "sim_run.hpp"
#include "sim_workload_spec.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace sim = numaplace::sim;

namespace {

using numaplace::formats::experiment_config;
using numaplace::formats::experiment_config_json;
using numaplace::formats::is_stamp_key;
using numaplace::formats::max_report_bytes;
using numaplace::formats::read_input;

// The experiment file at `path` ("-": standard input); its relative paths start at its folder.
experiment_config read_experiment_config(const std::string& path, const std::vector<std::string>& stack_names) {
  const std::string text = read_input(path, "a JSON experiment file");
  if (path == "-") return numaplace::formats::parse_experiment_config(text, "<stdin>", "", stack_names);
  return numaplace::formats::parse_experiment_config(text, path, std::filesystem::path(path).parent_path().string(),
                                                     stack_names);
}

// The --json reports at `paths`, each read as read_input() reads (at most max_report_bytes),
// merged into one.
sim::sweep_report merge_sim_report_files(const std::vector<std::string>& paths) {
  std::vector<numaplace::formats::report_part> parts;
  for (const auto& path : paths) parts.push_back({path, read_input(path, "a numaplace sim --json report", max_report_bytes)});
  return numaplace::formats::merge_sim_reports(parts);
}

std::optional<unsigned> parse_unsigned(const std::string& s) {
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// "k/n" with 0 <= k < n.
std::pair<unsigned, unsigned> parse_shard(const std::string& s) {
  const auto slash = s.find('/');
  const auto k = slash == std::string::npos ? std::nullopt : parse_unsigned(s.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : parse_unsigned(s.substr(slash + 1));
  if (!k || !n) throw usage_error(fmt::format("--shard '{}': expected k/n, e.g. 0/4", s));
  if (*n == 0 || *k >= *n) throw usage_error(fmt::format("--shard {}: k must be below n (0 <= k < n)", s));
  return {*k, *n};
}

// "NAME=FACTOR", the factor a plain number; whether the name and factor are valid is
// run_simulations' to say.
sim::scaled_assumption parse_assumption(const std::string& spec) {
  const auto eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    throw usage_error(
        fmt::format("--assume '{}': expected NAME=FACTOR, e.g. specjbb.memory_bound=2 (--assume list names them)", spec));
  }
  const std::string text = spec.substr(eq + 1);
  double factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw usage_error(fmt::format("--assume {}: the factor '{}' is not a number", spec, text));
  }
  return {spec.substr(0, eq), factor};
}

class sim_command final : public command {
 public:
  explicit sim_command(CLI::App& parent)
      : app_(parent.add_subcommand("sim",
                                   "Simulate placement stacks on a machine: the seeds' experiments (default: "
                                   "seed000), a custom workload, or an experiment file, with seed reported vs simulated")),
        machine_(*app_, "seed000-8node, for a custom run", /*preset_alias=*/false) {
    app_->footer(
        "Examples:\n"
        "  numaplace sim                                     the first seed's experiment, seed reported vs simulated\n"
        "  numaplace sim --list-experiments                  the seeds' experiments\n"
        "  numaplace sim --workload numa02:8 --machine seed001-4node --runs 2 --stacks no-balancing,linux-modern\n"
        "  numaplace sim --config examples/experiments/staggered-start.json --runs 1\n"
        "  numaplace sim --workload numa02:4 --generate ring:4/cpus=2 --runs 2 --shard 0/2 --json\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or bad input.");
    auto* preset = app_->add_option("--experiment", presets_,
                                    fmt::format("The seeds' experiments to run: {}, all (or 1..5); default seed000",
                                                fmt::join(sim_preset_names(), ", ")))
                       ->delimiter(',')
                       ->type_name("NAME|all");
    auto* preset_alias = app_->add_option("--preset", presets_, "Old spelling of --experiment")
                             ->delimiter(',')
                             ->type_name("NAME|all")
                             ->each([](const std::string&) { print_renamed_notice("--preset", "--experiment"); });
    preset->excludes(preset_alias);
    auto* list_experiments = app_->add_flag("--list-experiments", list_experiments_, "List the seeds' experiments and exit");
    auto* workload = app_->add_option("--workload", workloads_,
                                      fmt::format("A custom run's workload, one experiment each: {}", workload_spec_forms))
                         ->type_name("SPEC");
    for (CLI::Option* p : {preset, preset_alias}) {
      p->excludes(workload);
      workload->excludes(p);
    }
    config_ = app_->add_option("--config", config_path_,
                               "An experiment sweep as a JSON file ('-': standard input; format: "
                               "schema/experiment.schema.json): machine, workloads, stacks, runs, seed, cost model. "
                               "--stacks, --runs, --seed, --threads and --shard override the file's. Example: "
                               "numaplace sim --config examples/experiments/staggered-start.json")
                  ->type_name("FILE.json");
    merge_ = app_->add_option("--merge", merge_paths_,
                              "Join the --json reports of a sweep's shards (--shard k/n, every k once) into the "
                              "report the whole sweep gives; prints text, --json or --csv. Example: numaplace sim "
                              "--merge part0.json part1.json --json")
                 ->type_name("PART.json ...");
    for (CLI::Option* p : {preset, preset_alias}) {
      merge_->excludes(p);
      config_->excludes(p);
    }
    merge_->excludes(workload);
    merge_->excludes(config_);
    config_->excludes(workload);
    list_experiments->excludes(workload);

    for (CLI::Option* source : machine_.options()) {
      config_->excludes(source);
      merge_->excludes(source);
    }
    costs_ = app_->add_option("--costs", costs_path_,
                              "A custom run's memory costs: a JSON file (print a start with --costs-json; default: "
                              "the named machine's measured costs, else derived from SLIT)")
                 ->type_name("FILE.json");
    auto* costs_json = app_->add_flag("--costs-json", costs_json_,
                                      "Print the custom run's machine costs in use as JSON (the --costs format) and exit");
    costs_json->excludes(preset);
    costs_json->excludes(preset_alias);
    costs_json->excludes(config_);
    config_->excludes(costs_);
    auto* config_json = app_->add_flag("--config-json", config_json_,
                                       "Print the run as an experiment file (the --config format) and exit: a "
                                       "--workload run written down, or a --config file with every default and "
                                       "override filled in");
    config_json->excludes(preset);
    config_json->excludes(preset_alias);
    config_json->excludes(merge_);
    config_json->excludes(costs_json);

    app_->add_option("--stacks", stacks_,
                     fmt::format("Stacks to compare (default: the preset's; custom: no-balancing,linux-modern): {}. "
                                 "hard-binding binds each process's CPUs and memory to the nearest nodes whose "
                                 "cores hold its threads, one per core (logical CPUs when the cores cannot), apart "
                                 "from the others; inverse-binding binds its CPUs so and its memory to "
                                 "the farthest nodes (the worst case; numa01's second process keeps its memory, "
                                 "as the benchmark's build does); linux-2.5 is the O(1) scheduler before "
                                 "scheduling domains, which sees every CPU as equal, SMT siblings included",
                                 fmt::join(sim_stack_names(), ", ")))
        ->delimiter(',')
        ->type_name("A,B,...");
    app_->add_option("--runs", runs_, "Runs per stack (default: the preset's; custom: 5)")->check(CLI::Range(1, 100000));
    app_->add_option("--seed", seed_, "Run i uses seed S + i (default: 1)");
    app_->add_option("--threads", threads_, "Runs simulated at once (default: every core)")->check(CLI::Range(1, 4096));
    app_->add_option("--shard", shard_, "Only runs whose index modulo n is k, to split a sweep over machines")
        ->type_name("k/n");
    auto* json = app_->add_flag("--json", json_, "Print one JSON object instead of text");
    auto* csv = app_->add_flag("--csv", csv_, "Print one CSV row per experiment, stack, run and group");
    json->excludes(csv);
    app_->add_flag("--timeline", timeline_, "With --json: each group's tasks per node over time");
    app_->add_option("--plot", plot_dir_, "Write gnuplot data, a script and PNGs (gnuplot needed) into DIR")
        ->type_name("DIR");
    app_->add_flag("--per-run", per_run_, "List every run's groups in the text report");
    app_->add_flag("--progress", progress_, "Show progress on stderr even when it is not a terminal");
    app_->add_option("--max-memory", max_memory_gib_,
                     "Refuse a sweep estimated to need more memory than this, in GiB (default 8); the "
                     "estimate is printed with --progress")
        ->check(CLI::Range(0.001, 1.0e6))
        ->type_name("GIB");
    app_->add_option("--max-cpu-hours", max_cpu_hours_,
                     "Refuse a sweep estimated to take more CPU time than this, in hours (default 4)")
        ->check(CLI::Range(0.001, 1.0e6))
        ->type_name("H");
    app_->add_flag("--check", check_,
                   "Check what must always hold (tasks on CPUs, chunks on nodes, groups the sum of their "
                   "members) all through every run, not only at its end; a break fails the run naming it");
    auto* numa_balancing = app_->add_option("--numa-balancing", numa_balancing_,
                     "kernel.numa_balancing in every run of a NUMA-balancing stack: 1 (default), 2 (memory "
                     "tiering: hot pages on a slower tier move up, nothing else) or 3 (both)")
        ->check(CLI::Range(1, 3))
        ->type_name("MODE");
    auto* demotion = app_->add_flag("--demotion", demotion_,
                   "/sys/kernel/mm/numa/demotion_enabled: a full fast node's coldest memory moves down a tier "
                   "when a promotion needs room (off, as the kernel's default)");
    auto* assume = app_->add_option("--assume", assumptions_,
                                    "Scale an assumed constant of the model by FACTOR (0.001 to 1000) in every "
                                    "experiment, to see how far results move (repeatable; 'list' names them); the "
                                    "output says what was scaled. Example: --assume specjbb.memory_bound=2")
                        ->type_name("NAME=FACTOR|list");
    numa_balancing->excludes(merge_);
    demotion->excludes(merge_);
    assume->excludes(merge_);
    assume->excludes(config_json);
    assume->excludes(costs_json);
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (machine_.list_machines_requested()) {
      print_presets();
      return exit_ok;
    }
    if (list_experiments_) {
      for (const auto& name : sim_preset_names()) fmt::print("{}\n", name);
      return exit_ok;
    }
    if (std::find(assumptions_.begin(), assumptions_.end(), "list") != assumptions_.end()) {
      print_assumptions();
      return exit_ok;
    }
    sim_request rq;
    if (costs_json_) {
      load_machine_and_costs(rq);
      fmt::print("{}\n", numaplace::formats::machine_costs_json(costs_in_use(rq)).dump(2));
      return exit_ok;
    }
    if (config_json_) {
      fmt::print("{}\n", experiment_config_json(written_config(requested_config())).dump(2));
      return exit_ok;
    }
    const bool custom_machine = machine_.given();
    std::optional<experiment_config> request;  // a custom run's, read once (a file may be stdin)
    std::optional<loaded_topology> machine;
    if (merge_->count() > 0) {
      if (!stacks_.empty() || runs_ || seed_ || shard_ || costs_->count() > 0) {
        throw usage_error("--merge prints the parts' sweep as it is: leave out --stacks, --runs, --seed, --shard and --costs");
      }
    } else if (config_->count() > 0) {
      request = read_experiment_config(config_path_, sim_stack_names());
      machine = load_config(*request, rq);
    } else if (workloads_.empty()) {
      if (custom_machine) {
        throw usage_error("--machine, --file, --sysfs, --generate and --hwloc choose a custom run's machine: add --workload SPEC");
      }
      if (costs_->count() > 0) throw usage_error("--costs sets a custom run's machine costs: add --workload SPEC");
      rq.presets = presets_.empty() ? std::vector<std::string>{"seed000"} : presets_;
    } else {
      rq.workloads = workloads_;
      request = requested_config();  // rejects a bad spec before loading anything
      machine = load_machine_and_costs(rq);
    }
    // The command line's choices win over an experiment file's.
    if (!stacks_.empty()) rq.stacks = stacks_;
    if (runs_) rq.runs = runs_;
    if (seed_) rq.seed = seed_;
    if (threads_ != 0) rq.threads = threads_;
    if (shard_) std::tie(rq.shard, rq.shards) = parse_shard(*shard_);
    for (const auto& spec : assumptions_) rq.assumptions.push_back(parse_assumption(spec));
    rq.progress = progress_ || ::isatty(STDERR_FILENO) != 0;
    rq.full_checks = check_;
    if (numa_balancing_) rq.tiering.numa_balancing = *numa_balancing_;
    if (demotion_) rq.tiering.demotion = true;
    if (max_memory_gib_) rq.budget.max_bytes = *max_memory_gib_ * (1ull << 30);
    if (max_cpu_hours_) rq.budget.max_cpu_seconds = *max_cpu_hours_ * 3600;
    if (plot_dir_) require_gnuplot();  // before a long sweep, not after

    sim::sweep_report report = merge_->count() > 0 ? merge_sim_report_files(merge_paths_) : run_simulations(rq);
    if (request && json_) report.request = request_of(*request, *machine, rq);  // merged parts keep theirs
    if (json_) {
      fmt::print("{}\n", numaplace::formats::sim_report_json(report, timeline_).dump(2));
    } else if (csv_) {
      print_sim_csv(report);
    } else {
      print_sim_text(report, per_run_);
    }
    std::fflush(stdout);
    if (plot_dir_) {
      for (const auto& png : write_sim_plots(report, *plot_dir_)) fmt::print(stderr, "plot: {}\n", png);
    }
    return exit_ok;
  }

 private:
  // The machine and what its memory costs: --costs, else the named machine's measured costs.
  loaded_topology load_machine_and_costs(sim_request& rq) const {
    loaded_topology machine = load_topology(rq);
    attach_costs(rq, costs_->count() > 0 ? std::optional(costs_path_) : std::nullopt);
    return machine;
  }

  // The run as an experiment file, before the command line's overrides: --config's, or the
  // custom run's.
  experiment_config requested_config() const {
    if (config_->count() > 0) return read_experiment_config(config_path_, sim_stack_names());
    if (workloads_.empty()) throw usage_error("--config-json writes a custom run: add --workload SPEC or --config FILE");
    experiment_config config;
    for (const auto& spec : workloads_) config.workloads.push_back(parse_workload_spec(spec));
    config.machine = machine_.request();
    if (!machine_.given()) config.machine.name = "seed000-8node";  // a custom run's default
    if (costs_->count() > 0) config.costs_file = costs_path_;
    return config;
  }

  // `config` with the command line's overrides, paths made absolute and a machine read from a
  // file, sysfs or hwloc written inline, so that the file means the same wherever it is read.
  // `loaded`: that machine, when it was loaded already (a file may be stdin: it is read once).
  experiment_config written_config(experiment_config config, const loaded_topology* loaded = nullptr) const {
    machine_request& m = config.machine;
    if (m.file || m.sysfs || m.hwloc || m.hwloc_xml) {
      const loaded_topology t = loaded != nullptr ? *loaded : load_machine(m);
      m = machine_request{};
      m.topology_json = numaplace::formats::topology_json(t.topology, t.source, t.notes).dump();
      m.topology_json_source = t.source;
    }
    if (config.costs_file) config.costs_file = std::filesystem::absolute(*config.costs_file).string();
    if (!stacks_.empty()) config.stacks = stacks_;
    if (runs_) config.runs = runs_;
    if (seed_) config.seed = seed_;
    if (threads_ != 0) config.threads = threads_;
    if (numa_balancing_) config.numa_balancing = numa_balancing_;
    if (demotion_) config.demotion = true;
    return config;
  }

  // A custom run's request (sim::sweep_report::request): what decides its results, so that --merge
  // can tell a part of another experiment; the worker threads and where files were do not.
  std::string request_of(const experiment_config& requested, const loaded_topology& machine, const sim_request& rq) const {
    nlohmann::ordered_json config = experiment_config_json(written_config(requested, &machine));
    nlohmann::ordered_json charged = numaplace::formats::machine_costs_json(costs_in_use(rq));
    nlohmann::ordered_json request = nlohmann::ordered_json::object();
    for (auto& [key, value] : config.items()) {
      if (!is_stamp_key(key) && key != "threads" && key != "costs") request[key] = std::move(value);
    }
    nlohmann::ordered_json& costs = request["costs"] = nlohmann::ordered_json::object();
    for (auto& [key, value] : charged.items()) {
      if (!is_stamp_key(key)) costs[key] = std::move(value);
    }
    // The costs and workloads above are the unscaled ones: what --assume scaled is part of the request.
    if (!rq.assumptions.empty()) {
      nlohmann::ordered_json& scaled = request["assumptions"] = nlohmann::ordered_json::array();
      for (const auto& a : rq.assumptions) scaled.push_back({{"name", a.name}, {"factor", a.factor}});
    }
    return request.dump();
  }

  // An experiment file's sweep, its machine loaded like the command line's.
  loaded_topology load_config(const experiment_config& config, sim_request& rq) const {
    loaded_topology t = load_machine(config.machine);
    rq.machine = t.topology;
    rq.machine_source = t.source;
    attach_costs(rq, config.costs_file);
    rq.loads = config.workloads;
    rq.threads_per_core = config.threads_per_core;
    rq.default_cpus_per_node = config.default_cpus_per_node;
    rq.costs = config.cost_model;
    rq.stacks = config.stacks;
    rq.runs = config.runs;
    rq.seed = config.seed;
    if (config.threads) rq.threads = *config.threads;
    if (config.numa_balancing) rq.tiering.numa_balancing = *config.numa_balancing;
    if (config.demotion) rq.tiering.demotion = *config.demotion;
    return t;
  }

  static void attach_costs(sim_request& rq, const std::optional<std::string>& costs_path) {
    if (costs_path) {
      rq.hardware = numaplace::formats::parse_machine_costs_for(read_input(*costs_path, "a JSON machine-costs file"),
                                                               *costs_path, *rq.machine, rq.machine_source);
    } else if (const std::string_view preset = "preset "; rq.machine_source.starts_with(preset)) {
      rq.hardware = numaplace::sim::hardware_preset(std::string_view(rq.machine_source).substr(preset.size()));
    }
  }

  // The costs a run charges: given, measured, or derived from SLIT as the simulator would.
  static numaplace::sim::machine_costs costs_in_use(const sim_request& rq) {
    if (rq.hardware) return *rq.hardware;
    std::vector<std::size_t> cpus;
    for (numaplace::node_index i = 0; i < rq.machine->node_count(); ++i) cpus.push_back(rq.machine->cpus(i).size());
    return numaplace::sim::from_slit(*rq.machine, cpus);
  }

  static void print_assumptions() {
    const auto names = sim_assumption_names();
    std::size_t width = 0;
    for (const auto& [name, what] : names) width = std::max(width, name.size());
    fmt::print("Assumed constants --assume NAME=FACTOR scales (each in every experiment that has it):\n");
    for (const auto& [name, what] : names) fmt::print("  {:<{}}  {}\n", name, width, what);
  }

  loaded_topology load_topology(sim_request& rq) const {
    machine_request r = machine_.request();
    if (!machine_.given()) r.name = "seed000-8node";  // a custom run's default
    loaded_topology t = load_machine(r);
    rq.machine = t.topology;
    rq.machine_source = t.source;
    return t;
  }

  CLI::App* app_;
  topology_source machine_;
  std::vector<std::string> presets_;
  bool list_experiments_ = false;
  std::vector<std::string> workloads_;
  CLI::Option* costs_ = nullptr;
  CLI::Option* config_ = nullptr;
  CLI::Option* merge_ = nullptr;
  std::vector<std::string> merge_paths_;
  std::string config_path_;
  std::string costs_path_;
  bool costs_json_ = false;
  bool config_json_ = false;
  std::vector<std::string> stacks_;
  std::optional<unsigned> runs_;
  std::optional<std::uint64_t> seed_;
  unsigned threads_ = 0;
  std::optional<std::string> shard_;
  std::vector<std::string> assumptions_;
  bool json_ = false, csv_ = false, timeline_ = false, per_run_ = false, progress_ = false, check_ = false;
  std::optional<unsigned> numa_balancing_;
  bool demotion_ = false;
  std::optional<double> max_memory_gib_, max_cpu_hours_;
  std::optional<std::string> plot_dir_;
};

}  // namespace

std::unique_ptr<command> make_sim_command(CLI::App& parent) { return std::make_unique<sim_command>(parent); }

}  // namespace numaplace_cli
