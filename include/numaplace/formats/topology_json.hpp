#pragma once
// A machine as a document, both ways: topology_json writes a "numaplace-topology" document
// (what `numaplace topo --json` prints) and parse_topology_json reads it back. Only the facts a
// machine is made of are read (node ids, distances, CPUs, memory); the rest of the document
// (kind, levels, neighbours, ...) is derived from them and ignored on reading, so a document
// read and written again is the same document. Part of numaplace::formats (format_error.hpp).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../topology/cpulist.hpp"
#include "../topology/dynamic_topology.hpp"
#include "../topology/error.hpp"
#include "../topology/memory_tiers.hpp"
#include "../topology/neighbour_circles.hpp"
#include "../topology/types.hpp"
#include "format_error.hpp"
#include "json_checker.hpp"
#include "json_stamp.hpp"

namespace numaplace::formats {

inline constexpr std::string_view topology_format = "numaplace-topology";
/// Raised when a field changes meaning or goes away, not when one is added.
inline constexpr int topology_schema_version = 1;

/// A topology document that is not valid JSON or not a numaplace topology. Its message names
/// the document and the line:column of a syntax error or the JSON pointer of a bad value.
class topology_file_error : public format_error {
 public:
  using format_error::format_error;
};

/// What a topology document holds: the machine and the notes written with it.
struct topology_document {
  dynamic_topology topology;
  std::vector<std::string> notes;  ///< caveats, e.g. distances hwloc did not report
  /// The kernel's memory tiers (topology/memory_tiers.hpp), fastest first; empty when the
  /// document gives none.
  std::vector<numaplace::memory_tier> memory_tiers;
};

namespace topology_json_detail {

using json = nlohmann::json;

// The library's bound (numaplace::max_nodes, Linux's largest MAX_NUMNODES), checked before the
// n x n matrix is read so that its size is bounded for any input.
using numaplace::max_nodes;

// Keys `topo --json` writes that are derived from the others: accepted, not read.
inline constexpr std::string_view derived_top_keys[] = {"source",       "kind",       "levels",     "local_distance",
                                                 "max_distance", "node_count", "asymmetries"};
inline constexpr std::string_view derived_node_keys[] = {"neighbours", "circles"};

// Problems at a JSON pointer, or at a line and column of the text for syntax errors.
using checker = json_checker<topology_file_error>;

// The largest tier id: an abstract distance is a C int, a tier 128 of them.
inline constexpr std::uint64_t max_memory_tier_id = std::numeric_limits<int>::max() >> numaplace::memtier_chunk_bits;

template <std::size_t N>
bool among(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

inline std::uint64_t unsigned_at(const checker& c, const json& v, const std::string& path, std::uint64_t limit) {
  if (!v.is_number_unsigned()) c.fail(path, fmt::format("expected a whole number from 0, got {}", shown(v)));
  const std::uint64_t n = v.get<std::uint64_t>();
  if (n > limit) c.fail(path, fmt::format("{} is more than {}", n, limit));
  return n;
}

inline bool bool_at(const checker& c, const json& v, const std::string& path) {
  if (!v.is_boolean()) c.fail(path, fmt::format("expected true or false, got {}", shown(v)));
  return v.get<bool>();
}

inline std::vector<long long> distance_row(const checker& c, const json& v, const std::string& path) {
  if (!v.is_array()) c.fail(path, fmt::format("expected an array of distances, got {}", shown(v)));
  std::vector<long long> row;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& d = v[i];
    // Signed, so that the library reports a negative distance by row and column.
    if (!d.is_number_integer()) c.fail(fmt::format("{}/{}", path, i), fmt::format("expected a distance, got {}", shown(d)));
    if (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<long long>::max())) {
      c.fail(fmt::format("{}/{}", path, i), fmt::format("{} is not a distance", shown(d)));
    }
    row.push_back(d.get<long long>());
  }
  return row;
}

inline std::vector<unsigned> cpus_at(const checker& c, const json& node, const std::string& path) {
  std::vector<unsigned> cpus;
  const auto list = node.find("cpus");
  if (list != node.end()) {
    if (!list->is_array()) c.fail(path + "/cpus", fmt::format("expected an array of CPU numbers, got {}", shown(*list)));
    for (std::size_t i = 0; i < list->size(); ++i) {
      const std::string at = fmt::format("{}/cpus/{}", path, i);
      cpus.push_back(static_cast<unsigned>(unsigned_at(c, (*list)[i], at, numaplace::max_cpu_number)));
      if (i > 0 && cpus[i] <= cpus[i - 1]) c.fail(at, fmt::format("CPU {} is out of order; CPUs are listed ascending, once each", cpus[i]));
    }
  }
  // cpu_list is the same set, as people read it: taken when cpus is absent, checked when both are given.
  if (const auto text = node.find("cpu_list"); text != node.end()) {
    if (!text->is_string()) c.fail(path + "/cpu_list", fmt::format("expected a cpulist such as \"0-3,8\", got {}", shown(*text)));
    std::vector<unsigned> parsed;
    try {
      parsed = numaplace::parse_cpulist(text->get<std::string>(), "", 0);
    } catch (const numaplace::topology_error& e) {
      c.fail(path + "/cpu_list", e.reason());
    }
    if (list == node.end()) return parsed;
    if (parsed != cpus) {
      c.fail(path + "/cpu_list", fmt::format("is \"{}\" but cpus lists {}", text->get<std::string>(), format_cpulist(cpus)));
    }
  }
  return cpus;
}

inline numaplace::node_attributes node_at(const checker& c, const json& node, const std::string& path, std::size_t index) {
  if (!node.is_object()) c.fail(path, fmt::format("expected a node object, got {}", shown(node)));
  for (const auto& [key, value] : node.items()) {
    if (key != "id" && key != "cpus" && key != "cpu_list" && key != "memory_bytes" && key != "has_cpu" &&
        key != "has_memory" && key != "distances" && !among(key, derived_node_keys)) {
      c.fail(path + "/" + key, "unknown key; a node has id, cpus, cpu_list, memory_bytes, has_cpu, has_memory, distances");
    }
  }
  numaplace::node_attributes a;
  a.id = static_cast<numaplace::node_id>(index);
  if (const auto id = node.find("id"); id != node.end()) {
    a.id = static_cast<numaplace::node_id>(unsigned_at(c, *id, path + "/id", std::numeric_limits<numaplace::node_id>::max()));
  }
  a.cpus = cpus_at(c, node, path);
  if (const auto m = node.find("memory_bytes"); m != node.end()) {
    a.memory_bytes = unsigned_at(c, *m, path + "/memory_bytes", std::numeric_limits<std::uint64_t>::max());
  }
  if (const auto h = node.find("has_cpu"); h != node.end()) a.has_cpu = bool_at(c, *h, path + "/has_cpu");
  if (const auto h = node.find("has_memory"); h != node.end()) a.has_memory = bool_at(c, *h, path + "/has_memory");
  if (!a.has_cpu && !a.cpus.empty()) c.fail(path + "/cpus", "lists CPUs but has_cpu is false");
  return a;
}

// "memory_tiers": [{"tier": 4, "nodes": [0, 1]}, ...], any order: each node with memory in
// exactly one tier, as the kernel keeps them (memory_tierN/nodelist). Fastest first.
inline std::vector<numaplace::memory_tier> memory_tiers_at(const checker& c, const json& v, const dynamic_topology& t) {
  const std::string path = "/memory_tiers";
  if (!v.is_array()) c.fail(path, fmt::format("expected an array of tiers such as {{\"tier\": 4, \"nodes\": [0, 1]}}, got {}", shown(v)));
  std::vector<numaplace::memory_tier> tiers;
  std::vector<std::optional<std::size_t>> tier_of(t.node_count());  // the entry naming each node
  for (std::size_t k = 0; k < v.size(); ++k) {
    const json& entry = v[k];
    const std::string at = fmt::format("{}/{}", path, k);
    if (!entry.is_object()) c.fail(at, fmt::format("expected a tier object, got {}", shown(entry)));
    for (const auto& [key, value] : entry.items()) {
      if (key != "tier" && key != "nodes") c.fail(at + "/" + key, "unknown key; a tier has tier and nodes");
    }
    if (!entry.contains("tier")) c.fail(at, "has no \"tier\" (memory_tierN's N)");
    if (!entry.contains("nodes")) c.fail(at, "has no \"nodes\"");
    numaplace::memory_tier tier;
    tier.id = static_cast<unsigned>(unsigned_at(c, entry["tier"], at + "/tier", max_memory_tier_id));
    for (std::size_t j = 0; j < tiers.size(); ++j) {
      if (tiers[j].id == tier.id) c.fail(at + "/tier", fmt::format("tier {} is also {}/{}'s", tier.id, path, j));
    }
    const json& nodes = entry["nodes"];
    if (!nodes.is_array() || nodes.empty()) c.fail(at + "/nodes", fmt::format("expected a non-empty array of node ids, got {}", shown(nodes)));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const std::string node_at = fmt::format("{}/nodes/{}", at, i);
      const auto id = static_cast<node_id>(unsigned_at(c, nodes[i], node_at, static_cast<std::uint64_t>(std::numeric_limits<node_id>::max())));
      const std::optional<node_index> n = t.index_of(id);
      if (!n) c.fail(node_at, fmt::format("node {} is not in the topology", id));
      if (!t.has_memory(*n)) c.fail(node_at, fmt::format("node {} has no memory; only memory nodes are in tiers", id));
      if (tier_of[*n]) c.fail(node_at, fmt::format("node {} is also in {}/{}", id, path, *tier_of[*n]));
      tier_of[*n] = k;
      tier.nodes.push_back(static_cast<unsigned>(id));
    }
    std::sort(tier.nodes.begin(), tier.nodes.end());
    tiers.push_back(std::move(tier));
  }
  for (node_index n = 0; n < t.node_count(); ++n) {
    if (t.has_memory(n) && !tier_of[n]) {
      c.fail(path, fmt::format("node {} has memory but is in no tier; the kernel puts every memory node in one", t.id_of(n)));
    }
  }
  std::sort(tiers.begin(), tiers.end(), [](const numaplace::memory_tier& a, const numaplace::memory_tier& b) { return a.id < b.id; });
  return tiers;
}

}  // namespace topology_json_detail

