#include "run_command.hpp"

// `numaplace run -w NCPUS[:MB] -- COMMAND`: the launcher. The nodes are the ones `advise -w`
// would name (numaplace::choose_job_nodes, job_nodes.hpp), taken from what this process may
// use (numaplace::os::usable_machine: its affinity, cpuset and Mems_allowed) and the nodes'
// MemFree. Then, as numactl 2.0 does before execvp, this process is bound and replaced:
//  - CPUs: sched_setaffinity to the usable CPUs of those nodes; execve keeps the mask.
//  - memory: set_mempolicy (bind by default, or preferred, interleave, local); execve keeps it.
//  - OpenMP: OMP_PLACES (one place per node), OMP_PROC_BIND and OMP_NUM_THREADS, which libgomp
//    and libomp read once, before main, so only a launcher (or a re-exec) can set them. A value
//    the environment already has is kept: the user chose it.
// A command that cannot be found exits 127, one found but not runnable 126, as POSIX shells do.

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/memory_policy.hpp>
#include <numaplace/linux/status.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/job_nodes.hpp>
#include <numaplace/topology/memory_tiers.hpp>
#include <numaplace/topology/node_meminfo.hpp>
#include <numaplace/topology/numad_nodes.hpp>
#include <numaplace/topology/sysfs_smt.hpp>

#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace {

using numaplace::node_index;

constexpr std::uint64_t mib = 1024 * 1024;

// POSIX shells' codes for a command that is not there, and one that is there but cannot run
// (XCU 2.8.2, "Exit Status for Commands").
constexpr int exit_not_found = 127;
constexpr int exit_not_executable = 126;

enum class memory_policy { bind, preferred, interleave, local };

// numactl's option for each policy, as --dry-run prints it.
const char* numactl_option(memory_policy p) {
  switch (p) {
    case memory_policy::bind: return "membind";
    case memory_policy::preferred: return "preferred";
    case memory_policy::interleave: return "interleave";
    case memory_policy::local: return "localalloc";
  }
  return "?";
}

// The machine the job is placed on, as the launcher may use it.
struct launch_machine {
  numaplace::dynamic_topology topology;
  std::string source;                      // "this machine", "file m.txt", ...
  std::vector<std::vector<unsigned>> cpus;  // the CPUs it may bind to, per node index
  std::vector<bool> memory;                 // whether it may bind memory there, per node index
  numaplace::node_supply supply;
};

// CPUs as `advise -w` counts them, so that `run -w N` takes the nodes `advise -w N` names: an
// SMT sibling beyond a core's first counts numad 0.5's default 20 % (numad_cpu_total), where
// the machine says how many threads a core has.
unsigned counted_cpus(std::size_t logical, std::optional<unsigned> threads_per_core) {
  numaplace::numad_settings smt;
  smt.threads_per_core = threads_per_core.value_or(1);
  return static_cast<unsigned>(numaplace::numad_cpu_total(logical, smt) / 100);
}

// This process on this machine: the CPUs and memory its affinity, cpuset and Mems_allowed
// leave it, and each node's MemFree.
launch_machine this_process_machine() {
  const numaplace::os::usable_machine m = numaplace::os::usable_machine::this_process();
  launch_machine out{m.topology(), "this machine", {}, {}, {}};
  const auto threads_per_core = numaplace::load::sysfs_threads_per_core(default_sysfs_root);
  for (node_index n = 0; n < m.node_count(); ++n) {
    out.cpus.emplace_back(m.cpus(n).begin(), m.cpus(n).end());
    out.memory.push_back(m.memory_allowed(n));
    out.supply.cpus.push_back(counted_cpus(m.cpus(n).size(), threads_per_core));
    out.supply.free_bytes.push_back(
        m.memory_allowed(n)
            ? numaplace::load::node_meminfo_bytes(default_sysfs_root, m.topology().id_of(n), "MemFree")
            : 0);
    out.supply.memory_known = out.supply.memory_known || m.topology().memory_bytes(n) > 0;
    out.supply.lower_tier.push_back(!m.top_tier(n));
  }
  return out;
}

