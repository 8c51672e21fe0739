#pragma once
// The simulated memory: each process's regions as 2 MiB chunks, each on one node, with the
// page's NUMA state the kernel keeps (last cpupid, whether the scanner armed it), and the cost
// of reaching a region from each node. Access cost is in proportion to SLIT distance
// (cost_model.hpp), slowed on a node whose memory is asked for more than it can serve.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../policy/memory_migration.hpp"
#include "../topology/dynamic_topology.hpp"
#include "cost_model.hpp"
#include "machine.hpp"
#include "workload.hpp"

namespace numaplace::sim {

struct chunk_state {
  node_index node = 0;
  /// The page's last cpupid: who faulted on it last, and on which node that task ran.
  last_cpupid last{};
  /// Marked PROT_NONE by the scanner: the next access raises a hinting fault.
  bool armed = false;
};

struct region_state {
  std::uint32_t process = 0;
  bool shared = false;  // a heap every thread of the process works on
  std::vector<chunk_state> chunks;
  std::vector<std::uint32_t> on_node;  // chunks per node
  std::vector<double> cost_from;       // mean access cost from each node, refreshed
};

class memory_model {
 public:
  /// Every process's regions, in process order; region_base[p] is process p's first.
  memory_model(const workload& w, std::size_t nodes) {
    for (const process_spec& ps : w.processes) {
      region_base.push_back(static_cast<std::uint32_t>(regions.size()));
      for (const region& r : ps.regions) {
        region_state rs;
        rs.process = static_cast<std::uint32_t>(region_base.size() - 1);
        rs.shared = r.first_touch_by_all;
        rs.chunks.resize(r.chunks);
        rs.on_node.assign(nodes, 0);
        rs.cost_from.assign(nodes, 1.0);
        regions.push_back(std::move(rs));
      }
    }
    region_base.push_back(static_cast<std::uint32_t>(regions.size()));
  }

  /// Process p's regions.
  std::span<region_state> of_process(std::uint32_t p) {
    return std::span<region_state>(regions.data() + region_base[p], region_base[p + 1] - region_base[p]);
  }
  std::span<const region_state> of_process(std::uint32_t p) const {
    return std::span<const region_state>(regions.data() + region_base[p], region_base[p + 1] - region_base[p]);
  }

  /// Puts chunk `c` of region `rs` on node `to`.
  static void place(region_state& rs, chunk_state& c, node_index to) {
    --rs.on_node[c.node];
    ++rs.on_node[to];
    c.node = to;
  }

  /// All of a region on one node, its NUMA state forgotten (fresh memory of a new job).
  static void rehome(region_state& rs, node_index node) {
    std::fill(rs.on_node.begin(), rs.on_node.end(), 0u);
    rs.on_node[node] = static_cast<std::uint32_t>(rs.chunks.size());
    for (auto& ch : rs.chunks) ch = {node, {}, false};
  }

  /// Each chunk counted once on the node it is on.
  std::string check() const {
    for (std::size_t r = 0; r < regions.size(); ++r) {
      std::vector<std::uint32_t> count(regions[r].on_node.size(), 0);
      for (const auto& ch : regions[r].chunks) ++count[ch.node];
      if (count != regions[r].on_node) return "region " + std::to_string(r) + " miscounts its chunks per node";
    }
    return {};
  }

  /// Mean access cost of each region from each node, with bandwidth contention on the nodes
  /// the memory is on; then each task's latency at its node.
  void refresh_costs(machine& m, const workload& w, const cost_model& c) {
    const std::size_t n = m.node_count();
    const dynamic_topology& topo = m.topology();
    // The nodes each region has chunks on, in node order: the sums below add only those (on
    // 64 nodes most regions are on one or a few).
    occupied_.clear();
    first_.assign(regions.size() + 1, 0);
    for (std::size_t r = 0; r < regions.size(); ++r) {
      first_[r] = occupied_.size();
      for (node_index node = 0; node < n; ++node) {
        if (regions[r].on_node[node] != 0) occupied_.push_back(node);
      }
    }
    first_[regions.size()] = occupied_.size();
    std::vector<double> demand(n, 0.0), slowdown(n, 1.0);
    for (const auto& t : m.tasks) {
      if (!t.alive) continue;
      const double mb = w.processes[t.process].memory_bound;
      for (const auto& [r, weight] : t.accesses) {
        const auto& rs = regions[r];
        const double total = double(rs.chunks.size());
        for (const node_index node : nodes_of(r)) demand[node] += mb * weight * double(rs.on_node[node]) / total;
      }
    }
    for (node_index node = 0; node < n; ++node) {
      const double capacity = std::max(1.0, double(m.node_cpus[node].size()) * c.bandwidth_cpus_fraction);
      slowdown[node] = std::max(1.0, demand[node] / capacity);
    }
    const double local = topo.local_distance();
    for (std::size_t r = 0; r < regions.size(); ++r) {
      region_state& rs = regions[r];
      const double total = double(rs.chunks.size());
      for (node_index from = 0; from < n; ++from) {
        double cost = 0;
        for (const node_index node : nodes_of(r))
          cost += double(rs.on_node[node]) / total * topo.distance(from, node) / local * slowdown[node];
        rs.cost_from[from] = cost;
      }
    }
    for (auto& t : m.tasks) {
      if (t.alive) update_latency(t);
    }
  }

  /// A task's mean access cost and local share at the node it is on now.
  void update_latency(task_state& t) const {
    t.latency = 0;
    t.local_share = 0;
    for (const auto& [r, weight] : t.accesses) {
      const auto& rs = regions[r];
      t.latency += weight * rs.cost_from[t.node];
      t.local_share += weight * double(rs.on_node[t.node]) / double(rs.chunks.size());
    }
  }

  std::vector<region_state> regions;
  std::vector<std::uint32_t> region_base;  // one past the last process: the end

 private:
  std::span<const node_index> nodes_of(std::size_t r) const {
    return std::span<const node_index>(occupied_.data() + first_[r], first_[r + 1] - first_[r]);
  }
  std::vector<node_index> occupied_;
  std::vector<std::size_t> first_;
};

}  // namespace numaplace::sim
