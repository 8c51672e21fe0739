#pragma once
// This machine through hwloc, when the CLI was built with the numaplace::hwloc component: the
// library's loaders (numaplace/formats/hwloc_source.hpp), or the CLI's usage errors without it.
// Kept apart so that only hwloc_source.cpp sees <hwloc.h>.

#include <string>

#include "topology_source.hpp"

namespace numaplace_cli {

/// Whether hwloc support was compiled in (the --hwloc option and the fallback use it).
bool hwloc_available() noexcept;

/// This machine as hwloc sees it; notes say when hwloc gave no distances. Throws usage_error
/// when hwloc is not built in, numaplace::topology_error when hwloc fails.
loaded_topology hwloc_this_machine();

/// A hwloc XML file (lstopo --of xml), e.g. of another machine. Same errors as above, naming the file.
loaded_topology hwloc_xml_file(const std::string& path);

/// A hwloc synthetic description, e.g. "pack:2 numa:2 core:4 pu:2". Same errors, naming it.
loaded_topology hwloc_synthetic_description(const std::string& description);

}  // namespace numaplace_cli
