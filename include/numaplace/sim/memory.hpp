#pragma once
// The simulated memory: each process's regions as 2 MiB chunks, each on one node, with the
// page's NUMA state the kernel keeps (last cpupid, whether the scanner armed it), and the cost
// of reaching a region from each node. Access cost is in proportion to SLIT distance
// (cost_model.hpp), slowed on a node whose memory is asked for more than it can serve.
// Each node holds at most its memory size in chunks: the workload may use all of it (no
// kernel, page cache or watermark reserve); a node whose size is not known holds any amount.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../policy/page_migration.hpp"
#include "machine.hpp"
#include "result.hpp"
#include "workload.hpp"

namespace numaplace::sim {

struct chunk_state {
  node_index node = 0;
  /// The page's last cpupid: who faulted on it last, and on which node that task ran.
  last_cpupid last{};
  /// Marked PROT_NONE by the scanner: the next access raises a hinting fault.
  bool armed = false;
  /// When the scanner marked it, in ms: on a slower tier in tiering mode the page keeps this
  /// instead of its cpupid (folio_xchg_access_time(), 6.0), for the hint-fault latency.
  std::uint32_t scanned_ms = 0;
};

struct region_state {
  std::uint32_t process = 0;
  bool shared = false;  // a heap every thread of the process works on
  /// First touched (first_touch.hpp): before its process starts a region is on no node.
  bool touched = false;
  /// Freed with its process (its chunks count on no node's memory; their last places stay).
  bool released = false;
  std::vector<chunk_state> chunks;
  std::vector<std::uint32_t> on_node;  // chunks per node
  std::vector<node_index> occupied;    // the nodes with on_node > 0, in no particular order
};

class memory_model {
 public:
  /// No limit: a node whose memory size is not known.
  static constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
  /// The bytes of one chunk (a THP-sized unit).
  static constexpr std::uint64_t chunk_bytes = std::uint64_t{2} << 20;

  /// Every process's regions, in process order; region_base[p] is process p's first.
  /// `chunks_per_node[n]`: the chunks node n can hold (unlimited where unknown; 0 without memory).
  memory_model(const workload& w, std::vector<std::uint64_t> chunks_per_node)
      : capacity(std::move(chunks_per_node)), used(capacity.size(), 0), nodes_(capacity.size()) {
    for (const process_spec& ps : w.processes) {
      region_base.push_back(static_cast<std::uint32_t>(regions.size()));
      for (const region& r : ps.regions) {
        region_state rs;
        rs.process = static_cast<std::uint32_t>(region_base.size() - 1);
        rs.shared = r.first_touch_by_all;
        rs.chunks.resize(r.chunks);
        rs.on_node.assign(nodes_, 0);
        regions.push_back(std::move(rs));
      }
    }
    region_base.push_back(static_cast<std::uint32_t>(regions.size()));
  }

  /// A machine's nodes as chunk capacities: a node's memory size in whole chunks, unlimited
  /// where the size is not known, none on a node without memory.
  template <class Topology>
  static std::vector<std::uint64_t> capacities_of(const Topology& t) {
    std::vector<std::uint64_t> chunks(t.node_count(), unlimited);
    for (node_index n = 0; n < chunks.size(); ++n) {
      if (!t.has_memory(n)) chunks[n] = 0;
      else if (t.memory_bytes(n) != 0) chunks[n] = t.memory_bytes(n) / chunk_bytes;
    }
    return chunks;
  }

  /// Whether node n can take `chunks` more.
  bool has_room(node_index n, std::uint64_t chunks = 1) const noexcept {
    return capacity[n] == unlimited || (used[n] <= capacity[n] && capacity[n] - used[n] >= chunks);
  }

  /// Process p's regions.
  std::span<region_state> of_process(std::uint32_t p) {
    return std::span<region_state>(regions.data() + region_base[p], region_base[p + 1] - region_base[p]);
  }
  std::span<const region_state> of_process(std::uint32_t p) const {
    return std::span<const region_state>(regions.data() + region_base[p], region_base[p + 1] - region_base[p]);
  }

  /// Moves chunk `c` of region `rs`, placed already, to node `to` (a migration).
  void place(region_state& rs, chunk_state& c, node_index to) {
    --used[c.node];
    if (--rs.on_node[c.node] == 0) std::erase(rs.occupied, c.node);
    put(rs, c, to);
  }

