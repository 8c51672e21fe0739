// load::hwloc_synthetic on any text: numaplace's strict reading of a description and the bounds
// it puts on what hwloc would build, then hwloc's parser. A topology whose invariants hold, or a
// topology_error, and never a long build (the target's -timeout catches one).
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
    // What hwloc built stays within the bounds the description was checked against.
    NUMAPLACE_FUZZ_CHECK(t.node_count() <= numaplace::max_nodes);
    std::size_t cpus = 0;
    for (numaplace::node_index i = 0; i < t.node_count(); ++i) cpus += t.cpus(i).size();
    NUMAPLACE_FUZZ_CHECK(cpus <= numaplace::load::detail::max_synthetic_pus);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
