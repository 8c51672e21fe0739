#include "topology_source.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/load_sysfs.hpp>
#include <numaplace/topology/presets.hpp>

#include "exit_codes.hpp"
#include "hwloc_source.hpp"

namespace numaplace_cli {

namespace {

// A kernel node folder is "node" followed by its id; other entries (online, possible, ...) are not.
bool is_node_folder(const std::filesystem::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  const std::string_view digits = std::string_view(name).substr(std::min<std::size_t>(name.size(), 4));
  return name.starts_with("node") && !digits.empty() &&
         std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; }) &&
         entry.is_directory();
}

// Machines without NUMA support in the kernel (or containers hiding it) have no node folders.
bool sysfs_lists_nodes(const std::filesystem::path& root) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_node_folder(*it)) return true;
  }
  return false;
}

std::string preset_names() {
  std::string names;
  for (const numaplace::presets::preset& p : numaplace::presets::all()) {
    names += names.empty() ? "" : ", ";
    names += p.name;
  }
  return names;
}

loaded_topology from_preset(const std::string& name) {
  const numaplace::presets::preset* p = numaplace::presets::find(name);
  if (p == nullptr) throw usage_error(fmt::format("unknown machine '{}'; valid machines: {}", name, preset_names()));
  return {p->build(), fmt::format("preset {}", p->name), {}};
}

loaded_topology from_sysfs(const std::string& root, const std::string& label) {
  return {numaplace::load::sysfs(root), fmt::format("{} (sysfs {})", label, root), {}};
}

// This machine: sysfs when the kernel lists nodes there, else hwloc (which also knows
// machines without NUMA support as one node).
loaded_topology from_this_machine() {
  if (sysfs_lists_nodes(default_sysfs_root)) return from_sysfs(default_sysfs_root, "this machine");
  if (hwloc_available()) return hwloc_this_machine();
  throw usage_error(
      fmt::format("{} lists no NUMA node and numaplace was built without hwloc; "
                  "choose a topology with --file, --preset or --sysfs",
                  default_sysfs_root));
}

}  // namespace

topology_source::topology_source(CLI::App& command) {
  auto* group = command.add_option_group("topology source", "Which machine to describe (default: this machine)");
  file_option_ = group->add_option("--file", file_, "A distance matrix file, or saved `numactl --hardware` output")
                     ->type_name("PATH");
  preset_option_ = group->add_option("--preset", preset_, "A named machine (see --list-presets)")->type_name("NAME");
  sysfs_option_ =
      group
          ->add_option("--sysfs", sysfs_root_, "A sysfs node folder, e.g. a copy of " + std::string(default_sysfs_root))
          ->type_name("ROOT");
  auto* hwloc = group->add_flag(
      "--hwloc", hwloc_,
      hwloc_available() ? "Discover this machine through hwloc" : "Discover this machine through hwloc (not built in)");
  auto* list = group->add_flag("--list-presets", list_presets_, "List the named machines and exit");
  const std::vector<CLI::Option*> sources{file_option_, preset_option_, sysfs_option_, hwloc, list};
  for (CLI::Option* a : sources) {
    for (CLI::Option* b : sources) {
      if (a != b) a->excludes(b);
    }
  }
}

machine_request topology_source::request() const {
  machine_request r;
  if (file_option_->count() > 0) r.file = file_;
  if (preset_option_->count() > 0) r.name = preset_;
  if (sysfs_option_->count() > 0) r.sysfs = sysfs_root_;
  r.hwloc = hwloc_;
  return r;
}

loaded_topology load_machine(const machine_request& request) {
  if (request.file) return {numaplace::load::file(*request.file), fmt::format("file {}", *request.file), {}};
  if (request.name) return from_preset(*request.name);
  if (request.sysfs) return from_sysfs(*request.sysfs, "sysfs");
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
