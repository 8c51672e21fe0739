#pragma once
// One way to name a machine, as an experiment file names it and the CLI's machine options do.
// Plain data, read by experiment_json.hpp; loading the machine it names is the caller's (a
// file, sysfs, hwloc). Part of numaplace::formats (format_error.hpp).

#include <optional>
#include <string>

namespace numaplace::formats {

/// At most one member is set, none meaning this machine.
struct machine_request {
  std::optional<std::string> name;      ///< a named machine (numaplace::presets)
  std::optional<std::string> file;      ///< a topology file; "-" is standard input
  std::optional<std::string> sysfs;     ///< a sysfs node folder
  std::optional<std::string> generate;  ///< a generator spec (numaplace::generate::from_spec)
  bool hwloc = false;                   ///< this machine, through hwloc
  std::optional<std::string> hwloc_xml;        ///< a hwloc XML file (lstopo --of xml)
  std::optional<std::string> hwloc_synthetic;  ///< a hwloc synthetic description
  /// A topology document given inline (an experiment file's machine), and what to call it.
  std::optional<std::string> topology_json;
  std::string topology_json_source;
};

}  // namespace numaplace::formats
