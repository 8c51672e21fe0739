#pragma once
// A straightforward C-style transcription of how the modern (v5.18+) kernel picks a task's
// preferred node: task_numa_placement()'s fault maximum, preferred_group_nid(),
// score_nearby_nodes() and group_weight() (kernel/sched/fair.c, v5.18-v6.1), written in our
// own words, structured the way fair.c is:
//
//   * the scheduler's view of the machine lives in one global-ish state (the topology type,
//     sched_max_numa_distance, the distance levels, the node_states[] masks) that every
//     function branches on at run time;
//   * distances are read from a flat table, node_distance(a, b);
//   * nodes are visited through node masks, and the backplane search regroups the surviving
//     nodes with masks on every call. The masks are those of a kernel built for the machine:
//     MAX_NUMNODES, a compile-time constant as in the kernel, is the node count rounded up to
//     a power of two of at least 64 (NODES_SHIFT 6 up to 64 nodes), so that mask scans cost
//     what they would on it, no more;
//   * nothing is precomputed beyond what sched_init_numa() stores at boot.
//
// It is the "no precomputation" baseline of the benchmarks and an independent cross-check of
// numaplace's linux-modern stack (bench/ and test/policy/kernel_style_crosscheck_test.cpp).
// Not part of the library.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <numaplace/stats/fault_view.hpp>
#include <numaplace/topology/concept.hpp>
#include <numaplace/topology/types.hpp>

namespace kernel_style {

inline constexpr int MAX_NUMNODES = 1024;  // the largest NODES_SHIFT (10): room for any machine
inline constexpr int NUMA_NO_NODE = -1;
inline constexpr int LOCAL_DISTANCE = 10;
inline constexpr int NR_DISTANCE_VALUES = 256;  // 1 << DISTANCE_BITS

enum numa_topology_type { NUMA_DIRECT, NUMA_GLUELESS_MESH, NUMA_BACKPLANE };

// ---- node masks (include/linux/nodemask.h, over a plain bitmap) ---------------------------

// Storage for the largest kernel; a kernel built for the machine uses its first W words
// (BITS_TO_LONGS(MAX_NUMNODES)), W a template argument below.
struct nodemask_t {
  std::uint64_t bits[MAX_NUMNODES / 64];
};

template <int W>
void nodes_clear(nodemask_t& m) {
  for (int w = 0; w < W; w++) m.bits[w] = 0;
}
template <int W>
void nodes_copy(nodemask_t& to, const nodemask_t& from) {
  for (int w = 0; w < W; w++) to.bits[w] = from.bits[w];
}
inline void node_set(int n, nodemask_t& m) { m.bits[n / 64] |= std::uint64_t{1} << (n % 64); }
inline void node_clear(int n, nodemask_t& m) { m.bits[n / 64] &= ~(std::uint64_t{1} << (n % 64)); }
inline bool node_isset(int n, const nodemask_t& m) { return (m.bits[n / 64] >> (n % 64)) & 1u; }

// find_next_bit(): the first set bit at or after `n`, MAX_NUMNODES (64 * W) when there is none.
template <int W>
int find_next_node(int n, const nodemask_t& m) {
  if (n >= 64 * W) return 64 * W;
  int word = n / 64;
  std::uint64_t bits = m.bits[word] & (~std::uint64_t{0} << (n % 64));
  while (bits == 0) {
    if (++word == W) return 64 * W;
    bits = m.bits[word];
  }
  return word * 64 + std::countr_zero(bits);
}

// for_each_node_mask(node, mask) inside a function templated on W: the mask is re-read at
// every step, as the kernel's macro does.
#define KS_FOR_EACH_NODE_MASK(node, mask) \
  for ((node) = find_next_node<W>(0, (mask)); (node) < 64 * W; (node) = find_next_node<W>((node) + 1, (mask)))

// ---- the scheduler's NUMA state (what sched_init_numa() leaves behind) ---------------------

struct numa_state {
  int nr_node_ids = 0;
  int mask_words = 1;  // BITS_TO_LONGS(MAX_NUMNODES) of a kernel built for this machine: 1, 2, 4, 8 or 16
  std::vector<std::uint8_t> numa_distance;  // nr_node_ids * nr_node_ids, row-major (x86's table)
  nodemask_t online{};                      // node_states[N_ONLINE]
  nodemask_t cpu{};                         // node_states[N_CPU]