/// True when `text` looks like JSON (its first non-blank character is '{'); the other
/// topology formats (a matrix, numactl output) never start so.
inline bool looks_like_json(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

/// Parses a topology document; `source` names it in errors. Throws topology_file_error (a
/// topology the library rejects too, located at the distance or node at fault).
inline topology_document parse_topology_json(std::string_view text, const std::string& source) {
  using namespace topology_json_detail;
  const checker c(source);
  if (const auto deep = too_deep_at(text)) c.fail_at(text, *deep, too_deep_message());
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    c.fail_at(text, e.byte == 0 ? 0 : e.byte - 1, reason(e));  // e.byte counts from 1
  } catch (const json::exception& e) {
    c.fail("", reason(e));
  }
  if (!doc.is_object()) c.fail("", fmt::format("expected a JSON object, got {}", shown(doc)));
  check_stamp(doc, topology_format, topology_schema_version,
              [&](std::string_view path, const std::string& what) { c.fail(path, what); });
  for (const auto& [key, value] : doc.items()) {
    if (!is_stamp_key(key) && key != "nodes" && key != "distances" && key != "notes" && key != "memory_tiers" &&
        !among(key, derived_top_keys)) {
      c.fail("/" + key, "unknown key; a topology has nodes, distances, memory_tiers and notes (the rest of topo --json is derived)");
    }
  }

  const auto nodes = doc.find("nodes");
  const auto matrix = doc.find("distances");
  if (nodes == doc.end() && matrix == doc.end()) c.fail("", "has no \"nodes\" (nor \"distances\"); expected one of them");
  if (nodes != doc.end() && !nodes->is_array()) c.fail("/nodes", fmt::format("expected an array of nodes, got {}", shown(*nodes)));
  if (matrix != doc.end() && !matrix->is_array()) {
    c.fail("/distances", fmt::format("expected an array of rows of distances, got {}", shown(*matrix)));
  }
  const std::size_t n = nodes != doc.end() ? nodes->size() : matrix->size();
  if (n == 0) c.fail(nodes != doc.end() ? "/nodes" : "/distances", "is empty; a machine has at least one node");
  if (n > max_nodes) c.fail(nodes != doc.end() ? "/nodes" : "/distances", fmt::format("has {} nodes; at most {} are read", n, max_nodes));
  if (nodes != doc.end() && matrix != doc.end() && matrix->size() != n) {
    c.fail("/distances", fmt::format("has {} rows for {} nodes", matrix->size(), n));
  }

  std::vector<std::vector<long long>> rows(n);
  std::vector<numaplace::node_attributes> attributes;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string node_path = fmt::format("/nodes/{}", i);
    const std::string row_path = fmt::format("/distances/{}", i);
    if (nodes != doc.end()) {
      attributes.push_back(node_at(c, (*nodes)[i], node_path, i));
      if (const auto d = (*nodes)[i].find("distances"); d != (*nodes)[i].end()) rows[i] = distance_row(c, *d, node_path + "/distances");
    }
    if (matrix != doc.end()) {
      std::vector<long long> row = distance_row(c, (*matrix)[i], row_path);
      if (nodes != doc.end() && (*nodes)[i].contains("distances") && row != rows[i]) {
        c.fail(row_path, fmt::format("differs from {}/distances; give the row once, or the same in both", node_path));
      }
      rows[i] = std::move(row);
    } else if (!(*nodes)[i].contains("distances")) {
      c.fail(node_path, "has no distances (and the document has no \"distances\" matrix)");
    }
  }
  for (std::size_t i = 0; i < attributes.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (attributes[i].id == attributes[j].id) {
        c.fail(fmt::format("/nodes/{}/id", i), fmt::format("node id {} is also /nodes/{}'s", attributes[i].id, j));
      }
    }
  }

  // The library checks the matrix (square, local distance smallest, ...); its row and column
  // become a JSON pointer into the rows given.
  std::optional<numaplace::dynamic_topology> topology;
  try {
    topology.emplace(rows, std::move(attributes));
  } catch (const numaplace::topology_error& e) {
    const numaplace::error_location& w = e.where();
    std::string at = matrix != doc.end() ? "/distances" : "/nodes";
    if (w.row) at += matrix != doc.end() ? fmt::format("/{}", *w.row) : fmt::format("/{}/distances", *w.row);
    if (w.row && w.column) at += fmt::format("/{}", *w.column);
    c.fail(at, e.reason());
  }
  topology_document loaded{std::move(*topology), {}, {}};
  if (const auto notes = doc.find("notes"); notes != doc.end()) {
    if (!notes->is_array()) c.fail("/notes", fmt::format("expected an array of strings, got {}", shown(*notes)));
    for (std::size_t i = 0; i < notes->size(); ++i) {
      if (!(*notes)[i].is_string()) c.fail(fmt::format("/notes/{}", i), fmt::format("expected a string, got {}", shown((*notes)[i])));
      loaded.notes.push_back((*notes)[i].get<std::string>());
    }
  }
  if (const auto tiers = doc.find("memory_tiers"); tiers != doc.end()) loaded.memory_tiers = memory_tiers_at(c, *tiers, loaded.topology);
  return loaded;
}


