#include "advise_command.hpp"

// `numaplace advise -w NCPUS[:MB]`: numad's question, answered by the library's rule
// (numaplace/topology/job_nodes.hpp, which says how it differs from numad's), or with
// --numad by numad 0.5's own rule (numaplace/topology/numad_nodes.hpp). The command gathers
// what each node offers:
//  - CPUs: the CPUs each node lists; where the machine says how many threads a core has
//    (this machine's or --sysfs's cpu0/topology/thread_siblings_list, hwloc's cores, or
//    --threads-per-core),
//    a sibling beyond a core's first counts -t percent of a CPU, as numad counts it. A node
//    whose CPUs are unknown (a bare distance matrix) has --cpus-per-node.
//  - idle CPU, for --numad on this machine: /proc/stat sampled for 2 s, as numad does (elsewhere,
//    and with --assume-idle, every CPU counts idle).
//  - free memory: MemFree of each node's meminfo when the machine is a sysfs tree (this
//    machine, --sysfs), plus Inactive(file) for --numad (numad -C 1, its default); the "free:"
//    lines of a numactl dump given as --file; any other machine file or preset has no free
//    figure, so its node sizes (or --memory-per-node) count.
// When the machine has fewer CPUs or less memory than asked, the command refuses (exit 2), or
// with --best-effort warns and advises every node, as numad answers every node.
// examples/programs/balancer/guest-session and test/vm/numad-advise ask numad and numaplace
// the same questions in the 8-node guest.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/job_nodes.hpp>
#include <numaplace/topology/memory_tiers.hpp>
#include <numaplace/topology/node_meminfo.hpp>
#include <numaplace/topology/numad_nodes.hpp>
#include <numaplace/topology/proc_stat_idle.hpp>
#include <numaplace/topology/sysfs_smt.hpp>
#include <numaplace/topology/text_input.hpp>

#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace {

using numaplace::node_index;

constexpr std::uint64_t mib = 1024 * 1024;

// "-w TEXT: ...": the library's complaint about the demand, as a usage error. numad's rule
// takes fractions of a CPU as numad does; numaplace's whole CPUs.
numaplace::numad_demand parse_demand(const std::string& text, bool numad) {
  try {
    if (numad) return numaplace::parse_numad_demand(text);
    const numaplace::job_demand d = numaplace::parse_job_demand(text);
    return {std::uint64_t{d.cpus} * 100, d.mib};
  } catch (const std::invalid_argument& bad) {
    const bool fraction = !numad && text.substr(0, text.find(':')).find('.') != std::string::npos;
    throw usage_error(std::string("-w ") + bad.what() + (fraction ? " (--numad takes fractions of a CPU, as numad does)" : ""));
  }
}

// What the command knows of each node, whichever rule then picks.
struct node_facts {
  std::vector<std::uint64_t> logical_cpus;  // by dense index
  std::vector<std::uint64_t> total_bytes;
  std::vector<std::uint64_t> free_bytes;
  std::optional<unsigned> threads_per_core;  // none: the machine does not say
  std::vector<node_index> scan_order;        // numad's listing order; empty: index order
  std::vector<std::optional<std::uint64_t>> idle_hundredths;  // sampled idle CPU; none: all idle
  bool memory_known = false;
};

