#pragma once
// mbind(MPOL_INTERLEAVE) for stacks with an interleave policy (seed 003): the policy's node
// mask applied to a group's shared memory, at most once per interleave interval, a bounded
// number of chunks at a time; the copies are charged to the task whose placement asked. From then on the policy,
// not the hinting faults, places that memory.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "world.hpp"

namespace numaplace::sim {

template <class Placement>
void apply_interleave(world& s, const Placement& pl, std::uint32_t p, const decision_input& in, task_index id) {
  process_state& ps = s.m.processes[p];
  if (!in.has_group() || s.now_ms < ps.next_interleave_ms) return;
  ps.next_interleave_ms = s.now_ms + s.c.interleave_interval_ms;
  const std::size_t n = s.m.node_count();
  std::unique_ptr<bool[]> mask(new bool[n]());
  pl.interleave_nodes(in, std::span<bool>(mask.get(), n));
  std::vector<node_index> nodes;
  for (node_index node = 0; node < n; ++node) {
    if (mask[node] && s.m.allowed(p, node)) nodes.push_back(node);
  }
  if (nodes.empty()) return;
  ps.interleaved = true;
  std::size_t budget = std::size_t{s.c.interleave_chunks};
  for (region_state& rs : s.mem.of_process(p)) {
    if (!rs.shared) continue;
    for (std::size_t c = 0; c < rs.chunks.size() && budget > 0; ++c) {
      const node_index target = nodes[c % nodes.size()];
      if (rs.chunks[c].node == target || !s.mem.has_room(target)) continue;  // a full node takes none
      s.mem.place(rs, rs.chunks[c], target);
      s.charge_balancer(id, s.c.page_migrate_cost_ms);
      ++ps.page_moves;
      --budget;
    }
  }
}

}  // namespace numaplace::sim
