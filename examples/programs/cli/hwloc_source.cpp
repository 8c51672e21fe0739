#include "hwloc_source.hpp"

#include "exit_codes.hpp"

#if NUMAPLACE_CLI_HAVE_HWLOC
#include <numaplace/formats/hwloc_source.hpp>
#endif

namespace numaplace_cli {

#if NUMAPLACE_CLI_HAVE_HWLOC

bool hwloc_available() noexcept { return true; }

loaded_topology hwloc_this_machine() { return numaplace::formats::load_hwloc_this_machine(); }
loaded_topology hwloc_xml_file(const std::string& path) { return numaplace::formats::load_hwloc_xml_file(path); }
loaded_topology hwloc_synthetic_description(const std::string& description) {
  return numaplace::formats::load_hwloc_synthetic(description);
}

#else

bool hwloc_available() noexcept { return false; }

loaded_topology hwloc_this_machine() { throw usage_error("this numaplace was built without hwloc"); }
loaded_topology hwloc_xml_file(const std::string&) {
  throw usage_error("--hwloc-xml: this numaplace was built without hwloc");
}
loaded_topology hwloc_synthetic_description(const std::string&) {
  throw usage_error("--hwloc-synthetic: this numaplace was built without hwloc");
}

#endif

}  // namespace numaplace_cli
