#include "topo_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "exit_codes.hpp"
#include "topo_json.hpp"
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
    app_->add_flag("--json", json_, "Print one JSON object instead of text");
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    if (source_.list_presets_requested()) {
      print_presets();
      return exit_ok;
    }
    const loaded_topology loaded = source_.load();
    warn_about_asymmetries(loaded.topology);
    if (json_) {
      fmt::print("{}\n", topology_json(loaded).dump(2));
    } else {
      print_topology_text(loaded);
    }
    return exit_ok;
  }

 private:
  CLI::App* app_;
  topology_source source_;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<command> make_topo_command(CLI::App& parent) { return std::make_unique<topo_command>(parent); }

}  // namespace numaplace_cli
