#pragma once
// Where a command's topology comes from: --machine, --file, --sysfs, --generate, --hwloc,
// --hwloc-xml, --hwloc-synthetic, or this machine.
// Shared by every subcommand that needs a machine, so they all accept the same options.

#include <string>
#include <vector>

#include <numaplace/formats/machine_request.hpp>
#include <numaplace/formats/topology_source.hpp>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace numaplace_cli {

/// A topology and what to tell the user about where it came from (numaplace::formats').
using numaplace::formats::loaded_topology;

/// One way to name a machine (numaplace::formats', as experiment files name one). The one home
/// for machine sources: the command-line options (topology_source) and experiment files
/// (sim --config) both load through load_machine.
using numaplace::formats::machine_request;

/// Loads the machine `request` names: numaplace::formats::load_topology_source, or hwloc, or
/// this machine. Throws numaplace::topology_error or numaplace::formats::format_error for bad
/// input (unknown_machine for an unknown name) and usage_error for a request that cannot be
/// served (no hwloc).
loaded_topology load_machine(const machine_request& request);

/// The sysfs folder the kernel lists NUMA nodes in.
using numaplace::formats::default_sysfs_root;

class topology_source {
 public:
  /// Adds the source options to `command`; they exclude one another. `default_machine` says
  /// in the help what the command uses when none is given; `preset_alias` adds --preset, the
  /// old spelling of --machine (sim uses --preset for its old experiment option instead).
  explicit topology_source(CLI::App& command, const std::string& default_machine = "this machine",
                           bool preset_alias = true);
  topology_source(const topology_source&) = delete;  // CLI11 writes into our members
  topology_source& operator=(const topology_source&) = delete;

  /// --list-machines was given: the command should print the named machines instead of a topology.
  bool list_machines_requested() const noexcept { return list_machines_; }

  /// The machine the options name (nothing given: an empty request, this machine).
  machine_request request() const;
  /// Whether any source option was given.
  bool given() const;
  /// The source options, so that a command can exclude them from options of its own.
  const std::vector<CLI::Option*>& options() const noexcept { return sources_; }
  /// load_machine(request()).
  loaded_topology load() const { return load_machine(request()); }

 private:
  std::string file_;
  std::string machine_;
  std::string sysfs_root_;
  std::string generate_;
  std::string hwloc_xml_;
  std::string hwloc_synthetic_;
  bool hwloc_ = false;
  bool list_machines_ = false;
  CLI::Option* file_option_ = nullptr;
  CLI::Option* machine_option_ = nullptr;
  CLI::Option* preset_option_ = nullptr;  // the old spelling of --machine, where there is one
  CLI::Option* sysfs_option_ = nullptr;
  CLI::Option* generate_option_ = nullptr;
  CLI::Option* hwloc_option_ = nullptr;
  std::vector<CLI::Option*> sources_;  ///< every source, and --list-machines
  CLI::Option* hwloc_xml_option_ = nullptr;
  CLI::Option* hwloc_synthetic_option_ = nullptr;
};

/// Prints every preset's name, description and source on stdout.
void print_presets();

}  // namespace numaplace_cli
