// `numaplace explain`'s JSON input (numaplace/formats/explain_input_json.hpp) on any bytes:
// parse_explain_input either returns an input whose parts agree (a valid topology, one fault
// pair per node, fault totals that fit 64 bits, known imbalance variants) or throws
// explain_input_error naming the source. (What explain computes from an accepted input is the
// CLI's and the policies'; test/cli/fuzz_regressions_test.cpp runs the binary on the inputs
// this target once found.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <numaplace/formats/explain_input_json.hpp>

#include "check.hpp"

namespace {

bool total_fits(const std::vector<numaplace::formats::fault_pair>& faults) {
  std::uint64_t total = 0;
  for (const auto& f : faults) {
    for (const std::uint64_t n : {f.shared, f.private_faults}) {
      if (n > std::numeric_limits<std::uint64_t>::max() - total) return false;
      total += n;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  namespace formats = numaplace::formats;
  static const std::vector<std::string_view> variants = formats::imbalance_variant_names();
  try {
    const formats::explain_input in = formats::parse_explain_input(as_text(data, size), "fuzz.json");
    check_topology(in.topology);
    const std::size_t n = in.topology.node_count();
    NUMAPLACE_FUZZ_CHECK(in.source == "fuzz.json");
    NUMAPLACE_FUZZ_CHECK(in.task_faults.size() == n && total_fits(in.task_faults));
    NUMAPLACE_FUZZ_CHECK(!in.group_faults || (in.group_faults->size() == n && total_fits(*in.group_faults)));
    for (const formats::imbalance_question& q : in.imbalance) {
      NUMAPLACE_FUZZ_CHECK(std::find(variants.begin(), variants.end(), q.variant) != variants.end());
    }
  } catch (const formats::explain_input_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string(e.what()).starts_with("fuzz.json: "));
  }
  return 0;
}
