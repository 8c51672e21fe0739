#include "sim_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "memory_text.hpp"

namespace numaplace_cli {

namespace sim = numaplace::sim;

using numaplace::dynamic_topology;
using numaplace::node_id;
using numaplace::node_index;

std::string scaled_text(const std::vector<sim::scaled_assumption>& scaled) {
  std::string out;
  for (const auto& a : scaled) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", a.name, a.factor);
  return out;
}

namespace {

// "0-3", "0,2", "4-7,9"
std::string compact(const std::vector<node_id>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j - i >= 2 ? fmt::format("{}-{}", ids[i], ids[j])
                      : (j == i ? fmt::format("{}", ids[i]) : fmt::format("{},{}", ids[i], ids[j]));
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string node_list(const std::vector<node_id>& ids) {
  if (ids.empty()) return "-";
  std::string out;
  for (node_id id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

std::string describe_node_groups(const dynamic_topology& t) {
  std::string out;
  for (const auto& g : sim::node_groups(t)) {
    std::vector<node_id> ids;
    for (node_index i : g) ids.push_back(t.id_of(i));
    std::sort(ids.begin(), ids.end());
    out += (out.empty() ? "{" : " {") + compact(ids) + "}";
  }
  return out;
}

std::string describe_node_memory(const dynamic_topology& t) {
  bool all_known = true, all_unknown = true, all_same = true;
  for (node_index i = 0; i < t.node_count(); ++i) {
    const bool known = !t.has_memory(i) || t.memory_bytes(i) != 0;
    (known ? all_unknown : all_known) = false;
    all_same = all_same && memory_text(t.node(i)) == memory_text(t.node(0));
  }
  if (all_unknown) return "node sizes not given: no node fills (--file, --generate /memory=SIZE give them)";
  std::string sizes;
  if (all_same) {
    sizes = memory_text(t.node(0)) + " a node";
  } else {
    for (node_index i = 0; i < t.node_count(); ++i) {
      sizes += fmt::format("{}node {} {}", sizes.empty() ? "" : ", ", t.id_of(i), memory_text(t.node(i)));
    }
  }
  return sizes + (all_known ? "" : " (unknown: no limit)") +
         "; the workload may use all of it, and a full node's allocations fall back to the nearest with room";
}

}  // namespace numaplace_cli
