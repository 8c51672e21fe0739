#include "explain_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <numaplace/stacks.hpp>
#include <string>

#include "exit_codes.hpp"
#include "explain_report.hpp"

namespace numaplace_cli {

namespace {

class explain_command final : public command {
 public:
  explicit explain_command(CLI::App& parent)
      : app_(parent.add_subcommand("explain",
                                   "Explain the preferred node the kernel picks from fault counts, and "
                                   "its NUMA imbalance allowance")) {
    app_->add_option("input", input_,
                     "JSON file with distances, task_faults, group_faults (optional) and imbalance (optional); "
                     "- or nothing for standard input")
        ->capture_default_str();
    app_->add_flag("--json", json_, "Print one JSON object instead of text");
    app_->add_option("--stack", stack_,
                     fmt::format("The named stack that decides ({})", fmt::join(stack_names(), ", ")))
        ->capture_default_str();
    app_->footer(
        "Input: {\"distances\": [[10, 20], [20, 10]], \"task_faults\": [[shared, private], ...one per node],\n"
        "        \"group_faults\": [[shared, private], ...] (optional),\n"
        "        \"imbalance\": [{\"variant\": \"v5.5\"|\"v5.9\"|\"v5.10\"|\"v5.11\"|\"v5.18\"|\"v5.19\", \"imbalance\": i,\n"
        "                       \"src_running\": s, \"dst_running\": d, \"dst_weight\": w, \"imb_numa_nr\": k}, ...]"
        " (optional)}\n"
        "Examples:\n"
        "  numaplace explain examples/explain/seed000-backplane.json   a table per node, the choice and why\n"
        "  numaplace explain --json --stack vanilla examples/explain/direct.json\n"
        "Exit codes: 0 success, 1 the work failed, 2 usage or bad input.");
  }

  const CLI::App& app() const override { return *app_; }

  int run() const override {
    // An unknown stack is a usage error, reported before any input is read.
    if (!numaplace::with_stack(stack_, [](auto) {})) {
      throw usage_error(fmt::format("unknown stack '{}'; valid stacks: {}", stack_, fmt::join(stack_names(), ", ")));
    }
    const explain_input in = numaplace::formats::read_explain_input(input_);
    const explain_report report = make_explain_report(in, stack_);
    if (json_) {
      fmt::print("{}\n", explain_json(report).dump(2));
    } else {
      print_explain_text(report);
    }
    return exit_ok;
  }

 private:
  CLI::App* app_;
  std::string input_ = "-";
  std::string stack_{numaplace::default_stack_name};
  bool json_ = false;
};

}  // namespace

std::unique_ptr<command> make_explain_command(CLI::App& parent) { return std::make_unique<explain_command>(parent); }

}  // namespace numaplace_cli
