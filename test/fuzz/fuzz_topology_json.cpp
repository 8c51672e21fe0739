// The reader of topology documents (`topo --file`, numaplace::formats) on any bytes:
// parse_topology_json either returns a topology, or throws topology_file_error naming the file
// and a place in it. An accepted document writes back (topology_json) to a document that reads
// back to the same document: the round trip `topo --json | topo --file -` promises.
#include <cstddef>
#include <cstdint>
#include <string>

#include <numaplace/formats/topology_json.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  namespace formats = numaplace::formats;
  try {
    const formats::topology_document t = formats::parse_topology_json(as_text(data, size), "fuzz.json");
    const std::string printed = formats::topology_json(t.topology, "file fuzz.json", t.notes, t.memory_tiers).dump(2);
    const formats::topology_document again = formats::parse_topology_json(printed, "fuzz.json");
    NUMAPLACE_FUZZ_CHECK(formats::topology_json(again.topology, "file fuzz.json", again.notes, again.memory_tiers).dump(2) == printed);
  } catch (const formats::topology_file_error& e) {
    const std::string what = e.what();
    // "fuzz.json:LINE:COLUMN: ...", "fuzz.json: /json/pointer: ..." or "fuzz.json: ..." (the whole file).
    NUMAPLACE_FUZZ_CHECK(what.starts_with("fuzz.json:"));
    NUMAPLACE_FUZZ_CHECK(what.size() > std::string("fuzz.json: ").size());
  }
  return 0;
}
