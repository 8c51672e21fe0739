#include "advice.hpp"

#include <numaplace/policy/concentric_spread.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_stats.hpp>
#include <numaplace/topology/cpulist.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <stdexcept>

namespace balancer {

namespace {

using numaplace::node_index;
using numaplace::no_node;

constexpr std::uint64_t unit = 4096;  // one fault per 4 KiB

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string nodes_text(const std::vector<node_index>& nodes, const numaplace::dynamic_topology& t) {
  std::vector<unsigned> ids;
  for (const node_index n : nodes) ids.push_back(static_cast<unsigned>(t.id_of(n)));
  std::sort(ids.begin(), ids.end());
  return list_text(ids);
}

}  // namespace

std::string list_text(const std::vector<unsigned>& v) {
  const std::string out = numaplace::format_cpulist(v);
  return out.empty() ? "-" : out;
}

advice advise(const numaplace::dynamic_topology& t, const process_snapshot& p, std::string_view stack) {
  const std::size_t n = t.node_count();
  advice a;
  a.pid = p.pid;
  a.name = p.status.name;
  a.threads = p.threads.size();
  a.bytes_per_node.assign(n, 0);

  // Faults from pages: [node][shared, private], in 4 KiB units.
  const bool single = p.threads.size() <= 1;
  std::vector<std::uint64_t> memory(2 * n, 0), cpu(2 * n, 0);
  for (const auto& [id, bytes] : p.memory.bytes) {
    const auto idx = t.index_of(static_cast<numaplace::node_id>(id));
    if (!idx) {
      a.why.push_back("ignored " + mib(bytes) + " on node " + std::to_string(id) + ", which the topology does not have");
      continue;
    }
    const auto anon_it = p.memory.anon_bytes.find(id);
    const std::uint64_t anon = anon_it == p.memory.anon_bytes.end() ? 0 : anon_it->second;
    const std::uint64_t priv = single ? anon : 0;
    memory[2 * *idx + 1] += priv / unit;
    memory[2 * *idx] += (bytes - priv) / unit;
    a.bytes_per_node[*idx] += bytes;
    a.bytes += bytes;
  }
  // Where the threads run: each thread's share of the faults on its last CPU's node.
  std::vector<unsigned> threads_on(n, 0);
  for (const auto& th : p.threads) {
    for (node_index i = 0; i < n; ++i) {
      const auto cpus = t.cpus(i);
      if (th.processor >= 0 && std::find(cpus.begin(), cpus.end(), static_cast<unsigned>(th.processor)) != cpus.end()) {
        ++threads_on[i];
        break;
      }
    }
  }
  std::uint64_t total_faults = 0;
  for (const auto f : memory) total_faults += f;
  const std::size_t kind_slot = single ? 1 : 0;
  for (node_index i = 0; i < n; ++i) {
    if (!p.threads.empty()) cpu[2 * i + kind_slot] = total_faults * threads_on[i] / p.threads.size();
  }
  const auto stats = numaplace::fault_stats::from_counts(memory, cpu);
  const numaplace::decision_input in{stats.view(), single ? numaplace::fault_view{} : stats.view()};

  const bool found =
      numaplace::with_named_placement(stack, t, [&](const auto& pl) { a.preferred = pl.preferred_node(in); });
  if (!found) throw std::invalid_argument("no stack called '" + std::string(stack) + "'");

  // The allowed nodes and CPUs.
  const std::set<unsigned> mems(p.status.mems_allowed.begin(), p.status.mems_allowed.end());
  const std::set<unsigned> cpus_allowed(p.status.cpus_allowed.begin(), p.status.cpus_allowed.end());
  const auto allowed = [&](node_index i) { return mems.count(static_cast<unsigned>(t.id_of(i))) != 0; };
  const auto usable_cpus = [&](node_index i) {
    std::vector<unsigned> out;
    for (const unsigned c : t.cpus(i)) {
      if (cpus_allowed.count(c) != 0) out.push_back(c);
    }
    return out;
  };

  const auto id_text = [&](node_index i) { return std::to_string(t.id_of(i)); };
  node_index centre = a.preferred;
  if (centre != no_node) {
    const std::uint64_t on = a.bytes_per_node[centre];
    a.why.push_back("stack " + std::string(stack) + " prefers node " + id_text(centre) + ": " + mib(on) + " of " +
                    mib(a.bytes) + " resident there" +
                    (single ? " (single-threaded: its anonymous pages count as private faults)"
                            : " (multi-threaded: one numa_group, its pages count as shared faults)"));
    if (!allowed(centre)) {
      a.why.push_back("node " + id_text(centre) + " is not in Mems_allowed; circles still start there");
    }
  } else {
    // No faults (no resident pages): start where most threads run, else the first allowed node.
    const auto most = std::max_element(threads_on.begin(), threads_on.end());
    if (most != threads_on.end() && *most > 0) {
      centre = static_cast<node_index>(most - threads_on.begin());
      a.why.push_back("no resident pages to decide from: starting at node " + id_text(centre) + ", where " +
                      std::to_string(*most) + " of its threads last ran");
    } else {
      for (node_index i = 0; i < n && centre == no_node; ++i) {
        if (allowed(i)) centre = i;
      }
      if (centre == no_node) {
        a.why.push_back("no allowed node: nothing to recommend");
        return a;
      }
      a.why.push_back("no resident pages and no thread CPUs known: starting at node " + id_text(centre));
    }
  }

  // Widen circle by circle until CPUs and memory suffice.
  std::size_t cpus_in_set = 0;
  std::uint64_t memory_in_set = 0;
  const std::size_t need_cpus = std::max<std::size_t>(a.threads, 1);
  for (const numaplace::circle c : numaplace::circles(t, centre)) {
    std::vector<node_index> added;
    for (const node_index i : c.nodes) {
      if (!allowed(i)) continue;
      added.push_back(i);
      a.nodes.push_back(i);
      const auto u = usable_cpus(i);
      cpus_in_set += u.size();
      a.cpus.insert(a.cpus.end(), u.begin(), u.end());
      // Saturating: a sysfs tree may claim nodes of nearly 2^64 bytes each.
      if (t.has_memory(i)) memory_in_set += std::min(t.memory_bytes(i), std::numeric_limits<std::uint64_t>::max() - memory_in_set);
    }
    if (added.empty()) continue;
    const bool enough = cpus_in_set >= need_cpus && memory_in_set >= a.bytes;
    std::string line = (a.nodes.size() == added.size() ? std::string("node")
                                                        : "widened by the circle at distance " +
                                                              std::to_string(c.distance) + ": node") +
                       std::string(added.size() > 1 ? "s " : " ") + nodes_text(added, t) + " -> " +
                       std::to_string(cpus_in_set) + " CPUs for " + std::to_string(need_cpus) + " threads, " +
                       mib(memory_in_set) + " for " + mib(a.bytes);
    a.why.push_back(line + (enough ? ": enough" : ": not enough"));
    if (enough) break;
  }
  if (cpus_in_set < need_cpus || memory_in_set < a.bytes) {
    a.why.push_back("even every allowed node is not enough; recommending all of them");
  }
  std::sort(a.cpus.begin(), a.cpus.end());
  return a;
}

}  // namespace balancer
