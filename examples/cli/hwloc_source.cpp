#include "hwloc_source.hpp"

#include "exit_codes.hpp"

#if NUMAPLACE_CLI_HAVE_HWLOC
#include <numaplace/topology/load_hwloc.hpp>
#endif

namespace numaplace_cli {

#if NUMAPLACE_CLI_HAVE_HWLOC

bool hwloc_available() noexcept { return true; }

loaded_topology hwloc_this_machine() {
  numaplace::load::hwloc_details details;
  numaplace::dynamic_topology topology = numaplace::load::hwloc_this_machine(&details);
  std::vector<std::string> notes;
  if (details.origin == numaplace::load::hwloc_distances_origin::assumed) {
    notes.emplace_back("hwloc reported no NUMA distance matrix: 10 local / 20 remote was assumed");
  }
  return {std::move(topology), "this machine (hwloc)", std::move(notes)};
}

#else

bool hwloc_available() noexcept { return false; }

loaded_topology hwloc_this_machine() { throw usage_error("this numaplace was built without hwloc"); }

#endif

}  // namespace numaplace_cli