  numa_topology_type sched_numa_topology_type = NUMA_DIRECT;
  int sched_max_numa_distance = 0;
  int sched_domains_numa_levels = 0;
  int sched_domains_numa_distance[NR_DISTANCE_VALUES] = {};
};

inline int node_distance(const numa_state& s, int from, int to) {
  return s.numa_distance[static_cast<std::size_t>(from) * static_cast<std::size_t>(s.nr_node_ids) +
                         static_cast<std::size_t>(to)];
}

// find_numa_distance(): the local distance or one of the levels.
inline bool find_numa_distance(const numa_state& s, int distance) {
  if (distance == node_distance(s, 0, 0)) return true;
  for (int i = 0; i < s.sched_domains_numa_levels; i++) {
    if (s.sched_domains_numa_distance[i] == distance) return true;
  }
  return false;
}

// init_numa_topology_type(): the first pair of CPU nodes at the maximum distance decides.
inline void init_numa_topology_type(numa_state& s) {
  constexpr int W = MAX_NUMNODES / 64;  // at boot, any mask size gives the same answer
  const int n = s.sched_max_numa_distance;
  if (s.sched_domains_numa_levels <= 2) {
    s.sched_numa_topology_type = NUMA_DIRECT;
    return;
  }
  int a, b, c;
  KS_FOR_EACH_NODE_MASK(a, s.cpu) {
    KS_FOR_EACH_NODE_MASK(b, s.cpu) {
      if (node_distance(s, a, b) < n) continue;
      KS_FOR_EACH_NODE_MASK(c, s.cpu) {
        if (node_distance(s, a, c) < n && node_distance(s, b, c) < n) {
          s.sched_numa_topology_type = NUMA_GLUELESS_MESH;
          return;
        }
      }
      s.sched_numa_topology_type = NUMA_BACKPLANE;
      return;
    }
  }
  s.sched_numa_topology_type = NUMA_DIRECT;
}

// sched_init_numa() (v5.18+): every distance between CPU nodes marks a bit of a 256-bit map;
// the set bits, ascending, are the levels.
inline void sched_init_numa(numa_state& s) {
  constexpr int W = MAX_NUMNODES / 64;
  bool seen[NR_DISTANCE_VALUES] = {};
  int i, j;
  KS_FOR_EACH_NODE_MASK(i, s.cpu) {
    KS_FOR_EACH_NODE_MASK(j, s.cpu) {
      const int d = node_distance(s, i, j);
      if (d < LOCAL_DISTANCE || d >= NR_DISTANCE_VALUES) {
        s.sched_domains_numa_levels = 0;
        s.sched_max_numa_distance = 0;
        s.sched_numa_topology_type = NUMA_DIRECT;
        return;  // "Invalid distance value range"
      }
      seen[d] = true;
    }
  }
  s.sched_domains_numa_levels = 0;
  for (int d = 0; d < NR_DISTANCE_VALUES; d++) {
    if (seen[d]) s.sched_domains_numa_distance[s.sched_domains_numa_levels++] = d;
  }
  if (s.sched_domains_numa_levels == 0) return;
  s.sched_max_numa_distance = s.sched_domains_numa_distance[s.sched_domains_numa_levels - 1];
  init_numa_topology_type(s);
}

/// "Boot": copy a numaplace topology into the kernel's tables and run sched_init_numa().
template <numaplace::numa_topology T>
numa_state boot(const T& t) {
  numa_state s;
  s.nr_node_ids = static_cast<int>(t.node_count());
  while (64 * s.mask_words < s.nr_node_ids) s.mask_words *= 2;
  s.numa_distance.resize(static_cast<std::size_t>(s.nr_node_ids) * static_cast<std::size_t>(s.nr_node_ids));
  for (int a = 0; a < s.nr_node_ids; a++) {
    node_set(a, s.online);
    if (numaplace::node_has_cpu(t, static_cast<numaplace::node_index>(a))) node_set(a, s.cpu);
    for (int b = 0; b < s.nr_node_ids; b++) {
      s.numa_distance[static_cast<std::size_t>(a) * static_cast<std::size_t>(s.nr_node_ids) +
                      static_cast<std::size_t>(b)] =
          static_cast<std::uint8_t>(t.distance(static_cast<numaplace::node_index>(a), static_cast<numaplace::node_index>(b)));
    }
  }
  sched_init_numa(s);
  return s;
}

// ---- task and group fault statistics (the NUMA_MEM region: shared, private per node) -------

struct numa_group {
  const std::uint64_t* faults;  // 2 per node
  std::uint64_t total_faults;
};

struct task_struct {
  const std::uint64_t* numa_faults;  // 2 per node; null when the task has none
  std::uint64_t total_numa_faults;
  const numa_group* group;  // null when the task is not in a numa_group
};

inline std::uint64_t task_faults(const task_struct& p, int nid) {
  if (!p.numa_faults) return 0;
  return p.numa_faults[2 * nid] + p.numa_faults[2 * nid + 1];
}

inline std::uint64_t group_faults(const task_struct& p, int nid) {
  const numa_group* ng = p.group;
  if (!ng) return 0;
  return ng->faults[2 * nid] + ng->faults[2 * nid + 1];
}

// ---- fair.c -----------------------------------------------------------------------------

// score_nearby_nodes(): faults on nodes near `nid`, every online node visited.
template <int W>
std::uint64_t score_nearby_nodes(const numa_state& s, const task_struct& p, int nid, int lim_dist,
                                        bool task) {
  if (s.sched_numa_topology_type == NUMA_DIRECT) return 0;
  const int max_dist = s.sched_max_numa_distance;
  std::uint64_t score = 0;
  int node;
  KS_FOR_EACH_NODE_MASK(node, s.online) {
    const int dist = node_distance(s, nid, node);
    // The farthest nodes do not count; nid itself was counted by the caller.
    if (dist >= max_dist || node == nid) continue;
    // Backplane: only nodes nearer than the hop limit form nid's group.
    if (s.sched_numa_topology_type == NUMA_BACKPLANE && dist >= lim_dist) continue;
    std::uint64_t faults = task ? task_faults(p, node) : group_faults(p, node);
    // Glueless mesh: the farther the node, the less its faults count.
    if (s.sched_numa_topology_type == NUMA_GLUELESS_MESH) {
      faults *= static_cast<std::uint64_t>(max_dist - dist);
      faults /= static_cast<std::uint64_t>(max_dist - LOCAL_DISTANCE);
    }
    score += faults;
  }
  return score;
}

template <int W>
std::uint64_t task_weight(const numa_state& s, const task_struct& p, int nid, int dist) {
  if (!p.numa_faults) return 0;
  const std::uint64_t total = p.total_numa_faults;
  if (!total) return 0;
  const std::uint64_t faults = task_faults(p, nid) + score_nearby_nodes<W>(s, p, nid, dist, true);
  return 1000 * faults / total;
}

template <int W>
std::uint64_t group_weight(const numa_state& s, const task_struct& p, int nid, int dist) {
  const numa_group* ng = p.group;
  if (!ng) return 0;
  const std::uint64_t total = ng->total_faults;
  if (!total) return 0;
  const std::uint64_t faults = group_faults(p, nid) + score_nearby_nodes<W>(s, p, nid, dist, false);
  return 1000 * faults / total;
}

// preferred_group_nid(): where a numa_group's tasks should go, from the group's maximum `nid`.
template <int W>
int preferred_group_nid(const numa_state& s, const task_struct& p, int nid) {
  if (s.sched_numa_topology_type == NUMA_DIRECT) return nid;

  if (s.sched_numa_topology_type == NUMA_GLUELESS_MESH) {
    std::uint64_t max_score = 0;
    int max_node = nid;
    const int dist = s.sched_max_numa_distance;
    int node;
    KS_FOR_EACH_NODE_MASK(node, s.cpu) {
      const std::uint64_t score = group_weight<W>(s, p, node, dist);
      if (score > max_score) {
        max_score = score;
        max_node = node;
      }
    }
    return max_node;
  }

  // Backplane: from the largest distance down, split the surviving nodes into groups of
  // nodes nearer than `dist` to the group's first node, and keep the group with most faults.
  nodemask_t nodes;
  nodes_copy<W>(nodes, s.cpu);
  for (int dist = s.sched_max_numa_distance; dist > LOCAL_DISTANCE; dist--) {
    if (!find_numa_distance(s, dist)) continue;
    std::uint64_t max_faults = 0;
    nodemask_t max_group;
    nodes_clear<W>(max_group);
    int a, b;
    KS_FOR_EACH_NODE_MASK(a, nodes) {
      std::uint64_t faults = 0;
      nodemask_t this_group;
      nodes_clear<W>(this_group);
      KS_FOR_EACH_NODE_MASK(b, nodes) {
        if (node_distance(s, a, b) < dist) {
          faults += group_faults(p, b);
          node_set(b, this_group);
          node_clear(b, nodes);
        }
      }
      if (faults > max_faults) {
        max_faults = faults;
        nodes_copy<W>(max_group, this_group);
        nid = a;  // at the smallest distance each group is one node: the winner
      }
    }
    if (!max_faults) break;
    nodes_copy<W>(nodes, max_group);
  }
  return nid;
}

// task_numa_placement() after the decay: the node the task will prefer, or NUMA_NO_NODE when
// its (or its group's) faults are all zero and numa_preferred_nid is left alone.
template <int W>
int task_numa_placement(const numa_state& s, const task_struct& p) {
  const numa_group* ng = p.group;
  std::uint64_t max_faults = 0;
  int max_nid = NUMA_NO_NODE;
  int nid;
  KS_FOR_EACH_NODE_MASK(nid, s.online) {
    if (!ng) {
      const std::uint64_t faults = task_faults(p, nid);
      if (faults > max_faults) {
        max_faults = faults;
        max_nid = nid;
      }
    } else {
      const std::uint64_t faults = group_faults(p, nid);
      if (faults > max_faults) {
        max_faults = faults;
        max_nid = nid;
      }
    }
  }

  // A task cannot run on a CPU-less node: use the nearest CPU node (first on ties).
  if (max_nid != NUMA_NO_NODE && !node_isset(max_nid, s.cpu)) {
    int near_nid = max_nid, near_distance = 1 << 30;
    KS_FOR_EACH_NODE_MASK(nid, s.cpu) {
      const int distance = node_distance(s, max_nid, nid);
      if (distance < near_distance) {
        near_nid = nid;
        near_distance = distance;
      }
    }
    max_nid = near_nid;
  }

  if (ng) max_nid = preferred_group_nid<W>(s, p, max_nid);

  if (!max_faults) return NUMA_NO_NODE;
  return max_nid;
}

#undef KS_FOR_EACH_NODE_MASK

/// The same decision on numaplace's input type, answering in numaplace's terms.
inline numaplace::node_index preferred_node(const numa_state& s, const numaplace::decision_input& in) {
  const numa_group ng{in.group.memory.data(), in.group.total};
  const task_struct p{in.task.empty() ? nullptr : in.task.memory.data(), in.task.total,
                      in.has_group() ? &ng : nullptr};
  int nid = NUMA_NO_NODE;
  switch (s.mask_words) {  // the kernel built for this machine
    case 1: nid = task_numa_placement<1>(s, p); break;
    case 2: nid = task_numa_placement<2>(s, p); break;
    case 4: nid = task_numa_placement<4>(s, p); break;
    case 8: nid = task_numa_placement<8>(s, p); break;
    default: nid = task_numa_placement<16>(s, p); break;
  }
  return nid == NUMA_NO_NODE ? numaplace::no_node : static_cast<numaplace::node_index>(nid);
}

}  // namespace kernel_style