// A machine a source describes, taken as it lists itself: every CPU and every node with memory.
// Free memory as `advise` counts it: MemFree of a sysfs tree, a numactl dump's "free:" lines,
// else the node sizes.
launch_machine described_machine(loaded_topology loaded, const machine_request& request) {
  const auto threads_per_core =
      request.sysfs ? numaplace::load::sysfs_threads_per_core(*request.sysfs) : loaded.threads_per_core;
  launch_machine out{std::move(loaded.topology), loaded.source, {}, {}, {}};
  const numaplace::dynamic_topology& t = out.topology;
  for (node_index n = 0; n < t.node_count(); ++n) {
    std::vector<unsigned> cpus;
    for (const auto cpu : t.cpus(n)) cpus.push_back(static_cast<unsigned>(cpu));
    out.supply.cpus.push_back(counted_cpus(cpus.size(), threads_per_core));
    out.cpus.push_back(std::move(cpus));
    out.memory.push_back(t.has_memory(n));
    std::uint64_t free = 0;
    if (t.has_memory(n)) {
      free = request.sysfs                 ? numaplace::load::node_meminfo_bytes(*request.sysfs, t.id_of(n), "MemFree")
             : !loaded.free_bytes.empty() ? loaded.free_bytes[n]
                                          : t.memory_bytes(n);
    }
    out.supply.free_bytes.push_back(free);
    out.supply.memory_known = out.supply.memory_known || t.memory_bytes(n) > 0;
  }
  out.supply.lower_tier = numaplace::lower_tier_flags(t, loaded.memory_tiers);
  return out;
}

// "node 0: CPUs 0-1, 15995 MiB (12011 MiB free)", each node the launcher may use something of.
std::string describe_nodes(const launch_machine& m) {
  std::string text;
  for (node_index n = 0; n < m.topology.node_count(); ++n) {
    if (m.cpus[n].empty() && !m.memory[n]) continue;
    if (!text.empty()) text += "; ";
    text += fmt::format("node {}: ", m.topology.id_of(n));
    text += m.cpus[n].empty() ? std::string("no CPUs") : "CPUs " + numaplace::format_cpulist(m.cpus[n]);
    if (m.memory[n]) {
      text += fmt::format(", {} MiB", m.topology.memory_bytes(n) / mib);
      if (m.supply.free_bytes[n] != m.topology.memory_bytes(n)) text += fmt::format(" ({} MiB free)", m.supply.free_bytes[n] / mib);
    } else {
      text += ", no memory";
    }
  }
  return text.empty() ? std::string("no node") : text;
}

// A job larger than every node together is refused, naming the nodes and what each offers.
void check_fits(const launch_machine& m, const numaplace::job_demand& d, const std::string& want) {
  std::size_t cpus = 0;
  std::uint64_t memory = 0;
  for (node_index n = 0; n < m.topology.node_count(); ++n) {
    cpus += m.cpus[n].size();
    if (m.memory[n]) memory = numaplace::detail::saturating_add(memory, m.topology.memory_bytes(n));
  }
  const bool cpus_short = d.cpus > cpus;
  const bool memory_short = d.mib && m.supply.memory_known && *d.mib > memory / mib;
  if (!cpus_short && !memory_short) return;
  const auto cpu_count = [](std::size_t n) { return fmt::format("{} CPU{}", n, n == 1 ? "" : "s"); };
  const std::string asked = cpus_short ? cpu_count(d.cpus) : fmt::format("{} MiB", *d.mib);
  const std::string has = cpus_short ? cpu_count(cpus) : fmt::format("{} MiB", memory / mib);
  throw usage_error(fmt::format("-w {}: the job does not fit: it asks for {}, and {} has {} this process may use ({})",
                                want, asked, m.source, has, describe_nodes(m)));
}

numaplace::job_demand parse_demand(const std::string& text) {
  try {
    return numaplace::parse_job_demand(text);
  } catch (const std::invalid_argument& bad) {
    throw usage_error(std::string("-w ") + bad.what());
  }
}

// What the launcher applies before it runs the command.
struct binding {
  std::vector<unsigned> cpus;        // sched_setaffinity
  std::vector<unsigned> cpu_nodes;   // the node ids those CPUs are on
  memory_policy policy = memory_policy::bind;
  std::vector<unsigned> memory_nodes;  // the policy's node ids (preferred: one; local: none)
  std::vector<std::pair<std::string, std::string>> environment;  // OpenMP's, in setting order
  std::vector<std::string> kept;     // OpenMP variables the environment already set
};

