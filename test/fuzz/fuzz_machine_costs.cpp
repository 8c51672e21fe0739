// The reader of machine costs (`numaplace sim --costs`, numaplace::formats) on any bytes:
// parse_machine_costs either returns costs that validate for their node count, or throws
// machine_costs_error naming the file and a place in it. Accepted costs write back
// (machine_costs_json) to text that reads back to the same text: the round trip `--costs-json`
// promises.
#include <cstddef>
#include <cstdint>
#include <string>

#include <numaplace/formats/machine_costs_json.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const numaplace::sim::machine_costs c = numaplace::formats::parse_machine_costs(as_text(data, size), "fuzz.json");
    NUMAPLACE_FUZZ_CHECK(!numaplace::sim::validate(c, c.node_count()));
    const std::string printed = numaplace::formats::machine_costs_json(c).dump(2);
    const numaplace::sim::machine_costs again = numaplace::formats::parse_machine_costs(printed, "printed.json");
    NUMAPLACE_FUZZ_CHECK(numaplace::formats::machine_costs_json(again).dump(2) == printed);
  } catch (const numaplace::formats::machine_costs_error& e) {
    const std::string what = e.what();
    // "fuzz.json:LINE:COLUMN: ...", "fuzz.json: /json/path: ..." or "fuzz.json: ..." (the whole file).
    NUMAPLACE_FUZZ_CHECK(what.starts_with("fuzz.json:"));
    NUMAPLACE_FUZZ_CHECK(what.size() > std::string("fuzz.json: ").size());
  }
  return 0;
}
