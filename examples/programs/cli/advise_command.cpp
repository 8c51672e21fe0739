#include "advise_command.hpp"

// `numaplace advise -w NCPUS[:MB]`: numad's question, answered by the library's rule
// (numaplace/topology/job_nodes.hpp, which says how it differs from numad's). The command
// says where each node's free memory comes from:
//  - MemFree of each node's meminfo when the machine is a sysfs tree (this machine, --sysfs),
//    the "free:" lines of a numactl dump given as --file; any other machine file or preset has
//    no free figure, so its node sizes count.
// examples/programs/balancer/guest-session asks both in the 8-node guest; there numad's 100 MB margin
// per node (most of a 128 MiB node) makes it answer every node where numaplace gives a pair or
// a quad, and the two agree once a node's free memory covers numad's demand plus margin.

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/job_demand.hpp>
#include <numaplace/topology/job_nodes.hpp>
#include <numaplace/topology/node_meminfo.hpp>

#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace {

using numaplace::node_index;

constexpr std::uint64_t mib = 1024 * 1024;

// "-w TEXT: ...": the library's complaint about the demand, as a usage error.
numaplace::job_demand parse_demand(const std::string& text) {
  try {
    return numaplace::parse_job_demand(text);
  } catch (const std::invalid_argument& bad) {
    throw usage_error(std::string("-w ") + bad.what());
  }
}

class advise_command final : public command {
 public:
  explicit advise_command(CLI::App& parent)
      : app_(parent.add_subcommand("advise", "Advise nodes for a new job of NCPUS CPUs and MB MiB, as numad -w does")),
        source_(*app_) {
    app_->footer(
        "Examples:\n"
        "  numaplace advise -w 1:256                         nodes for a 1-CPU, 256 MiB job on this machine\n"
        "  numaplace advise -w 8:4096 --machine seed000-8node --numactl   numactl options for 8 CPUs, 4 GiB\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or bad input.");
    app_->add_option("-w,--want", want_, "The job: NCPUS[:MB], as numad -w takes it (e.g. 4 or 4:2048)")
        ->required()
        ->type_name("NCPUS[:MB]");
    auto* numactl = app_->add_flag("--numactl", numactl_, "Print numactl options: --cpunodebind=... --membind=...");
    app_->add_flag("--omp-places", omp_places_, "Print OMP_PLACES and OMP_PROC_BIND lines for the job's nodes")
        ->excludes(numactl);
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (source_.list_machines_requested()) {
      print_presets();
      return exit_ok;
    }
    const numaplace::job_demand d = parse_demand(want_);
    const loaded_topology loaded = source_.load();
    const numaplace::dynamic_topology& t = loaded.topology;
    const numaplace::node_supply s = supply_of(loaded);
    check_fits(t, s, d, want_, loaded.source);

    const numaplace::job_nodes best = numaplace::choose_job_nodes(t, s, d);
    if (!best.enough) {
      fmt::print(stderr, "note: {} MiB free on all nodes together is less than the {} MiB asked for; advising every node\n",
                 best.free_bytes / mib, *d.mib);
    }
    if (d.mib && !s.memory_known) {
      fmt::print(stderr, "note: {} gives no node memory sizes; the {} MB are not counted\n", loaded.source, *d.mib);
    }
    print_advice(t, best.nodes);
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

  // Free memory: MemFree where the machine is a sysfs tree (this one, --sysfs), a numactl
  // dump's "free:" lines where it gives them; any other source describes a machine whose free
  // memory is unknown, so its node sizes count.
  numaplace::node_supply supply_of(const loaded_topology& loaded) const {
    const numaplace::dynamic_topology& t = loaded.topology;
    numaplace::node_supply s;
    const auto root = sysfs_root(t);
    const bool dump_says = !root && !loaded.free_bytes.empty();
    for (node_index i = 0; i < t.node_count(); ++i) {
      s.cpus.push_back(t.cpus(i).size());
      std::uint64_t bytes = 0;
      if (t.has_memory(i)) {
        bytes = root        ? numaplace::load::node_meminfo_bytes(*root, t.id_of(i), "MemFree")
                : dump_says ? loaded.free_bytes[i]
                            : t.memory_bytes(i);
      }
      s.free_bytes.push_back(bytes);
      s.memory_known = s.memory_known || t.memory_bytes(i) > 0;
    }
    return s;
  }

  static void check_fits(const numaplace::dynamic_topology& t, const numaplace::node_supply& s,
                         const numaplace::job_demand& d, const std::string& text, const std::string& source) {
    std::size_t cpus = 0;
    std::uint64_t total = 0;
    for (node_index i = 0; i < t.node_count(); ++i) {
      cpus += s.cpus[i];
      // Saturating: a sysfs tree may claim nodes of nearly 2^64 bytes each.
      if (t.has_memory(i)) total += std::min(t.memory_bytes(i), std::numeric_limits<std::uint64_t>::max() - total);
    }
    if (d.cpus > cpus) {
      throw usage_error(fmt::format("-w {}: asks for {} CPUs but {} has {}", text, d.cpus, source, cpus));
    }
    if (d.mib && s.memory_known && *d.mib > total / mib) {
      throw usage_error(fmt::format("-w {}: asks for {} MiB but {} has {} MiB in all", text, *d.mib, source,
                                    total / mib));
    }
  }

  void print_advice(const numaplace::dynamic_topology& t, const std::vector<node_index>& nodes) const {
    std::vector<unsigned> all, with_cpus, with_memory;
    for (const node_index i : nodes) {
      const auto id = static_cast<unsigned>(t.id_of(i));
      all.push_back(id);
      if (!t.cpus(i).empty()) with_cpus.push_back(id);
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
};

}  // namespace

std::unique_ptr<command> make_advise_command(CLI::App& parent) { return std::make_unique<advise_command>(parent); }

}  // namespace numaplace_cli
