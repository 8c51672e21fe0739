// load::numactl_text on any bytes: a topology whose invariants hold, or a topology_error. The
// "free:" lines it keeps (numactl_details, advise's free memory) never exceed a node's size
// and name only nodes of the topology.
#include <numaplace/topology/load_matrix.hpp>
#include <numaplace/topology/load_numactl.hpp>

#include <cstddef>
#include <cstdint>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    numaplace::load::numactl_details details;
    const numaplace::dynamic_topology t = numaplace::load::numactl_text(as_text(data, size), "fuzz", &details);
    check_topology(t);
    // A CPU-less node is one whose "cpus:" list was empty: it has no CPU numbers.
    for (std::size_t i = 0; i < t.node_count(); ++i) {
      const auto n = static_cast<numaplace::node_index>(i);
      if (!t.has_cpu(n)) NUMAPLACE_FUZZ_CHECK(t.cpus(n).empty());
    }
    for (const auto& [id, free] : details.free_bytes) {
      const auto n = t.index_of(id);
      NUMAPLACE_FUZZ_CHECK(n.has_value());
      if (t.memory_bytes(*n) != 0) NUMAPLACE_FUZZ_CHECK(free <= t.memory_bytes(*n));
    }
    // The same distances as a plain matrix read back unchanged.
    NUMAPLACE_FUZZ_CHECK(same_matrix(t, numaplace::load::matrix_text(matrix_text_of(t), "again")));
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
