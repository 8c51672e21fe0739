// load::node_meminfo_bytes on any bytes, for node 3's MemFree: a byte count that is a whole
// number of KiB, which a clean "Node 3 MemFree: N kB" line reads back unchanged, or a
// topology_error.
#include <numaplace/topology/node_meminfo.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const std::uint64_t bytes = numaplace::load::node_meminfo_bytes(as_text(data, size), 3, "MemFree", "fuzz");
    NUMAPLACE_FUZZ_CHECK(bytes % 1024 == 0);
    const std::string clean = "Node 3 MemFree: " + std::to_string(bytes / 1024) + " kB\n";
    NUMAPLACE_FUZZ_CHECK(numaplace::load::node_meminfo_bytes(clean, 3, "MemFree", "again") == bytes);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
