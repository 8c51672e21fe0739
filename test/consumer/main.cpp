// A consumer of numaplace: builds topologies, classifies them, prints the kinds and fails
// (non-zero exit) if any is not what the kernel would say.
#include <numaplace/numaplace.hpp>

#ifdef NUMAPLACE_CONSUMER_HWLOC
#include <hwloc.h>
#endif
#ifdef NUMAPLACE_CONSUMER_LINUX
#include <numaplace/linux.hpp>
#endif
#ifdef NUMAPLACE_CONSUMER_FORMATS
#include <numaplace/formats.hpp>
#endif

#include <iostream>
#include <string>

namespace {

constexpr auto two_quads = numaplace::make_static_topology({
    {10, 12, 32, 32},
    {12, 10, 32, 32},
    {32, 32, 10, 12},
    {32, 32, 12, 10},
});
static_assert(two_quads.kind() == numaplace::numa_kind::backplane);

}  // namespace

int main() {
  const numaplace::dynamic_topology ring = numaplace::generate::ring(4, 10);
  std::cout << "static two_quads: " << to_string(two_quads.kind()) << '\n'
            << "dynamic ring(4): " << to_string(ring.kind()) << '\n';
  int failures = 0;
  if (numaplace::classify(two_quads).kind != numaplace::numa_kind::backplane) ++failures;
  if (ring.kind() != numaplace::numa_kind::glueless_mesh) ++failures;
#ifdef NUMAPLACE_CONSUMER_HWLOC
  std::cout << "hwloc API 0x" << std::hex << hwloc_get_api_version() << std::dec << '\n';
  if (hwloc_get_api_version() < 0x20000) ++failures;
#endif
#ifdef NUMAPLACE_CONSUMER_LINUX
  const auto machine = numaplace::os::usable_machine::this_process();
  std::cout << "linux: " << machine.cpu_count() << " usable CPUs on " << machine.usable_nodes().size() << " of "
            << machine.node_count() << " nodes\n";
  if (machine.cpu_count() == 0) ++failures;
#endif
#ifdef NUMAPLACE_CONSUMER_FORMATS
  // The ring written as `numaplace topo --json` writes it, read back to the same machine; a
  // bad document is refused with its place.
  const std::string written = numaplace::formats::topology_json(ring, "generated ring", {}).dump();
  const numaplace::formats::topology_document read = numaplace::formats::parse_topology_json(written, "ring.json");
  std::cout << "formats: ring read back with " << read.topology.node_count() << " nodes\n";
  if (read.topology.node_count() != 4 || read.topology.distance(0, 1) != ring.distance(0, 1)) ++failures;
  try {
    (void)numaplace::formats::parse_topology_json(R"({"nodes": []})", "m.json");
    ++failures;
  } catch (const numaplace::formats::format_error& e) {
    std::cout << "formats: " << e.what() << '\n';
    if (std::string(e.what()) != "m.json: /nodes: is empty; a machine has at least one node") ++failures;
  }
#endif
  std::cout << (failures == 0 ? "consumer: ok" : "consumer: WRONG") << '\n';
  return failures == 0 ? 0 : 1;
}
