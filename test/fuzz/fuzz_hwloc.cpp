// load::hwloc on any topology hwloc can hold: the input picks a synthetic machine (1-16 NUMA
// nodes), restricts it to some of its PUs (nodes may lose their CPUs), and adds up to three
// distance matrices of any kind, over any subset and order of the nodes, with any 64-bit values
// and names, through hwloc's own API. load::hwloc must then give a topology whose invariants
// hold, or a topology_error.
//
// Not hwloc XML: hwloc 2.9's XML import itself crashes (a NULL dereference in hwloc_bitmap_or
// under hwloc_topology_load) and leaks on some malformed files within a hundred inputs, with no
// numaplace code involved; test/data/fuzz/hwloc-xml/ keeps those files. What load::hwloc reads
// is what a loaded topology reports, and this target reaches all of it without the XML parser.
#include <fuzzer/FuzzedDataProvider.h>
#include <numaplace/topology/load_hwloc.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"

namespace {

// Any 64-bit value, but mostly the small ones distances are made of.
hwloc_uint64_t distance_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return in.ConsumeIntegral<hwloc_uint64_t>();
    case 1: return in.ConsumeIntegralInRange<hwloc_uint64_t>(0, 300);
    default: return in.ConsumeIntegralInRange<hwloc_uint64_t>(10, 40);
  }
}

void add_matrix(hwloc_topology_t t, FuzzedDataProvider& in, std::vector<hwloc_obj_t> nodes) {
  static constexpr unsigned long kinds[] = {
      HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY,
      HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY,
      HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH,
      HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH,
  };
  const unsigned long kind = kinds[in.ConsumeIntegralInRange<std::size_t>(0, 3)];
  // Some of the nodes, in some order (a partial Fisher-Yates shuffle).
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(1, nodes.size());
  for (std::size_t i = 0; i < count; ++i) {
    std::swap(nodes[i], nodes[in.ConsumeIntegralInRange<std::size_t>(i, nodes.size() - 1)]);
  }
  nodes.resize(count);
  std::vector<hwloc_uint64_t> values(count * count);
  for (auto& v : values) v = distance_value(in);
  const std::string name = in.ConsumeRandomLengthString(16);
  // hwloc frees the handle itself when adding the values or committing fails.
  hwloc_distances_add_handle_t handle = hwloc_distances_add_create(t, name.empty() ? nullptr : name.c_str(), kind, 0);
  if (handle == nullptr) return;
  if (hwloc_distances_add_values(t, handle, static_cast<unsigned>(count), nodes.data(), values.data(), 0) != 0) return;
  (void)hwloc_distances_add_commit(t, handle, 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // hwloc loads its components when the first topology is created and unloads them when the
  // last is destroyed: one topology kept for the whole run spares that work on every input.
  static const numaplace::load::hwloc_topology_ptr keep_components_loaded = numaplace::load::detail::hwloc_init();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  FuzzedDataProvider in(data, size);
  const unsigned packages = in.ConsumeIntegralInRange<unsigned>(1, 4);
  const unsigned numa = in.ConsumeIntegralInRange<unsigned>(1, 4);
  const unsigned pus = in.ConsumeIntegralInRange<unsigned>(1, 2);
  const numaplace::load::hwloc_topology_ptr topology = numaplace::load::hwloc_open_synthetic(
      "pack:" + std::to_string(packages) + " numa:" + std::to_string(numa) + " pu:" + std::to_string(pus));
  hwloc_topology_t t = topology.get();

  // Keep some PUs; NUMA nodes left without one stay, CPU-less, as long as they have memory.
  if (in.ConsumeBool()) {
    const unsigned total = packages * numa * pus;
    hwloc_bitmap_t keep = hwloc_bitmap_alloc();
    for (unsigned pu = 0; pu < total; ++pu) {
      if (in.ConsumeBool()) hwloc_bitmap_set(keep, pu);
    }
    if (!hwloc_bitmap_iszero(keep)) (void)hwloc_topology_restrict(t, keep, 0);
    hwloc_bitmap_free(keep);
  }

  std::vector<hwloc_obj_t> nodes;
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, n)) != nullptr;) nodes.push_back(n);
  const unsigned matrices = in.ConsumeIntegralInRange<unsigned>(0, 3);
  for (unsigned m = 0; m < matrices && !nodes.empty(); ++m) add_matrix(t, in, nodes);

  try {
    numaplace::load::hwloc_details details;
    const numaplace::dynamic_topology topo = numaplace::load::hwloc(t, &details);
    check_topology(topo, false);
    NUMAPLACE_FUZZ_CHECK(topo.node_count() == nodes.size());
    using origin = numaplace::load::hwloc_distances_origin;
    NUMAPLACE_FUZZ_CHECK((details.origin == origin::single_node) == (nodes.size() == 1));
    if (details.origin == origin::assumed) {
      for (std::size_t a = 0; a < topo.node_count(); ++a) {
        for (std::size_t b = 0; b < topo.node_count(); ++b) {
          const auto d = topo.distance(static_cast<numaplace::node_index>(a), static_cast<numaplace::node_index>(b));
          NUMAPLACE_FUZZ_CHECK(d == (a == b ? 10 : 20));
        }
      }
    }
    // A node's CPUs are exactly the PUs hwloc puts in its cpuset.
    for (std::size_t i = 0; i < topo.node_count(); ++i) {
      const auto index = static_cast<numaplace::node_index>(i);
      const hwloc_obj_t obj = hwloc_get_numanode_obj_by_os_index(t, static_cast<unsigned>(topo.id_of(index)));
      NUMAPLACE_FUZZ_CHECK(obj != nullptr);
      NUMAPLACE_FUZZ_CHECK(topo.cpus(index).size() == static_cast<std::size_t>(hwloc_bitmap_weight(obj->cpuset)));
      NUMAPLACE_FUZZ_CHECK(topo.has_cpu(index) == !topo.cpus(index).empty());
    }
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
