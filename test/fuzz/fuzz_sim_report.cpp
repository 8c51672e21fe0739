// The reader of sim reports (`numaplace sim --merge`, numaplace::formats) on any bytes: the
// input is one or more parts, separated by a line "--part--". merge_sim_reports either throws
// sim_report_error naming a part, or returns a report whose every stack holds each of its
// sweep's runs once, in order, with the seed its index gives and figures a simulation prints;
// that report, written as --json writes it, merges alone into the same report (the round trip a user's --merge of merged output makes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <numaplace/formats/sim_report_json.hpp>

#include "check.hpp"

namespace {

std::vector<numaplace::formats::report_part> parts_of(std::string_view input) {
  constexpr std::string_view separator = "\n--part--\n";
  std::vector<numaplace::formats::report_part> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = input.find(separator, start);
    parts.push_back({"p" + std::to_string(parts.size()) + ".json", std::string(input.substr(start, end - start))});
    if (end == std::string_view::npos) return parts;
    start = end + separator.size();
  }
}

void check_runs(const numaplace::sim::sweep_report& report) {
  for (const auto& preset : report.presets) {
    for (const auto& e : preset.experiments) {
      for (const auto& s : e.stacks) {
        NUMAPLACE_FUZZ_CHECK(s.runs.size() == e.runs && s.run_index.size() == e.runs && s.run_seed.size() == e.runs);
        for (unsigned i = 0; i < e.runs; ++i) {
          NUMAPLACE_FUZZ_CHECK(s.run_index[i] == i);
          NUMAPLACE_FUZZ_CHECK(s.run_seed[i] == e.seed + i);
          for (const auto& g : s.runs[i].groups) {
            NUMAPLACE_FUZZ_CHECK(std::isfinite(g.elapsed_seconds) && g.elapsed_seconds >= 0);
            NUMAPLACE_FUZZ_CHECK(g.local_fraction >= 0 && g.local_fraction <= 1);
            NUMAPLACE_FUZZ_CHECK(g.memory_per_node.size() == e.topology.node_count());
          }
        }
      }
    }
  }
}

// The report as `sim --json --timeline` prints it, stamped with its format.
std::string as_printed(const numaplace::sim::sweep_report& report) {
  return numaplace::formats::sim_report_json(report, true).dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const numaplace::sim::sweep_report merged = numaplace::formats::merge_sim_reports(parts_of(numaplace_fuzz::as_text(data, size)));
    check_runs(merged);
    const std::string printed = as_printed(merged);
    NUMAPLACE_FUZZ_CHECK(as_printed(numaplace::formats::merge_sim_reports({{"merged.json", printed}})) == printed);
  } catch (const numaplace::formats::sim_report_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string_view(e.what()).starts_with("p") || std::string_view(e.what()).starts_with("--merge: "));
  }
  return 0;
}