binding bind_for(const launch_machine& m, const std::vector<node_index>& nodes, unsigned threads,
                 memory_policy policy) {
  binding b;
  b.policy = policy;
  std::vector<unsigned> with_memory;
  for (const node_index n : nodes) {
    const auto id = static_cast<unsigned>(m.topology.id_of(n));
    if (!m.cpus[n].empty()) b.cpu_nodes.push_back(id);
    if (m.memory[n]) with_memory.push_back(id);
    b.cpus.insert(b.cpus.end(), m.cpus[n].begin(), m.cpus[n].end());
  }
  std::sort(b.cpus.begin(), b.cpus.end());
  std::sort(b.cpu_nodes.begin(), b.cpu_nodes.end());
  if (policy == memory_policy::preferred && !with_memory.empty()) {
    b.memory_nodes = {with_memory.front()};  // circle order: the centre, or the nearest with memory
  } else if (policy != memory_policy::local) {
    b.memory_nodes = with_memory;
    std::sort(b.memory_nodes.begin(), b.memory_nodes.end());
  }
  // One place per node, as `advise --omp-places` prints them: close on one node, spread over
  // several (numaplace::adapters::advise_openmp says why).
  const std::pair<std::string, std::string> omp[] = {
      {"OMP_PLACES", numaplace::adapters::omp_places(m.cpus, nodes)},
      {"OMP_PROC_BIND", b.cpu_nodes.size() == 1 ? "close" : "spread"},
      {"OMP_NUM_THREADS", std::to_string(threads)}};
  for (const auto& [name, value] : omp) {
    if (const char* set = std::getenv(name.c_str()); set != nullptr) {
      b.kept.push_back(name);
      b.environment.emplace_back(name, set);
    } else {
      b.environment.emplace_back(name, value);
    }
  }
  return b;
}

