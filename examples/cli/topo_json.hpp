#pragma once
// `numaplace topo --json`: the same facts as the text view, for scripts.

#include <nlohmann/json.hpp>

#include "topology_source.hpp"

namespace numaplace_cli {

/// Keys in this order: {"format": "numaplace-topology", "schema_version", "numaplace_version", "source", "notes", "kind", "levels", "local_distance", "max_distance", "node_count",
///  "nodes": [{"id", "cpus", "cpu_list", "memory_bytes", "has_cpu", "has_memory", "distances",
///             "neighbours", "circles": [{"distance", "nodes"}]}],
///  "distances", "asymmetries": [{"from", "to", "forward", "backward"}]}
/// Node references ("neighbours", "circles", "asymmetries") are OS node ids; matrix rows and
/// columns follow the "nodes" array. `--file` reads it back (topology_file.hpp).
nlohmann::ordered_json topology_json(const loaded_topology& loaded);

}  // namespace numaplace_cli
