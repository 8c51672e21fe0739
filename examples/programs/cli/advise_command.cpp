#include "advise_command.hpp"

// numad's rule (numad 0.5, numad.c: pick_numa_nodes and combined_value_of_weighted_resources,
// fed by update_nodes), for a request of C CPUs and M MB:
//  - available memory of a node is MemFree plus Inactive(file) from nodeN/meminfo (-C 1, the
//    default); available CPU is the node's idle time between two /proc/stat samples taken 2 s
//    apart, in hundredths of a CPU (so -w 4 asks for 400).
//  - each node gets a magnitude (10 * memory needed + 4 * memory in excess) * (6 * CPU needed +
//    1 * CPU in excess); the nodes wanted at least are max(ceil(M / MemTotal of node 0),
//    ceil(C / CPUs of node 0)).
//  - every node is tried as a centre: the others sorted by distance from it, ties to the larger
//    magnitude; its score is the sum of magnitude / distance^2 over the first "at least" nodes.
//    The best centre wins (the lowest index on a tie).
//  - from that centre, in the same order, nodes are taken one by one, each giving its memory
//    less a 100 MB margin and its idle CPU, until memory, CPUs and the node count are met (or
//    every node is taken).
//  - the answer is a node list in the kernel's list form, "0-1,4".
//
// numaplace's rule: the same demand met circle by circle around the best centre, in the
// scheduler's distance circles (every node at one distance joins together, as the kernel's
// sched_init_numa levels do), never node by node:
//  - memory: MemFree of each node's meminfo when the machine is a sysfs tree (this machine,
//    --sysfs), the "free:" lines of a numactl dump given as --file; any other machine file or
//    preset has no free figure, so its node sizes count.
//  - CPUs: every CPU the node lists, idle or not. The advice says where a job of this shape
//    fits; numad's 2-second idle sample makes the answer depend on what else ran in those 2 s,
//    and a machine file has no idle time at all. Spreading around busy CPUs is the scheduler's
//    job once the job runs.
//  - best centre: the one whose circles meet the demand with the fewest nodes, then the nearest
//    outermost circle, then the most free memory, then the most CPUs, then the lowest node id.
//  - no margin is held back: MemFree is already what the kernel would hand out before reclaim.
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
#include <tuple>
#include <vector>

#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/topology/neighbour_circles.hpp>
#include <numaplace/topology/node_meminfo.hpp>

#include "advise_demand.hpp"
#include "cpu_ranges.hpp"
#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace {

using numaplace::node_index;
using numaplace::neighbour_circles;
using circle = numaplace::neighbour_circle;

constexpr std::uint64_t mib = 1024 * 1024;

// Memory sums saturate: two nodes of 2^64-1 bytes are "more than any demand", never a wrapped
// few MiB.
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// What each node offers a new job, by dense index.
struct supply {
  std::vector<std::size_t> cpus;
  std::vector<std::uint64_t> free_bytes;
  bool memory_known = false;
  std::string memory_source;  ///< "MemFree", "MemTotal"
};

// The set around one centre, and how it ranks.
struct candidate {
  std::vector<node_index> nodes;  ///< circle order from the centre
  numaplace::distance_t reach = 0;
  std::uint64_t free_bytes = 0;
  std::size_t cpus = 0;
  bool enough = false;

  // Smaller is better.
  auto rank() const {
    return std::make_tuple(!enough, nodes.size(), reach, ~free_bytes, ~cpus, nodes.empty() ? 0u : nodes.front());
  }
};

candidate widen_from(const numaplace::dynamic_topology& t, const supply& s, node_index centre, const demand& d) {
  candidate c;
  for (const circle& ring : neighbour_circles(t, centre)) {
    for (const numaplace::node_id id : ring.nodes) {
      const node_index i = *t.index_of(id);
      c.nodes.push_back(i);
      c.cpus += s.cpus[i];
      c.free_bytes = saturating_add(c.free_bytes, s.free_bytes[i]);
    }
    c.reach = ring.distance;
    const bool memory_met = !d.mib || !s.memory_known || c.free_bytes / mib >= *d.mib;  // in MiB: *d.mib * mib may wrap
    if (c.cpus >= d.cpus && memory_met) {
      c.enough = true;
      break;
    }
  }
  return c;
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
    const demand d = parse_demand(want_);
    const loaded_topology loaded = source_.load();
    const numaplace::dynamic_topology& t = loaded.topology;
    const supply s = supply_of(loaded);
    check_fits(t, s, d, want_, loaded.source);

    std::optional<candidate> best;
    for (node_index centre = 0; centre < t.node_count(); ++centre) {
      candidate c = widen_from(t, s, centre, d);
      if (!best || c.rank() < best->rank()) best = std::move(c);
    }
    if (!best->enough) {
      fmt::print(stderr, "note: {} MiB free on all nodes together is less than the {} MiB asked for; advising every node\n",
                 best->free_bytes / mib, *d.mib);
    }
    if (d.mib && !s.memory_known) {
      fmt::print(stderr, "note: {} gives no node memory sizes; the {} MB are not counted\n", loaded.source, *d.mib);
    }
    print_advice(t, best->nodes);
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
  supply supply_of(const loaded_topology& loaded) const {
    const numaplace::dynamic_topology& t = loaded.topology;
    supply s;
    const auto root = sysfs_root(t);
    const bool dump_says = !root && !loaded.free_bytes.empty();
    s.memory_source = root ? "MemFree" : dump_says ? "the free: lines" : "MemTotal";
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

  static void check_fits(const numaplace::dynamic_topology& t, const supply& s, const demand& d,
                         const std::string& text, const std::string& source) {
    std::size_t cpus = 0;
    std::uint64_t total = 0;
    for (node_index i = 0; i < t.node_count(); ++i) {
      cpus += s.cpus[i];
      if (t.has_memory(i)) total = saturating_add(total, t.memory_bytes(i));
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
      fmt::print("--cpunodebind={} --membind={}\n", cpu_ranges(with_cpus), cpu_ranges(with_memory));
    } else if (omp_places_) {
      // One place per node in circle order from the centre; one node binds close, several spread
      // (see numaplace::adapters::advise_openmp for why).
      fmt::print("OMP_PLACES={}\nOMP_PROC_BIND={}\n", numaplace::adapters::omp_places(t, nodes),
                 with_cpus.size() == 1 ? "close" : "spread");
    } else {
      fmt::print("{}\n", cpu_ranges(all));
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