class advise_command final : public command {
 public:
  explicit advise_command(CLI::App& parent)
      : app_(parent.add_subcommand("advise", "Advise nodes for a new job of NCPUS CPUs and MB MiB, as numad -w does")),
        source_(*app_) {
    app_->footer(
        "Examples:\n"
        "  numaplace advise -w 1:256                         nodes for a 1-CPU, 256 MiB job on this machine\n"
        "  numaplace advise -w 8:4096 --machine seed000-8node --numactl   numactl options for 8 CPUs, 4 GiB\n"
        "  numaplace advise --numad -w 8:4096 --machine seed000-8node   what numad -w 8:4096 answers there, idle\n"
        "How the default differs from numad -w (--numad follows numad 0.5): nodes join in whole distance\n"
        "circles around the best centre (numad takes them one by one); each node counts its MemFree (numad\n"
        "adds Inactive(file) and keeps 100 MB back per node); every CPU counts, idle or not (numad samples\n"
        "idle time for 2 s); the best centre needs the fewest nodes (numad scores nodes by free memory and\n"
        "CPU over distance squared). Both count an SMT sibling beyond a core's first as -t percent of a CPU.\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or bad input (a job larger than the machine\n"
        "too, unless --best-effort).");
    app_->add_option("-w,--want", want_, "The job: NCPUS[:MB], as numad -w takes it (e.g. 4 or 4:2048)")
        ->required()
        ->type_name("NCPUS[:MB]");
    auto* numactl = app_->add_flag("--numactl", numactl_, "Print numactl options: --cpunodebind=... --membind=...");
    app_->add_flag("--omp-places", omp_places_, "Print OMP_PLACES and OMP_PROC_BIND lines for the job's nodes")
        ->excludes(numactl);
    auto* numad = app_->add_flag("--numad", numad_,
                                 "Answer as numad 0.5 does: nodes one by one from its best centre, a 100 MB margin per "
                                 "node, Inactive(file) counted as free (see numaplace/topology/numad_nodes.hpp)");
    app_->add_flag("--best-effort", best_effort_,
                   "When the machine has fewer CPUs or less memory than asked, warn and advise every node, as numad "
                   "answers with the best nodes it has (default: refuse, exit 2)");
    app_->add_option("-t,--htt-percent", htt_percent_,
                     "What an SMT sibling beyond a core's first counts, in percent of a CPU, where the machine says "
                     "how many threads a core has (numad -t; default 20)")
        ->check(CLI::Range(0, 100));
    app_->add_option("-u,--target-utilization", target_utilization_,
                     "numad -u, 10-130 (default 85): numad 0.5 uses it for the processes it manages, never for -w, "
                     "so it changes no answer here")
        ->check(CLI::Range(10, 130))
        ->needs(numad);
    app_->add_option("-C,--inactive-file", inactive_file_,
                     "numad -C: 1 counts a node's Inactive(file) as free memory (default), 0 only MemFree")
        ->check(CLI::Range(0, 1))
        ->needs(numad);
    app_->add_flag("--assume-idle", assume_idle_,
                   "With --numad on this machine, count every CPU idle instead of sampling /proc/stat for 2 s as "
                   "numad does (a machine file or --sysfs tree is always taken as idle)")
        ->needs(numad);
    app_->add_option("--threads-per-core", threads_per_core_,
                     "Threads per core, for a machine that does not say (this machine and --sysfs read "
                     "cpu0/topology/thread_siblings_list, hwloc sources the PUs of PU 0's core)")
        ->check(CLI::Range(1, 64));
    app_->add_option("--cpus-per-node", cpus_per_node_,
                     "CPUs of each node whose CPUs the machine does not give (a bare distance matrix)")
        ->check(CLI::Range(1, 65536));
    app_->add_option("--memory-per-node", memory_per_node_,
                     "Memory of each node whose size the machine does not give: bytes, or K, M, G, T (e.g. 64G)")
        ->type_name("SIZE");
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (source_.list_machines_requested()) {
      print_presets();
      return exit_ok;
    }
    const numaplace::numad_demand d = parse_demand(want_, numad_);
    const loaded_topology loaded = source_.load();
    const numaplace::dynamic_topology& t = loaded.topology;
    if (!numaplace::formats::knows_cpus(t) && cpus_per_node_ == 0) {
      throw usage_error(fmt::format("{}: {}; or give advise --cpus-per-node N (and --memory-per-node SIZE)",
                                    loaded.source, numaplace::formats::missing_cpus_note()));
    }
    if (omp_places_ && !numaplace::formats::knows_cpus(t)) {
      throw usage_error(fmt::format("--omp-places names CPU numbers, which {} does not give ({})", loaded.source,
                                    numaplace::formats::missing_cpus_note()));
    }
    const node_facts facts = facts_of(loaded);
    numaplace::numad_settings settings;
    settings.threads_per_core = threads_per_core_ != 0 ? threads_per_core_ : facts.threads_per_core.value_or(1);
    settings.htt_percent = htt_percent_;
    settings.target_utilization = target_utilization_;
    check_fits(t, facts, settings, d, loaded.source);
    const std::vector<node_index> nodes = numad_ ? advise_as_numad(t, facts, settings, d, loaded.source)
                                                 : advise_in_circles(t, facts, settings, d, loaded);
    note_lower_tiers(t, nodes, loaded.memory_tiers);
    print_advice(t, nodes);
    return exit_ok;
  }

