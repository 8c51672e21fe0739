// `numaplace explain`'s JSON input on any bytes: parse_explain_input either returns an input
// whose parts agree (a valid topology, one fault pair per node) or throws explain_input_error.
// An accepted input then goes through every named stack and the JSON report, as the CLI does:
// fault counts anywhere up to 2^64-1 must not crash or hit undefined behaviour there either.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"
#include "explain_input.hpp"
#include "explain_report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  static const std::vector<std::string> stacks = numaplace_cli::stack_names();
  try {
    const numaplace_cli::explain_input in = numaplace_cli::parse_explain_input(as_text(data, size), "fuzz.json");
    check_topology(in.topology);
    const std::size_t n = in.topology.node_count();
    NUMAPLACE_FUZZ_CHECK(in.task_faults.size() == n);
    NUMAPLACE_FUZZ_CHECK(!in.group_faults || in.group_faults->size() == n);
    for (const std::string& stack : stacks) {
      const numaplace_cli::explain_report r = numaplace_cli::make_explain_report(in, stack);
      NUMAPLACE_FUZZ_CHECK(r.preferred_nid == -1 || in.topology.index_of(static_cast<numaplace::node_id>(r.preferred_nid)));
      NUMAPLACE_FUZZ_CHECK(r.imbalance.size() == in.imbalance.size());
      NUMAPLACE_FUZZ_CHECK(!numaplace_cli::explain_json(r).dump().empty());
    }
  } catch (const numaplace_cli::explain_input_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string(e.what()).starts_with("fuzz.json: "));
  }
  return 0;
}
