#pragma once
// Loading the machine a machine_request names, from everything but hwloc: a named preset, a
// topology file of any format (or standard input), a sysfs node folder, a generator spec, or
// an inline topology document. Each load says where the topology came from ("source") and
// what the user should know about it ("notes"). A request for hwloc, or for this machine, is
// left to the caller: hwloc is its own optional component (numaplace::hwloc,
// include/numaplace/topology/load_hwloc.hpp), which this one does not require.
// Part of numaplace::formats (format_error.hpp).

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/error.hpp>
#include <numaplace/topology/generator_spec.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/load_sysfs.hpp>
#include <numaplace/topology/memory_tiers.hpp>
#include <numaplace/topology/presets.hpp>

#include "format_error.hpp"
#include "machine_request.hpp"
#include "read_input.hpp"
#include "topology_json.hpp"

namespace numaplace::formats {

/// A topology and what to tell the user about where it came from.
struct loaded_topology {
  numaplace::dynamic_topology topology;
  std::string source;              ///< e.g. "preset seed000-8node", "file m.txt", "sysfs (sysfs /sys/...)"
  std::vector<std::string> notes;  ///< caveats, e.g. distances hwloc did not report
  /// Free memory by node index, where the source says it for every node with memory (a
  /// numactl dump's "free:" lines); empty otherwise.
  std::vector<std::uint64_t> free_bytes;
  /// Threads per core, where the source says (hwloc: the PUs of PU 0's core); none otherwise.
  /// A sysfs tree's is read beside it (numaplace/topology/sysfs_smt.hpp).
  std::optional<unsigned> threads_per_core;
  /// The kernel's memory tiers (topology/memory_tiers.hpp), fastest first, where the source
  /// gives them: this machine, a copied /sys tree that has them, a topology document's
  /// "memory_tiers", a preset whose costs put a node below DRAM; empty otherwise.
  std::vector<numaplace::memory_tier> memory_tiers;
};

/// Whether any node of `t` says which CPUs it has, or that it has none. A bare distance matrix
/// says neither: every node then counts as having CPUs, so a CPU-less node (CXL or GPU memory)
/// joins the distance levels it would be left out of (classify.hpp), and advice has no CPUs to
/// count.
inline bool knows_cpus(const numaplace::dynamic_topology& t) {
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) {
    if (!t.has_cpu(i) || !t.cpus(i).empty()) return true;
  }
  return false;
}

/// What to tell the user about a topology that does not know its CPUs (knows_cpus).
inline std::string missing_cpus_note() {
  return "no node says which CPUs it has (a bare distance matrix): CPU-less nodes (CXL, GPU memory) cannot be "
         "recognised without 'node N cpus none' lines, and count in the kind and levels; add 'node N cpus LIST' "
         "and 'node N cpus none' lines to the file (docs/machines.md, \"CPUs and memory in a matrix file\")";
}

/// A request naming a machine that does not exist (an unknown preset); the message lists the
/// names there are.
class unknown_machine : public format_error {
 public:
  using format_error::format_error;
};

/// The sysfs folder the kernel lists NUMA nodes in (drivers/base/node.c).
inline constexpr const char* default_sysfs_root = "/sys/devices/system/node";

/// Whether `root` holds a node folder ("node" and its id, as drivers/base/node.c names them;
/// `online`, `possible` and the like are not). Machines without NUMA support in the kernel,
/// or containers hiding it, have none.
inline bool sysfs_lists_nodes(const std::filesystem::path& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) return false;
  try {
    return !numaplace::load::detail::sysfs_node_folders(root).empty();
  } catch (const numaplace::topology_error&) {
    return false;  // a folder that cannot be listed lists no nodes
  }
}

/// The named machine `name` (numaplace::presets). Throws unknown_machine listing the names.
inline loaded_topology load_preset(const std::string& name) {
  const numaplace::presets::preset* p = numaplace::presets::find(name);
  if (p == nullptr) {
    std::string names;
    for (const numaplace::presets::preset& q : numaplace::presets::all()) {
      names += names.empty() ? "" : ", ";
      names += q.name;
    }
    throw unknown_machine(fmt::format("unknown machine '{}'; valid machines: {}", name, names));
  }
  return {p->build(), fmt::format("preset {}", p->name), {}, {}, {}, {}};
}

/// A topology file of any format, "-" being standard input, read by read_input(): a topology
/// document (`topo --json` output) when it starts with '{', else whatever
/// numaplace::load::text recognises. A numactl dump's free memory is kept when it gives it for
/// every node that has memory. Throws format_error or numaplace::topology_error naming the file.
inline loaded_topology load_topology_file(const std::string& path) {
  const bool standard_input = path == "-";
  const std::string name = input_name(path);
  const std::string source = standard_input ? "standard input" : fmt::format("file {}", path);
  const std::string text =
      read_input(path, "a topology file (topo --json output, a distance matrix or numactl --hardware output)");
  if (looks_like_json(text)) {
    topology_document doc = parse_topology_json(text, name);
    return {std::move(doc.topology), source, std::move(doc.notes), {}, {}, std::move(doc.memory_tiers)};
  }
  numaplace::load::numactl_details details;
  loaded_topology loaded{numaplace::load::text(text, name, &details), source, {}, {}, {}, {}};
  const numaplace::dynamic_topology& t = loaded.topology;
  std::vector<std::uint64_t> free(t.node_count(), 0);
  bool every = !details.free_bytes.empty();
  for (numaplace::node_index i = 0; i < t.node_count() && every; ++i) {
    const auto it = details.free_bytes.find(t.id_of(i));
    if (it != details.free_bytes.end()) {
      free[i] = it->second;
    } else {
      every = !t.has_memory(i);
    }
  }
  if (every) loaded.free_bytes = std::move(free);
  return loaded;
}

/// The sysfs node folder `root`; `label` starts the source ("this machine", "sysfs").
inline loaded_topology load_sysfs_source(const std::string& root, std::string_view label) {
  return {numaplace::load::sysfs(root), fmt::format("{} (sysfs {})", label, root), {}, {}, {}, numaplace::load::sysfs_memory_tiers_beside(root)};
}

/// The machine `request` names, when it names one without hwloc: a file, an inline topology
/// document, a preset, a sysfs folder or a generator spec. None (a hwloc source, or nothing:
/// this machine) when the caller must choose how to load it. Throws unknown_machine, and
/// format_error or numaplace::topology_error naming the bad input.
inline std::optional<loaded_topology> load_topology_source(const machine_request& request) {
  if (request.file) return load_topology_file(*request.file);
  if (request.topology_json) {
    topology_document doc = parse_topology_json(*request.topology_json, request.topology_json_source);
    return loaded_topology{std::move(doc.topology), fmt::format("file {}", request.topology_json_source),
                           std::move(doc.notes), {}, {}, std::move(doc.memory_tiers)};
  }
  if (request.name) return load_preset(*request.name);
  if (request.sysfs) return load_sysfs_source(*request.sysfs, "sysfs");
  if (request.generate) {
    return loaded_topology{numaplace::generate::from_spec(*request.generate),
                           fmt::format("generated {}", *request.generate), {}, {}, {}, {}};
  }
  return std::nullopt;
}

}  // namespace numaplace::formats
