// load::hwloc on a topology hwloc imported from any bytes as XML. hwloc decides what XML it
// accepts; whatever it then reports (node OS indexes, cpusets, distance matrices of any size,
// kind and values) must give a topology whose invariants hold, or a topology_error.
#include <numaplace/topology/load_hwloc.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "check.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // hwloc's own XML parser (not libxml2): quieter, and the same on every machine.
  setenv("HWLOC_LIBXML_IMPORT", "0", 1);
  setenv("HWLOC_XML_VERBOSE", "0", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  if (size > 1 << 20) return 0;
  const std::string xml(reinterpret_cast<const char*>(data), size);  // NUL-terminated for hwloc
  const numaplace::load::hwloc_topology_ptr topology = numaplace::load::detail::hwloc_init();
  if (hwloc_topology_set_xmlbuffer(topology.get(), xml.c_str(), static_cast<int>(xml.size() + 1)) != 0) return 0;
  if (hwloc_topology_load(topology.get()) != 0) return 0;
  try {
    numaplace::load::hwloc_details details;
    const numaplace::dynamic_topology t = numaplace::load::hwloc(topology.get(), &details);
    check_topology(t, false);
    if (details.origin == numaplace::load::hwloc_distances_origin::single_node) {
      NUMAPLACE_FUZZ_CHECK(t.node_count() == 1);
    }
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
