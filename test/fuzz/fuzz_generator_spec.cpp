// `--generate`'s spec parser on any bytes: from_spec either returns a validated topology or
// throws topology_error naming the spec (and, for a bad part, the part).
#include <cstddef>
#include <cstdint>
#include <string>

#include <numaplace/topology/generator_spec.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  if (size > 256) return 0;  // a spec is one short word; longer only makes n x n work for up to 1024 nodes
  try {
    const numaplace::dynamic_topology t = numaplace::generate::from_spec(as_text(data, size));
    NUMAPLACE_FUZZ_CHECK(t.node_count() >= 1 && t.node_count() <= numaplace::max_nodes);
  } catch (const numaplace::topology_error& e) {
    const std::string what = e.what();
    NUMAPLACE_FUZZ_CHECK(what.starts_with("generator spec '") || what.starts_with("generator "));
  }
  return 0;
}
