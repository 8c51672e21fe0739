#include "hwloc_source.hpp"
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <utility>
#include <vector>

#include "exit_codes.hpp"
#include "read_input.hpp"

#if NUMAPLACE_CLI_HAVE_HWLOC
#include <numaplace/topology/load_hwloc.hpp>
#endif

namespace numaplace_cli {

#if NUMAPLACE_CLI_HAVE_HWLOC

bool hwloc_available() noexcept { return true; }

namespace {

// Where hwloc's distances came from, as a note when they were not in the input.
std::vector<std::string> notes_of(const numaplace::load::hwloc_details& details) {
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

}  // namespace

loaded_topology hwloc_this_machine() {
  numaplace::load::hwloc_details details;
  numaplace::dynamic_topology topology = numaplace::load::hwloc_this_machine(&details);
  return {std::move(topology), "this machine (hwloc)", notes_of(details), {}};
}

loaded_topology hwloc_xml_file(const std::string& path) {
  numaplace::load::hwloc_details details;
  // The CLI's reader, so that <(lstopo --of xml) works and a FIFO without a writer does not block.
  const std::string text = read_input(path, "a hwloc XML file (lstopo FILE.xml)");
  numaplace::dynamic_topology topology = numaplace::load::hwloc_xml_text(text, input_name(path), &details);
  return {std::move(topology), "hwloc XML " + path, notes_of(details), {}};
}

loaded_topology hwloc_synthetic_description(const std::string& description) {
  numaplace::load::hwloc_details details;
  numaplace::dynamic_topology topology = numaplace::load::hwloc_synthetic(description, &details);
  return {std::move(topology), "hwloc synthetic \"" + description + "\"", notes_of(details), {}};
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
