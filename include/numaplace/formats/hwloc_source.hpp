#pragma once
// The hwloc half of topology_source.hpp: the machine a machine_request names through hwloc
// (this machine, a hwloc XML file, a synthetic description), with its source and notes.
// Needs both optional components, numaplace::formats and numaplace::hwloc
// (include/numaplace/topology/load_hwloc.hpp); link both to use it.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <numaplace/topology/load_hwloc.hpp>
#include <numaplace/topology/memory_tiers.hpp>

#include "machine_request.hpp"
#include "read_input.hpp"
#include "topology_source.hpp"

namespace numaplace::formats {

/// What the user should know about a topology hwloc gave: distances it did not report, and
/// nodes whose CPUs it also lists under an earlier node.
inline std::vector<std::string> hwloc_notes(const numaplace::load::hwloc_details& details) {
  std::vector<std::string> notes;
  if (details.origin == numaplace::load::hwloc_distances_origin::assumed) {
    notes.emplace_back("hwloc reported no NUMA distance matrix: 10 local / 20 remote was assumed");
  }
  if (!details.sharing_cpus.empty()) {
    notes.push_back(fmt::format(
        "node(s) {} share CPUs with an earlier node in hwloc (memory attached beside it); like Linux, numaplace "
        "gives each CPU to the first node that lists it",
        fmt::join(details.sharing_cpus, ",")));
  }
  return notes;
}

/// This machine as hwloc sees it. Throws numaplace::topology_error when hwloc fails.
inline loaded_topology load_hwloc_this_machine() {
  numaplace::load::hwloc_details details;
  numaplace::dynamic_topology topology = numaplace::load::hwloc_this_machine(&details);
  return {std::move(topology), "this machine (hwloc)", hwloc_notes(details), {}, details.threads_per_core,
          numaplace::load::sysfs_memory_tiers()};
}

/// A hwloc XML file (lstopo --of xml), "-" being standard input. Read by read_input(), so
/// that <(lstopo --of xml) works and a FIFO without a writer does not block (load::hwloc_xml
/// refuses a FIFO). Throws unreadable_input or numaplace::topology_error naming the file.
inline loaded_topology load_hwloc_xml_file(const std::string& path) {
  numaplace::load::hwloc_details details;
  const std::string text = read_input(path, "a hwloc XML file (lstopo FILE.xml)");
  numaplace::dynamic_topology topology = numaplace::load::hwloc_xml_text(text, input_name(path), &details);
  return {std::move(topology), "hwloc XML " + path, hwloc_notes(details), {}, details.threads_per_core, {}};
}

/// A hwloc synthetic description, e.g. "pack:2 numa:2 core:4 pu:2". Throws
/// numaplace::topology_error naming it.
inline loaded_topology load_hwloc_synthetic(const std::string& description) {
  numaplace::load::hwloc_details details;
  numaplace::dynamic_topology topology = numaplace::load::hwloc_synthetic(description, &details);
  return {std::move(topology), "hwloc synthetic \"" + description + "\"", hwloc_notes(details), {},
          details.threads_per_core, {}};
}

/// The machine `request` names through hwloc (hwloc_xml, hwloc_synthetic or hwloc, tried in
/// that order); none when it names none of them.
inline std::optional<loaded_topology> load_hwloc_source(const machine_request& request) {
  if (request.hwloc_xml) return load_hwloc_xml_file(*request.hwloc_xml);
  if (request.hwloc_synthetic) return load_hwloc_synthetic(*request.hwloc_synthetic);
  if (request.hwloc) return load_hwloc_this_machine();
  return std::nullopt;
}

}  // namespace numaplace::formats