 private:
  // The sysfs tree the machine was read from, when it was: --sysfs, or this machine's own
  // (no source given, or --hwloc, which reads this machine too). Any other source describes
  // another machine, whose free memory this one cannot know: its node sizes count instead.
  std::optional<std::filesystem::path> sysfs_root(const numaplace::dynamic_topology& t) const {
    const machine_request r = source_.request();
    if (r.sysfs) return *r.sysfs;
    if (r.name || r.file || r.generate || r.hwloc_xml || r.hwloc_synthetic || r.topology_json) return std::nullopt;
    // This machine: sysfs when it lists the nodes (else the source fell back to hwloc).
    const std::filesystem::path root = default_sysfs_root;
    std::error_code ec;
    if (t.node_count() == 0 || !std::filesystem::is_directory(root / ("node" + std::to_string(t.id_of(0))), ec)) {
      return std::nullopt;
    }
    return root;
  }

  // numad lists /sys/devices/system/node as readdir gives it (kernfs: hash order); a recorded
  // tree (--sysfs) lost that order on disk, so only this machine's own listing counts.
  static std::vector<node_index> listing_order(const numaplace::dynamic_topology& t,
                                               const std::filesystem::path& root) {
    std::vector<node_index> order;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("node") || name.size() == 4 ||
          name.find_first_not_of("0123456789", 4) != std::string::npos || name.size() > 9) {
        continue;
      }
      const auto i = t.index_of(static_cast<numaplace::node_id>(std::stoi(name.substr(4))));
      if (!i) return {};
      order.push_back(*i);
    }
    if (ec || order.size() != t.node_count()) return {};
    return order;
  }

  std::uint64_t memory_per_node_bytes() const {
    if (memory_per_node_.empty()) return 0;
    return numaplace::load::detail::parse_memory_size(memory_per_node_, "--memory-per-node", "--memory-per-node", 0);
  }

  // CPUs, memory and free memory of every node, from the source and the per-node options.
  node_facts facts_of(const loaded_topology& loaded) const {
    const numaplace::dynamic_topology& t = loaded.topology;
    node_facts f;
    const auto root = sysfs_root(t);
    const bool dump_says = !root && !loaded.free_bytes.empty();
    const std::uint64_t memory_default = memory_per_node_bytes();
    for (node_index i = 0; i < t.node_count(); ++i) {
      const std::uint64_t cpus = !t.has_cpu(i) ? 0 : !t.cpus(i).empty() ? t.cpus(i).size() : cpus_per_node_;
      const std::uint64_t total = !t.has_memory(i) ? 0 : t.memory_bytes(i) != 0 ? t.memory_bytes(i) : memory_default;
      std::uint64_t free = total;
      if (total != 0 && root) {
        const numaplace::node_id id = t.id_of(i);
        free = numaplace::load::node_meminfo_bytes(*root, id, "MemFree");
        // numad adds each figure in whole MiB (kB / 1024 apiece).
        if (numad_ && inactive_file_ == 1) {
          free = free / mib * mib + numaplace::load::node_meminfo_bytes(*root, id, "Inactive(file)") / mib * mib;
        }
      } else if (total != 0 && dump_says) {
        free = loaded.free_bytes[i];
      }
      f.logical_cpus.push_back(cpus);
      f.total_bytes.push_back(total);
      f.free_bytes.push_back(free);
      f.memory_known = f.memory_known || total > 0;
    }
    if (root) {
      f.threads_per_core = numaplace::load::sysfs_threads_per_core(*root);
      if (!source_.request().sysfs) f.scan_order = listing_order(t, *root);
    }
    if (!f.threads_per_core) f.threads_per_core = loaded.threads_per_core;  // hwloc's
    f.idle_hundredths.assign(t.node_count(), std::nullopt);
    if (numad_ && root && !source_.request().sysfs && !assume_idle_) sample_idle(t, f);
    return f;
  }

  // numad's idle sample on this machine: /proc/stat twice, 2 s apart (numad.c: main's -w
  // path, update_nodes; sleep(2); update_nodes).
  static void sample_idle(const numaplace::dynamic_topology& t, node_facts& f) {
    const std::string stat = "/proc/stat";
    const auto read = [&] {
      return numaplace::load::proc_stat_idle_ticks(numaplace::load::detail::read_text(stat), stat);
    };
    const auto start = std::chrono::steady_clock::now();
    const auto before = read();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const auto after = read();
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    const auto hundredths = static_cast<std::uint64_t>(elapsed.count() / 10);
    for (node_index i = 0; i < t.node_count(); ++i) {
      f.idle_hundredths[i] = numaplace::load::idle_hundredths(t.cpus(i), before, after, hundredths);
    }
  }

  // Refuses a job larger than the machine (CPUs as the chosen rule counts them), or warns
  // and goes on with --best-effort.
  void check_fits(const numaplace::dynamic_topology& t, const node_facts& f, const numaplace::numad_settings& s,
                  const numaplace::numad_demand& d, const std::string& source) const {
    std::uint64_t hundredths = 0, logical = 0, total = 0;
    for (node_index i = 0; i < t.node_count(); ++i) {
      hundredths += numaplace::numad_cpu_total(f.logical_cpus[i], s);
      logical += f.logical_cpus[i];
      // Saturating: a sysfs tree may claim nodes of nearly 2^64 bytes each.
      total += std::min(f.total_bytes[i], std::numeric_limits<std::uint64_t>::max() - total);
    }
    std::string problem;
    if (d.cpu_hundredths > hundredths) {
      problem = fmt::format("-w {}: asks for {} CPUs but {} has {}", want_, cpus_text(d.cpu_hundredths), source,
                            cpus_text(hundredths));
      if (hundredths != logical * 100) {
        problem += fmt::format(" ({} logical CPUs, {} threads per core, a sibling counting {} %)", logical,
                               s.threads_per_core, s.htt_percent);
      }
    } else if (d.mib && f.memory_known && *d.mib > total / mib) {
      problem = fmt::format("-w {}: asks for {} MiB but {} has {} MiB in all", want_, *d.mib, source, total / mib);
    }
    if (problem.empty()) return;
    if (!best_effort_) throw usage_error(problem + " (--best-effort advises every node instead, as numad does)");
    fmt::print(stderr, "warning: {}; --best-effort: advising every node\n", problem);
  }

  // Hundredths of a CPU as people write CPUs: "12", "9.6".
  static std::string cpus_text(std::uint64_t hundredths) {
    std::string text = std::to_string(hundredths / 100);
    if (hundredths % 100 != 0) {
      text += fmt::format(".{:02}", hundredths % 100);
      if (text.back() == '0') text.pop_back();
    }
    return text;
  }

  std::vector<node_index> advise_in_circles(const numaplace::dynamic_topology& t, const node_facts& f,
                                            const numaplace::numad_settings& s, const numaplace::numad_demand& want,
                                            const loaded_topology& loaded) const {
    const std::string& source = loaded.source;
    const numaplace::job_demand d{static_cast<unsigned>(want.cpu_hundredths / 100), want.mib};
    numaplace::node_supply supply;
    // A slower tier's node is memory to spill into, not a home (job_nodes.hpp); numad's rule
    // (--numad) knows no tiers and is left as numad has it.
    supply.lower_tier = numaplace::lower_tier_flags(t, loaded.memory_tiers);
    for (node_index i = 0; i < t.node_count(); ++i) {
      supply.cpus.push_back(numaplace::numad_cpu_total(f.logical_cpus[i], s) / 100);
      supply.free_bytes.push_back(f.free_bytes[i]);
    }
    supply.memory_known = f.memory_known;
    const numaplace::job_nodes best = numaplace::choose_job_nodes(t, supply, d);
    if (!best.enough && best.cpus >= d.cpus) {
      fmt::print(stderr, "note: {} MiB free on all nodes together is less than the {} MiB asked for; advising every node\n",
                 best.free_bytes / mib, *d.mib);
    }
    if (d.mib && !f.memory_known) {
      fmt::print(stderr, "note: {} gives no node memory sizes; the {} MB are not counted\n", source, *d.mib);
    }
    return best.nodes;
  }

  std::vector<node_index> advise_as_numad(const numaplace::dynamic_topology& t, const node_facts& f,
                                          const numaplace::numad_settings& s, const numaplace::numad_demand& d,
                                          const std::string& source) const {
    if (!f.memory_known) {
      throw usage_error(fmt::format("{} gives no node memory sizes, which numad's rule divides by; give --memory-per-node SIZE",
                                    source));
    }
    if (!f.threads_per_core && threads_per_core_ == 0) {
      fmt::print(stderr,
                 "note: {} does not say how many threads a core has: every logical CPU counts whole (numad reads "
                 "cpu0/topology/thread_siblings; give --threads-per-core N)\n",
                 source);
    }
    std::vector<numaplace::numad_node> nodes;
    for (node_index i = 0; i < t.node_count(); ++i) {
      nodes.push_back({f.total_bytes[i] / mib, f.free_bytes[i] / mib, f.logical_cpus[i], f.idle_hundredths[i]});
    }
    const numaplace::numad_choice c =
        numaplace::numad_pick_nodes(t, nodes, d.cpu_hundredths, d.mib.value_or(0), s, f.scan_order);
    if (!c.met) {
      std::string short_of;
      if (c.mib_left > 0) short_of = fmt::format("{} MiB (numad keeps 100 MB of each node)", c.mib_left);
      if (c.cpu_left > 0) {
        short_of += fmt::format("{}{}.{:02} CPUs{}", short_of.empty() ? "" : " and ", c.cpu_left / 100, c.cpu_left % 100,
                                f.idle_hundredths.front() ? " (of the CPUs found idle over 2 s)" : "");
      }
      fmt::print(stderr, "note: numad's rule took every node and -w {} is still short{}; advising every node, as numad does\n",
                 want_, short_of.empty() ? "" : " of " + short_of);
    }
    return c.nodes;
  }

  // The kernel ranks a node below the top tier (topology/memory_tiers.hpp) as slower memory,
  // whatever its distance says: say so when the advice puts the job's memory there.
  static void note_lower_tiers(const numaplace::dynamic_topology& t, const std::vector<node_index>& nodes,
                               const std::vector<numaplace::memory_tier>& tiers) {
    const std::vector<bool> lower = numaplace::lower_tier_flags(t, tiers);
    const auto is_lower = [&](unsigned id) {
      const auto n = t.index_of(static_cast<numaplace::node_id>(id));
      return n && lower[*n];
    };
    // Tiers are fastest first and the lower ones a suffix: the top tier ends where they begin.
    const auto first_lower = std::find_if(tiers.begin(), tiers.end(), [&](const numaplace::memory_tier& k) {
      return !k.nodes.empty() && is_lower(k.nodes.front());
    });
    if (first_lower == tiers.begin() || first_lower == tiers.end()) return;
    std::vector<unsigned> top_nodes;
    for (auto k = tiers.begin(); k != first_lower; ++k) top_nodes.insert(top_nodes.end(), k->nodes.begin(), k->nodes.end());
    std::sort(top_nodes.begin(), top_nodes.end());
    for (const node_index i : nodes) {
      if (!lower[i]) continue;
      const auto id = static_cast<unsigned>(t.id_of(i));
      const auto tier = std::find_if(first_lower, tiers.end(), [&](const numaplace::memory_tier& k) {
        return std::find(k.nodes.begin(), k.nodes.end(), id) != k.nodes.end();
      });
      fmt::print(stderr,
                 "note: node {} is in memory tier {}, below tier {} (nodes {}): the job's memory there is slower "
                 "(with numa_balancing=2 the kernel promotes its hot pages to a faster node)\n",
                 id, tier->id, std::prev(first_lower)->id, numaplace::format_cpulist(top_nodes));
    }
  }

  void print_advice(const numaplace::dynamic_topology& t, const std::vector<node_index>& nodes) const {
    std::vector<unsigned> all, with_cpus, with_memory;
    for (const node_index i : nodes) {
      const auto id = static_cast<unsigned>(t.id_of(i));
      all.push_back(id);
      if (!t.cpus(i).empty() || (t.has_cpu(i) && cpus_per_node_ != 0)) with_cpus.push_back(id);
      if (t.has_memory(i)) with_memory.push_back(id);
    }
    if (numactl_) {
      // numactl refuses a --cpunodebind node without CPUs and a --membind node without memory.
      fmt::print("--cpunodebind={} --membind={}\n", numaplace::format_cpulist(with_cpus),
                 numaplace::format_cpulist(with_memory));
    } else if (omp_places_) {
      // One place per node in circle order from the centre; one node binds close, several spread
      // (see numaplace::adapters::advise_openmp for why).
      fmt::print("OMP_PLACES={}\nOMP_PROC_BIND={}\n", numaplace::adapters::omp_places(t, nodes),
                 with_cpus.size() == 1 ? "close" : "spread");
    } else {
      fmt::print("{}\n", numaplace::format_cpulist(all));
    }
  }

  CLI::App* app_;
  topology_source source_;
  std::string want_;
  bool numactl_ = false;
  bool omp_places_ = false;
  bool numad_ = false;
  bool best_effort_ = false;
  bool assume_idle_ = false;
  unsigned htt_percent_ = 20;
  unsigned target_utilization_ = 85;
  unsigned inactive_file_ = 1;
  unsigned threads_per_core_ = 0;  // 0: as the machine says
  unsigned cpus_per_node_ = 0;     // 0: none given
  std::string memory_per_node_;
};

}  // namespace

std::unique_ptr<command> make_advise_command(CLI::App& parent) { return std::make_unique<advise_command>(parent); }

}  // namespace numaplace_cli
