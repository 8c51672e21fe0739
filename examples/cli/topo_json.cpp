#include "topo_json.hpp"

#include <string>
#include <vector>

#include "cpu_ranges.hpp"
#include "json_stamp.hpp"
#include "neighbour_circles.hpp"
#include "topology_file.hpp"

namespace numaplace_cli {

namespace {

using json = nlohmann::ordered_json;  // keys in the order written: summary first
using numaplace::dynamic_topology;
using numaplace::node_index;

std::vector<numaplace::distance_t> row(const dynamic_topology& t, node_index r) {
  std::vector<numaplace::distance_t> values;
  for (node_index c = 0; c < t.node_count(); ++c) values.push_back(t.distance(r, c));
  return values;
}

json node_json(const dynamic_topology& t, node_index i) {
  std::vector<numaplace::node_id> neighbours;
  for (const node_index n : t.neighbours(i)) neighbours.push_back(t.id_of(n));
  json circles = json::array();
  for (const circle& c : neighbour_circles(t, i)) circles.push_back({{"distance", c.distance}, {"nodes", c.nodes}});
  return {{"id", t.id_of(i)},
          {"cpus", std::vector<unsigned>(t.cpus(i).begin(), t.cpus(i).end())},
          {"cpu_list", cpu_ranges(t.cpus(i))},
          {"memory_bytes", t.memory_bytes(i)},
          {"has_cpu", t.has_cpu(i)},
          {"has_memory", t.has_memory(i)},
          {"distances", row(t, i)},
          {"neighbours", neighbours},
          {"circles", circles}};
}

json asymmetries_json(const dynamic_topology& t) {
  json list = json::array();
  for (const numaplace::asymmetry& a : t.asymmetries()) {
    list.push_back({{"from", t.id_of(static_cast<node_index>(a.row))},
                    {"to", t.id_of(static_cast<node_index>(a.column))},
                    {"forward", a.forward},
                    {"backward", a.backward}});
  }
  return list;
}

}  // namespace

json topology_json(const loaded_topology& loaded) {
  const dynamic_topology& t = loaded.topology;
  json nodes = json::array();
  json matrix = json::array();
  for (node_index i = 0; i < t.node_count(); ++i) {
    nodes.push_back(node_json(t, i));
    matrix.push_back(row(t, i));
  }
  json doc = {{"source", loaded.source},
          {"notes", loaded.notes},
          {"kind", std::string(numaplace::to_string(t.kind()))},
          {"levels", std::vector<numaplace::distance_t>(t.levels().begin(), t.levels().end())},
          {"local_distance", t.local_distance()},
          {"max_distance", t.max_distance()},
          {"node_count", t.node_count()},
          {"nodes", nodes},
          {"distances", matrix},
          {"asymmetries", asymmetries_json(t)}};
  stamp_json(doc, topology_format, topology_schema_version);
  return doc;
}

}  // namespace numaplace_cli