  /// Puts chunk `c` of region `rs`, on no node yet, on node `to` (an allocation).
  void put(region_state& rs, chunk_state& c, node_index to) {
    ++used[to];
    if (rs.on_node[to]++ == 0) rs.occupied.push_back(to);
    c.node = to;
  }

  /// Frees all of a region (fresh memory of a new job follows, put chunk by chunk), its NUMA
  /// state forgotten.
  void clear(region_state& rs) {
    if (rs.touched && !rs.released) {
      for (const node_index n : rs.occupied) used[n] -= rs.on_node[n];
    }
    std::fill(rs.on_node.begin(), rs.on_node.end(), 0u);
    rs.occupied.clear();
    for (auto& ch : rs.chunks) ch = {};
    rs.touched = false;
    rs.released = false;
  }

  /// Process p has exited: its memory is free for others (exit_mmap()).
  void release(std::uint32_t p) {
    for (region_state& rs : of_process(p)) {
      if (!rs.touched || rs.released) continue;
      for (const node_index n : rs.occupied) used[n] -= rs.on_node[n];
      rs.released = true;
    }
  }

  /// Each chunk counted once on the node it is on; a region not touched yet counted nowhere;
  /// each node's use the sum of the regions it holds, and within its capacity.
  std::string check() const {
    std::vector<std::uint64_t> held_on(nodes_, 0);
    for (std::size_t r = 0; r < regions.size(); ++r) {
      if (!regions[r].touched) {
        if (!regions[r].occupied.empty() ||
            std::any_of(regions[r].on_node.begin(), regions[r].on_node.end(), [](std::uint32_t n) { return n != 0; }))
          return "region " + std::to_string(r) + " is counted on a node before it was first touched";
        continue;
      }
      std::vector<std::uint32_t> count(regions[r].on_node.size(), 0);
      for (const auto& ch : regions[r].chunks) ++count[ch.node];
      if (count != regions[r].on_node) return "region " + std::to_string(r) + " miscounts its chunks per node";
      std::vector<node_index> held, listed = regions[r].occupied;
      for (node_index n = 0; n < count.size(); ++n) {
        if (count[n] != 0) held.push_back(n);
      }
      std::sort(listed.begin(), listed.end());
      if (held != listed) return "region " + std::to_string(r) + " lists the wrong nodes as holding it";
      if (!regions[r].released) {
        for (node_index n = 0; n < count.size(); ++n) held_on[n] += count[n];
      }
    }
    for (node_index n = 0; n < nodes_; ++n) {
      if (held_on[n] != used[n]) return "node " + std::to_string(n) + " counts " + std::to_string(used[n]) +
                                        " chunks in use where its regions hold " + std::to_string(held_on[n]);
      if (capacity[n] != unlimited && used[n] > capacity[n])
        return "node " + std::to_string(n) + " holds " + std::to_string(used[n]) + " chunks, more than its " +
               std::to_string(capacity[n]);
    }
    return {};
  }

  /// A task's mean access cost and local share at the node it is on now, from the access
  /// costs as last settled (memory_load.hpp).
  void update_latency(task_state& t) const {
    t.latency = 0;
    t.local_share = 0;
    const bool settled = !access_cost.empty();
    const double* from = settled ? access_cost.data() + t.node * nodes_ : nullptr;
    for (const auto& [r, weight] : t.accesses) {
      const auto& rs = regions[r];
      const double total = double(rs.chunks.size());
      double cost = 0;
      if (settled) {
        for (const node_index node : rs.occupied) cost += double(rs.on_node[node]) / total * from[node];
      }
      t.latency += weight * (settled ? cost : 1.0);
      t.local_share += weight * double(rs.on_node[t.node]) / total;
    }
  }

  std::vector<region_state> regions;
  std::vector<std::uint32_t> region_base;  // one past the last process: the end
  /// access_cost[from * n + to]: what an access from a CPU on `from` to memory on `to` costs
  /// now, over an unloaded local one (latency ratio times queueing at the memory and on the
  /// route); settled every refresh by memory_load. Empty until the first settle: cost 1.
  std::vector<double> access_cost;
  /// Chunks each node can hold, and holds now (live processes' regions).
  std::vector<std::uint64_t> capacity, used;
  /// What full nodes did so far (counted where they turn a chunk away).
  full_node_stats full;

 private:
  std::size_t nodes_;
};

}  // namespace numaplace::sim
