// load::matrix_text on any bytes: a topology whose invariants hold, or a topology_error.
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/load_matrix.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"

namespace {

// The ids comment and one node line per node: what node lines can say about `t`.
std::string ids_and_node_lines_of(const numaplace::dynamic_topology& t) {
  std::string ids = "# node ids:", lines;
  for (std::size_t i = 0; i < t.node_count(); ++i) {
    const numaplace::node_attributes& n = t.node(static_cast<numaplace::node_index>(i));
    ids += ' ' + std::to_string(n.id);
    lines += "node " + std::to_string(n.id);
    if (!n.has_cpu) lines += " cpus none";
    if (n.has_cpu && !n.cpus.empty()) lines += " cpus " + numaplace::format_cpulist(n.cpus);
    if (!n.has_memory) lines += " memory none";
    if (n.has_memory && n.memory_bytes != 0) lines += " memory " + std::to_string(n.memory_bytes);
    lines += '\n';
  }
  return ids + '\n' + lines;
}

bool same_nodes(const numaplace::dynamic_topology& x, const numaplace::dynamic_topology& y) {
  for (std::size_t i = 0; i < x.node_count(); ++i) {
    const numaplace::node_attributes& a = x.node(static_cast<numaplace::node_index>(i));
    const numaplace::node_attributes& b = y.node(static_cast<numaplace::node_index>(i));
    if (a.id != b.id || a.cpus != b.cpus || a.has_cpu != b.has_cpu || a.has_memory != b.has_memory ||
        a.memory_bytes != b.memory_bytes) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const numaplace::dynamic_topology t = numaplace::load::matrix_text(as_text(data, size), "fuzz");
    check_topology(t);
    // A node without CPUs or memory says so (has_cpu, has_memory) rather than by empty fields.
    for (std::size_t i = 0; i < t.node_count(); ++i) {
      const numaplace::node_attributes& n = t.node(static_cast<numaplace::node_index>(i));
      if (!n.has_cpu) NUMAPLACE_FUZZ_CHECK(n.cpus.empty());
      if (!n.has_memory) NUMAPLACE_FUZZ_CHECK(n.memory_bytes == 0);
    }
    // Written back as plain text with its ids and node lines, the matrix reads back the same,
    // with the same nodes and classification.
    const numaplace::dynamic_topology again =
        numaplace::load::matrix_text(ids_and_node_lines_of(t) + matrix_text_of(t), "again");
    NUMAPLACE_FUZZ_CHECK(same_matrix(t, again));
    NUMAPLACE_FUZZ_CHECK(same_nodes(t, again));
    NUMAPLACE_FUZZ_CHECK(t.classification_info() == again.classification_info());
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
