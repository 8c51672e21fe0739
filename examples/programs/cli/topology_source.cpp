#include "topology_source.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <numaplace/sim/hardware_presets.hpp>
#include <numaplace/sim/memory_tiering.hpp>
#include <numaplace/topology/memory_tiers.hpp>
#include <numaplace/topology/presets.hpp>

#include "command.hpp"
#include "exit_codes.hpp"
#include "hwloc_source.hpp"

namespace numaplace_cli {

namespace {

// This machine: sysfs when the kernel lists nodes there, else hwloc (which also knows
// machines without NUMA support as one node).
loaded_topology from_this_machine() {
  if (numaplace::formats::sysfs_lists_nodes(default_sysfs_root)) {
    return numaplace::formats::load_sysfs_source(default_sysfs_root, "this machine");
  }
  if (hwloc_available()) return hwloc_this_machine();
  throw usage_error(
      fmt::format("{} lists no NUMA node and numaplace was built without hwloc; "
                  "choose a topology with --file, --machine or --sysfs",
                  default_sysfs_root));
}

// A preset with measured costs whose CPU-less nodes are slower memory (CXL expanders): the
// tiers a kernel reading those figures from HMAT would form (sim::memory_tiering, through
// mt_perf_to_adistance(), 6.7), so that topo shows them and advise and run treat the nodes as
// a tier. Nothing for a preset whose nodes all rank as DRAM.
void add_preset_tiers(loaded_topology& loaded, std::string_view name) {
  const std::optional<numaplace::sim::machine_costs> costs = numaplace::sim::hardware_preset(name);
  if (!costs || !loaded.memory_tiers.empty()) return;
  const numaplace::dynamic_topology& t = loaded.topology;
  std::vector<std::size_t> cpus;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) cpus.push_back(t.cpus(i).size());
  const numaplace::sim::memory_tiering tiers(t, *costs, cpus);
  if (!tiers.has_lower_tier()) return;
  std::vector<std::pair<unsigned, unsigned>> node_tier;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    if (t.has_memory(i)) node_tier.emplace_back(static_cast<unsigned>(t.id_of(i)), tiers.tier(i));
  }
  loaded.memory_tiers = numaplace::group_memory_tiers(node_tier);
}

}  // namespace

topology_source::topology_source(CLI::App& command, const std::string& default_machine, bool preset_alias) {
  auto* group = command.add_option_group("machine", fmt::format("Which machine (default: {})", default_machine));
  file_option_ =
      group
          ->add_option("--file", file_,
                       "A topology file: `topo --json` output, a distance matrix (with optional `node N cpus LIST memory "
                       "SIZE` lines) or saved `numactl --hardware` "
                       "output; - reads standard input")
          ->type_name("PATH");
  machine_option_ = group->add_option("--machine", machine_, "A named machine (see --list-machines)")->type_name("NAME");
  if (preset_alias) {
    preset_option_ = group->add_option("--preset", machine_, "Old spelling of --machine")
                         ->type_name("NAME")
                         ->each([](const std::string&) { print_renamed_notice("--preset", "--machine"); });
  }
  sysfs_option_ =
      group
          ->add_option("--sysfs", sysfs_root_, "A sysfs node folder, e.g. a copy of " + std::string(default_sysfs_root))
          ->type_name("ROOT");
  generate_option_ =
      group
          ->add_option("--generate", generate_,
                       "A generated machine: ring:N[:HOP], fully-connected:N[:REMOTE], backplane:GxP[:IN[:ACROSS]], "
                       "ladder:R[:HOP], twisted-ladder:R[:HOP], hierarchical:F@D[,F@D...] (innermost first) or "
                       "links:N:HOP:A-B[,A-B...], each optionally followed by /cpus=N and /memory=SIZE (K, M, G, T); "
                       "e.g. ring:8, backplane:2x4:12:20/cpus=4/memory=16G, hierarchical:2@11,4@20")
          ->type_name("SPEC");
  hwloc_option_ = group->add_flag(
      "--hwloc", hwloc_,
      hwloc_available() ? "Discover this machine through hwloc" : "Discover this machine through hwloc (not built in)");
  const std::string needs_hwloc = hwloc_available() ? "" : " (not built in)";
  hwloc_xml_option_ = group
                          ->add_option("--hwloc-xml", hwloc_xml_,
                                       "A hwloc XML file, e.g. from `lstopo --of xml FILE` on another machine" +
                                           needs_hwloc)
                          ->type_name("FILE");
  hwloc_synthetic_option_ = group
                                ->add_option("--hwloc-synthetic", hwloc_synthetic_,
                                             "A hwloc synthetic description, e.g. \"pack:2 numa:2 core:4 pu:2\" "
                                             "(no distances: 10 local / 20 remote)" +
                                                 needs_hwloc)
                                ->type_name("DESCRIPTION");
  auto* list = group->add_flag("--list-machines", list_machines_, "List the named machines and exit");
  auto* list_alias = group->add_flag("--list-presets", list_machines_, "Old spelling of --list-machines")
                         ->each([](const std::string&) { print_renamed_notice("--list-presets", "--list-machines"); });
  sources_ = {file_option_, machine_option_, sysfs_option_, generate_option_, hwloc_option_, hwloc_xml_option_,
              hwloc_synthetic_option_, list, list_alias};
  if (preset_option_ != nullptr) sources_.push_back(preset_option_);
  for (CLI::Option* a : sources_) {
    for (CLI::Option* b : sources_) {
      if (a != b) a->excludes(b);
    }
  }
}

bool topology_source::given() const {
  for (const CLI::Option* o : {file_option_, machine_option_, preset_option_, sysfs_option_, generate_option_, hwloc_option_,
                               hwloc_xml_option_, hwloc_synthetic_option_}) {
    if (o != nullptr && o->count() > 0) return true;
  }
  return false;
}

machine_request topology_source::request() const {
  machine_request r;
  if (file_option_->count() > 0) r.file = file_;
  if (machine_option_->count() > 0 || (preset_option_ != nullptr && preset_option_->count() > 0)) r.name = machine_;
  if (sysfs_option_->count() > 0) r.sysfs = sysfs_root_;
  if (generate_option_->count() > 0) r.generate = generate_;
  if (hwloc_xml_option_->count() > 0) r.hwloc_xml = hwloc_xml_;
  if (hwloc_synthetic_option_->count() > 0) r.hwloc_synthetic = hwloc_synthetic_;
  r.hwloc = hwloc_;
  return r;
}

loaded_topology load_machine(const machine_request& request) {
  // Everything but hwloc and this machine is the library's; the order of the two halves is
  // the order machine_request's members are tried in.
  if (std::optional<loaded_topology> loaded = numaplace::formats::load_topology_source(request)) {
    if (request.name) add_preset_tiers(*loaded, *request.name);
    return std::move(*loaded);
  }
  if (request.hwloc_xml) return hwloc_xml_file(*request.hwloc_xml);
  if (request.hwloc_synthetic) return hwloc_synthetic_description(*request.hwloc_synthetic);
  if (request.hwloc) {
    if (!hwloc_available()) throw usage_error("--hwloc: this numaplace was built without hwloc");
    return hwloc_this_machine();
  }
  return from_this_machine();
}

void print_presets() {
  std::size_t width = 0;
  for (const auto& p : numaplace::presets::all()) width = std::max(width, p.name.size());
  for (const auto& p : numaplace::presets::all()) {
    fmt::print("{:<{}}  {}\n{:<{}}  source: {}\n", p.name, width, p.description, "", width, p.source);
  }
}

}  // namespace numaplace_cli
