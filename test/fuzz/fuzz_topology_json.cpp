// `topo --file`'s reader of topology documents on any bytes: parse_topology_json either returns a
// topology, or throws topology_file_error naming the file and a place in it. An accepted
// document prints back (topology_json) to a document that reads back to the same print: the
// round trip `topo --json | topo --file -` promises.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"
#include "topo_json.hpp"
#include "topology_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const numaplace_cli::loaded_topology t = numaplace_cli::parse_topology_json(as_text(data, size), "fuzz.json");
    const std::string printed = numaplace_cli::topology_json(t).dump(2);
    const numaplace_cli::loaded_topology again = numaplace_cli::parse_topology_json(printed, "fuzz.json");
    NUMAPLACE_FUZZ_CHECK(numaplace_cli::topology_json(again).dump(2) == printed);
  } catch (const numaplace_cli::topology_file_error& e) {
    const std::string what = e.what();
    // "fuzz.json:LINE:COLUMN: ...", "fuzz.json: /json/pointer: ..." or "fuzz.json: ..." (the whole file).
    NUMAPLACE_FUZZ_CHECK(what.starts_with("fuzz.json:"));
    NUMAPLACE_FUZZ_CHECK(what.size() > std::string("fuzz.json: ").size());
  }
  return 0;
}
