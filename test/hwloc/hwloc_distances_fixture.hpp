#pragma once
// Gives a hwloc synthetic topology a NUMA distance matrix, as a firmware SLIT would.

#include <hwloc.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace numaplace_test {

/// Adds `rows` between the NUMA nodes listed by OS index in `os_order` (row i is node
/// os_order[i]), so tests can hand hwloc its objects in an order other than ours.
inline void add_numa_distances(hwloc_topology_t topology, const std::vector<std::vector<hwloc_uint64_t>>& rows,
                               const std::vector<unsigned>& os_order, unsigned long kind, const char* name) {
  std::vector<hwloc_obj_t> objects;
  for (unsigned os : os_order) objects.push_back(hwloc_get_numanode_obj_by_os_index(topology, os));
  std::vector<hwloc_uint64_t> values;
  for (const auto& row : rows) values.insert(values.end(), row.begin(), row.end());
  hwloc_distances_add_handle_t handle = hwloc_distances_add_create(topology, name, kind, 0);
  if (handle == nullptr ||
      hwloc_distances_add_values(topology, handle, static_cast<unsigned>(objects.size()), objects.data(), values.data(),
                                 0) != 0 ||
      hwloc_distances_add_commit(topology, handle, 0) != 0) {
    throw std::runtime_error("hwloc refused the test's distance matrix");
  }
}

/// The same, with rows in OS-index order 0..n-1.
inline void add_numa_distances(hwloc_topology_t topology, const std::vector<std::vector<hwloc_uint64_t>>& rows,
                               unsigned long kind, const char* name) {
  std::vector<unsigned> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<unsigned>(i);
  add_numa_distances(topology, rows, order, kind, name);
}

inline constexpr unsigned long os_latency = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY;
inline constexpr unsigned long user_latency = HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY;
inline constexpr unsigned long user_bandwidth = HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH;

}  // namespace numaplace_test
