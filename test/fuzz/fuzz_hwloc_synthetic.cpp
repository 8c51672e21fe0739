// load::hwloc_synthetic on any text: the bounds numaplace puts on a description before hwloc
// builds it, then hwloc's parser. A topology whose invariants hold, or a topology_error, and
// never a long build (the target's -timeout catches one).
#include <numaplace/topology/load_hwloc.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const numaplace::dynamic_topology t = numaplace::load::hwloc_synthetic(std::string(as_text(data, size)));
    check_topology(t);
    NUMAPLACE_FUZZ_CHECK(t.node_count() <= numaplace::max_nodes);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