// A word as a POSIX shell reads it back: bare when nothing in it is special, else quoted.
std::string shell_word(const std::string& word) {
  const bool bare = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                            "0123456789_./:=,@%+-") == std::string::npos;
  if (bare) return word;
  std::string q = "'";
  for (const char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// numactl --show's words, then the same binding as one numactl command line.
void print_binding(const binding& b, const std::vector<std::string>& command) {
  const auto list = [](const std::vector<unsigned>& v) {
    return v.empty() ? std::string("none") : numaplace::format_cpulist(v);
  };
  fmt::print("policy: {}\n", numactl_option(b.policy));
  fmt::print("physcpubind: {}\n", list(b.cpus));
  fmt::print("cpunodebind: {}\n", list(b.cpu_nodes));
  fmt::print("memory nodes: {}\n", b.policy == memory_policy::local ? std::string("local") : list(b.memory_nodes));
  std::string line;
  for (const auto& [name, value] : b.environment) {
    const bool kept = std::find(b.kept.begin(), b.kept.end(), name) != b.kept.end();
    fmt::print("{}={}{}\n", name, value, kept ? "  (kept from the environment)" : "");
    line += name + "=" + shell_word(value) + " ";
  }
  line += "numactl --physcpubind=" + list(b.cpus);
  line += b.policy == memory_policy::local ? std::string(" --localalloc")
                                            : fmt::format(" --{}={}", numactl_option(b.policy), list(b.memory_nodes));
  if (!command.empty()) {
    line += " --";
    for (const std::string& word : command) line += " " + shell_word(word);
  }
  fmt::print("as numactl: {}\n", line);
}

void apply(const binding& b) {
  namespace os = numaplace::os;
  os::throw_if_failed(os::pin_this_thread(b.cpus));
  switch (b.policy) {
    case memory_policy::bind: os::throw_if_failed(os::bind_thread_memory(b.memory_nodes)); break;
    case memory_policy::interleave: os::throw_if_failed(os::interleave_thread_memory(b.memory_nodes)); break;
    case memory_policy::preferred:
      if (b.memory_nodes.empty()) throw std::runtime_error("--preferred: none of the job's nodes has memory");
      os::throw_if_failed(os::prefer_thread_memory(b.memory_nodes.front()));
      break;
    case memory_policy::local: os::throw_if_failed(os::local_thread_memory()); break;
  }
  for (const auto& [name, value] : b.environment) {
    if (::setenv(name.c_str(), value.c_str(), 1) != 0) {
      throw std::runtime_error(fmt::format("setenv {}: {}", name, std::strerror(errno)));
    }
  }
}

// Replaces this process with `command`; returns only when it cannot, with the shell's code.
int execute(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execvp(argv[0], argv.data());
  const int error = errno;
  if (error == ENOENT) {
    fmt::print(stderr, "numaplace: error: run: {}: command not found\n", command.front());
    return exit_not_found;
  }
  fmt::print(stderr, "numaplace: error: run: {}: {}\n", command.front(), std::strerror(error));
  return exit_not_executable;
}

class run_command final : public command {
 public:
  explicit run_command(CLI::App& parent)
      : app_(parent.add_subcommand("run", "Place a job of NCPUS CPUs and MB MiB as advise -w does, bind it there and "
                                          "run it, as numactl does")),
        source_(*app_, "this machine, as this process may use it") {
    app_->footer(
        "The binding: sched_setaffinity to the CPUs of the nodes advise -w names (those this process may use),\n"
        "set_mempolicy to their memory, and OMP_PLACES (one place per node), OMP_PROC_BIND and OMP_NUM_THREADS\n"
        "unless the environment sets them; then the command replaces numaplace, keeping all three.\n"
        "There is no --stack: the command runs under this kernel's own scheduler and memory policy, which no\n"
        "option can swap; `numaplace sim --stack` compares policy stacks.\n"
        "Another machine's source (--machine, --generate, --hwloc-synthetic) needs --dry-run; a file, sysfs tree or\n"
        "hwloc XML of this machine is bound as it lists itself, and the kernel refuses what this machine lacks.\n"
        "Examples:\n"
        "  numaplace run -w 1:64 -- grep _allowed_list /proc/self/status   1 CPU and 64 MiB, bound, then grep\n"
        "  numaplace run -w 1 --interleave -- sh -c 'echo $OMP_PLACES'      memory interleaved; OpenMP's places\n"
        "  numaplace run -w 8:4096 --machine seed000-8node --dry-run -- ./app   the binding on a named machine\n"
        "Exit codes: the command's own; 127 the command was not found, 126 it could not run;\n"
        "1 the binding failed, 2 usage or bad input (a job that does not fit included).");
    app_->add_option("-w,--want", want_, "The job: NCPUS[:MB], as numad -w and advise -w take it (e.g. 4 or 4:2048)")
        ->required()
        ->type_name("NCPUS[:MB]");
    auto* group = app_->add_option_group("memory policy", "Where the job's memory comes from (default: --membind)");
    group->add_flag("--membind", membind_, "Only from the job's nodes (MPOL_BIND)");
    group->add_flag("--preferred", preferred_,
                    "From the job's first node with memory while it has free memory, then the nearest others "
                    "(MPOL_PREFERRED)");
    group->add_flag("--interleave", interleave_, "Page by page over the job's nodes (MPOL_INTERLEAVE)");
    group->add_flag("--localalloc", local_, "From the node each thread runs on (MPOL_LOCAL)");
    group->require_option(0, 1);
    app_->add_flag("--dry-run,--print", dry_run_,
                   "Print the binding (numactl --show's words, then as one numactl command line) and run nothing");
    app_->add_option("command", command_, "The command and its arguments, after --")->type_name("-- COMMAND [ARGS...]");
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (source_.list_machines_requested()) {
      print_presets();
      return exit_ok;
    }
    const numaplace::job_demand d = parse_demand(want_);
    if (command_.empty() && !dry_run_) {
      throw usage_error("run: no command to run; give it after --, e.g. numaplace run -w 4 -- ./app");
    }
    const launch_machine m = load_machine_for_run();
    check_fits(m, d, want_);
    const numaplace::job_nodes chosen = numaplace::choose_job_nodes(m.topology, m.supply, d);
    if (!chosen.enough) {
      fmt::print(stderr, "note: {} MiB free on all nodes together is less than the {} MiB asked for; binding every node\n",
                 chosen.free_bytes / mib, *d.mib);
    }
    if (d.mib && !m.supply.memory_known) {
      fmt::print(stderr, "note: {} gives no node memory sizes; the {} MB are not counted\n", m.source, *d.mib);
    }
    const binding b = bind_for(m, chosen.nodes, d.cpus, policy());
    if (dry_run_) {
      print_binding(b, command_);
      return exit_ok;
    }
    apply(b);
    return execute(command_);
  }

 private:
  memory_policy policy() const {
    if (preferred_) return memory_policy::preferred;
    if (interleave_) return memory_policy::interleave;
    if (local_) return memory_policy::local;
    return memory_policy::bind;
  }

  launch_machine load_machine_for_run() const {
    const machine_request r = source_.request();
    if (!source_.given()) return this_process_machine();
    if (!dry_run_ && (r.name || r.generate || r.hwloc_synthetic)) {
      throw usage_error(
          "run: --machine, --generate and --hwloc-synthetic describe another machine, while the binding would be "
          "applied to this one; add --dry-run to see it");
    }
    return described_machine(source_.load(), r);
  }

  CLI::App* app_;
  topology_source source_;
  std::string want_;
  bool membind_ = false;
  bool preferred_ = false;
  bool interleave_ = false;
  bool local_ = false;
  bool dry_run_ = false;
  std::vector<std::string> command_;
};

}  // namespace

std::unique_ptr<command> make_run_command(CLI::App& parent) { return std::make_unique<run_command>(parent); }

}  // namespace numaplace_cli
