#include "topo_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/neighbour_circles.hpp>

#include "memory_text.hpp"

namespace numaplace_cli {

namespace {

using numaplace::dynamic_topology;
using numaplace::format_cpulist;
using numaplace::node_index;
using numaplace::neighbour_circles;
using circle = numaplace::neighbour_circle;

void print_summary(const loaded_topology& loaded) {
  const dynamic_topology& t = loaded.topology;
  fmt::print("source:         {}\n", loaded.source);
  for (const std::string& note : loaded.notes) fmt::print("note:           {}\n", note);
  if (!numaplace::formats::knows_cpus(t)) fmt::print("note:           {}\n", numaplace::formats::missing_cpus_note());
  fmt::print("nodes:          {}\n", t.node_count());
  fmt::print("kind:           {}\n", numaplace::to_string(t.kind()));
  fmt::print("levels:         {}\n", fmt::join(t.levels(), " "));
  fmt::print("local distance: {}\n", t.local_distance());
  fmt::print("max distance:   {}\n", t.max_distance());
  // The kernel's own grouping, fastest first: NUMA balancing's tiering mode promotes hot pages
  // from a lower tier, and demotes cold ones to it.
  if (!loaded.memory_tiers.empty()) {
    std::vector<std::string> tiers;
    for (const numaplace::memory_tier& tier : loaded.memory_tiers) {
      tiers.push_back(fmt::format("{} (node{} {})", tier.id, tier.nodes.size() == 1 ? "" : "s", format_cpulist(tier.nodes)));
    }
    fmt::print("memory tiers:   {}\n", fmt::join(tiers, ", "));
  }
}

void print_nodes(const dynamic_topology& t) {
  std::size_t cpu_width = 4;
  for (node_index i = 0; i < t.node_count(); ++i) cpu_width = std::max(cpu_width, format_cpulist({t.cpus(i).begin(), t.cpus(i).end()}).size());
  fmt::print("\n{:>5}  {:<{}}  {}\n", "node", "cpus", cpu_width, "memory");
  for (node_index i = 0; i < t.node_count(); ++i) {
    const std::string cpus = t.has_cpu(i) ? format_cpulist({t.cpus(i).begin(), t.cpus(i).end()}) : "none";
    fmt::print("{:>5}  {:<{}}  {}\n", t.id_of(i), cpus.empty() ? "unknown" : cpus, cpu_width, memory_text(t.node(i)));
  }
}

void print_distances(const dynamic_topology& t) {
  std::size_t width = 3;
  for (node_index i = 0; i < t.node_count(); ++i) width = std::max(width, fmt::formatted_size("{}", t.id_of(i)));
  fmt::print("\ndistances\n{:>5} ", "node");
  for (node_index i = 0; i < t.node_count(); ++i) fmt::print(" {:>{}}", t.id_of(i), width);
  fmt::print("\n");
  for (node_index r = 0; r < t.node_count(); ++r) {
    fmt::print("{:>5} ", t.id_of(r));
    for (node_index c = 0; c < t.node_count(); ++c) fmt::print(" {:>{}}", t.distance(r, c), width);
    fmt::print("\n");
  }
}

// "node 0: 10:[0] 12:[1] 17:[2 3] 19:[4 5 6 7]"
void print_neighbours(const dynamic_topology& t) {
  fmt::print("\nneighbours by distance\n");
  for (node_index i = 0; i < t.node_count(); ++i) {
    fmt::print("node {}:", t.id_of(i));
    for (const circle& c : neighbour_circles(t, i)) fmt::print(" {}:[{}]", c.distance, fmt::join(c.nodes, " "));
    fmt::print("\n");
  }
}

}  // namespace

void print_topology_text(const loaded_topology& loaded) {
  print_summary(loaded);
  print_nodes(loaded.topology);
  print_distances(loaded.topology);
  print_neighbours(loaded.topology);
}

}  // namespace numaplace_cli
