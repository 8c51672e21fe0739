// load::matrix_text on any bytes: a topology whose invariants hold, or a topology_error.
#include <numaplace/topology/load_matrix.hpp>

#include <cstddef>
#include <cstdint>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const numaplace::dynamic_topology t = numaplace::load::matrix_text(as_text(data, size), "fuzz");
    check_topology(t);
    // Every node has CPUs and memory (a matrix says nothing else), and written back as plain
    // text the matrix reads back the same, with the same classification.
    for (std::size_t i = 0; i < t.node_count(); ++i) {
      NUMAPLACE_FUZZ_CHECK(t.has_cpu(static_cast<numaplace::node_index>(i)));
      NUMAPLACE_FUZZ_CHECK(t.has_memory(static_cast<numaplace::node_index>(i)));
    }
    const numaplace::dynamic_topology again = numaplace::load::matrix_text(matrix_text_of(t), "again");
    NUMAPLACE_FUZZ_CHECK(same_matrix(t, again));
    NUMAPLACE_FUZZ_CHECK(t.classification_info() == again.classification_info());
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