namespace topology_json_detail {

inline std::vector<distance_t> distances_from(const dynamic_topology& t, node_index r) {
  std::vector<distance_t> values;
  for (node_index c = 0; c < t.node_count(); ++c) values.push_back(t.distance(r, c));
  return values;
}

inline nlohmann::ordered_json node_json(const dynamic_topology& t, node_index i) {
  using ojson = nlohmann::ordered_json;
  std::vector<node_id> neighbours;
  for (const node_index n : t.neighbours(i)) neighbours.push_back(t.id_of(n));
  ojson circles = ojson::array();
  for (const neighbour_circle& c : neighbour_circles(t, i)) circles.push_back({{"distance", c.distance}, {"nodes", c.nodes}});
  return {{"id", t.id_of(i)},
          {"cpus", std::vector<unsigned>(t.cpus(i).begin(), t.cpus(i).end())},
          {"cpu_list", format_cpulist(std::vector<unsigned>(t.cpus(i).begin(), t.cpus(i).end()))},
          {"memory_bytes", t.memory_bytes(i)},
          {"has_cpu", t.has_cpu(i)},
          {"has_memory", t.has_memory(i)},
          {"distances", distances_from(t, i)},
          {"neighbours", neighbours},
          {"circles", circles}};
}

inline nlohmann::ordered_json asymmetries_json(const dynamic_topology& t) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const asymmetry& a : t.asymmetries()) {
    list.push_back({{"from", t.id_of(static_cast<node_index>(a.row))},
                    {"to", t.id_of(static_cast<node_index>(a.column))},
                    {"forward", a.forward},
                    {"backward", a.backward}});
  }
  return list;
}

}  // namespace topology_json_detail

