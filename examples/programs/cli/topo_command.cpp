#include "topo_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include <numaplace/formats/topology_json.hpp>
#include <numaplace/topology/qemu_args.hpp>

#include "exit_codes.hpp"
#include "topo_text.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

namespace {

// Linux uses an asymmetric matrix as given and only warns; so do we, on stderr so that
// --json output stays parseable.
void warn_about_asymmetries(const numaplace::dynamic_topology& t) {
  for (const numaplace::asymmetry& a : t.asymmetries()) {
    const auto from = t.id_of(static_cast<numaplace::node_index>(a.row));
    const auto to = t.id_of(static_cast<numaplace::node_index>(a.column));
    fmt::print(stderr, "warning: distance {0}->{1} is {2} but {1}->{0} is {3}; used as given, as Linux does\n", from,
               to, a.forward, a.backward);
  }
}

class topo_command final : public command {
 public:
  explicit topo_command(CLI::App& parent)
      : app_(parent.add_subcommand("topo", "Show a machine's NUMA nodes, distances, levels and kind")), source_(*app_) {
    app_->footer(
        "Examples:\n"
        "  numaplace topo                                    this machine\n"
        "  numaplace topo --machine seed000-8node            a named machine (--list-machines lists them)\n"
        "  numaplace topo --generate backplane:2x4/cpus=4 --json    a generated machine, as a topology file\n"
        "  numaplace topo --machine amd-opteron-8node --qemu-args   QEMU arguments for a guest with its nodes\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or bad input.");
    auto* json = app_->add_flag("--json", json_, "Print one JSON object instead of text");
    app_->add_flag("--qemu-args", qemu_args_,
                   "Print the QEMU -smp/-m/-object/-numa arguments that boot a guest with this topology, one per line")
        ->excludes(json);
    app_->add_option("--vm-cpus-per-node", vm_cpus_per_node_, "vCPUs on each node with CPUs (--qemu-args)")
        ->capture_default_str()
        ->check(CLI::Range(1, 288));  // QEMU's q35 takes at most 288 vCPUs
    app_->add_option("--vm-mib-per-node", vm_mib_per_node_, "MiB of memory on each node with memory (--qemu-args)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (source_.list_machines_requested()) {
      print_presets();
      return exit_ok;
    }
    const loaded_topology loaded = source_.load();
    warn_about_asymmetries(loaded.topology);
    if (qemu_args_) {
      for (const std::string& word : numaplace::qemu_numa_args(loaded.topology, vm_cpus_per_node_, vm_mib_per_node_)) {
        fmt::print("{}\n", word);
      }
    } else if (json_) {
      fmt::print("{}\n",
                 numaplace::formats::topology_json(loaded.topology, loaded.source, loaded.notes, loaded.memory_tiers).dump(2));
    } else {
      print_topology_text(loaded);
    }
    return exit_ok;
  }

 private:
  CLI::App* app_;
  topology_source source_;
  bool json_ = false;
  bool qemu_args_ = false;
  unsigned vm_cpus_per_node_ = 1;
  std::uint64_t vm_mib_per_node_ = 64;
};

}  // namespace

std::unique_ptr<command> make_topo_command(CLI::App& parent) { return std::make_unique<topo_command>(parent); }

}  // namespace numaplace_cli