/// The document of `t`, said to come from `source` and carrying `notes`. Keys in this order:
/// {"format": "numaplace-topology", "schema_version", "numaplace_version", "source", "notes",
///  "kind", "levels", "local_distance", "max_distance", "node_count",
///  "nodes": [{"id", "cpus", "cpu_list", "memory_bytes", "has_cpu", "has_memory", "distances",
///             "neighbours", "circles": [{"distance", "nodes"}]}],
///  "distances", "asymmetries": [{"from", "to", "forward", "backward"}],
///  "memory_tiers": [{"tier", "nodes"}] (only when `tiers` has any)}
/// Node references ("neighbours", "circles", "asymmetries", tiers' "nodes") are OS node ids;
/// matrix rows and columns follow the "nodes" array. parse_topology_json reads it back to the
/// same machine.
inline nlohmann::ordered_json topology_json(const dynamic_topology& t, const std::string& source,
                                            const std::vector<std::string>& notes,
                                            const std::vector<numaplace::memory_tier>& tiers = {}) {
  using namespace topology_json_detail;
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
  for (node_index i = 0; i < t.node_count(); ++i) {
    nodes.push_back(node_json(t, i));
    matrix.push_back(distances_from(t, i));
  }
  nlohmann::ordered_json doc = {{"source", source},
                                {"notes", notes},
                                {"kind", std::string(numaplace::to_string(t.kind()))},
                                {"levels", std::vector<distance_t>(t.levels().begin(), t.levels().end())},
                                {"local_distance", t.local_distance()},
                                {"max_distance", t.max_distance()},
                                {"node_count", t.node_count()},
                                {"nodes", nodes},
                                {"distances", matrix},
                                {"asymmetries", asymmetries_json(t)}};
  if (!tiers.empty()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const numaplace::memory_tier& tier : tiers) list.push_back({{"tier", tier.id}, {"nodes", tier.nodes}});
    doc["memory_tiers"] = list;
  }
  stamp_json(doc, topology_format, topology_schema_version);
  return doc;
}

}  // namespace numaplace::formats
