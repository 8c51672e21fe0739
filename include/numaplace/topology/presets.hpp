#pragma once
// Named machines: the seeds' machines and real ones whose distances were published.
// Matrices are exactly as their sources printed them; CPU numbering is by node (consecutive),
// not the firmware's interleaved numbering, which placement does not depend on.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "dynamic_topology.hpp"
#include "generators.hpp"
#include "static_topology.hpp"

namespace numaplace::presets {

inline constexpr std::uint64_t gib = std::uint64_t{1} << 30;

/// Seed 000's 8-node machine: two quads {0-3} and {4-7} behind node controllers. The seed gives
/// no matrix; this is the 8-socket Westmere-EX matrix Phil Auld posted to LKML (2019-10-08,
/// <20191008143258.GC8431@pauld.bos.csb>), the same kind of machine. The kernel types it BACKPLANE.
inline constexpr static_topology<8> seed000_8node{{{
    {10, 12, 17, 17, 19, 19, 19, 19},
    {12, 10, 17, 17, 19, 19, 19, 19},
    {17, 17, 10, 12, 19, 19, 19, 19},
    {17, 17, 12, 10, 19, 19, 19, 19},
    {19, 19, 19, 19, 10, 12, 17, 17},
    {19, 19, 19, 19, 12, 10, 17, 17},
    {19, 19, 19, 19, 17, 17, 10, 12},
    {19, 19, 19, 19, 17, 17, 12, 10},
}}};

/// 4-socket AMD Opteron 6134 (Magny-Cours, 8 dies), Supermicro H8QG6: GLUELESS_MESH.
/// Source: hwloc test tarball tests/hwloc/linux/32amd64-4s2n4c-cgroup2, node*/distance.
inline constexpr static_topology<8> amd_opteron_8node{{{
    {10, 16, 16, 22, 16, 22, 16, 22},
    {16, 10, 22, 16, 22, 16, 22, 16},
    {16, 22, 10, 16, 16, 22, 16, 22},
    {22, 16, 16, 10, 22, 16, 22, 16},
    {16, 22, 16, 22, 10, 16, 16, 22},
    {22, 16, 22, 16, 16, 10, 22, 16},
    {16, 22, 16, 22, 16, 22, 10, 16},
    {22, 16, 22, 16, 22, 16, 16, 10},
}}};

/// A 4-node box, every node 20 from every other: DIRECT (seeds 001 and 003's machines, and the
/// Dell R910's published matrix, hwloc 40intel64-2g2n4c+pcilocality).
inline constexpr static_topology<4> direct_4node{{{
    {10, 20, 20, 20},
    {20, 10, 20, 20},
    {20, 20, 10, 20},
    {20, 20, 20, 10},
}}};

/// A 2-socket box: DIRECT with a single remote level (seed 004's machine).
inline constexpr static_topology<2> two_socket{{{{10, 20}, {20, 10}}}};

/// 2x AMD EPYC 7742 in NPS4 (PDC Dardel): two quads 12 apart inside, 32 across: BACKPLANE.
inline constexpr static_topology<8> amd_epyc_7742_nps4{{{
    {10, 12, 12, 12, 32, 32, 32, 32},
    {12, 10, 12, 12, 32, 32, 32, 32},
    {12, 12, 10, 12, 32, 32, 32, 32},
    {12, 12, 12, 10, 32, 32, 32, 32},
    {32, 32, 32, 32, 10, 12, 12, 12},
    {32, 32, 32, 32, 12, 10, 12, 12},
    {32, 32, 32, 32, 12, 12, 10, 12},
    {32, 32, 32, 32, 12, 12, 12, 10},
}}};

/// IBM POWER7 with sparse node ids 0 1 4 5 8 9 12 13 (hwloc 256ppc-8n8s4t): BACKPLANE.
inline constexpr static_topology<8> ibm_power7_sparse{
    {{
        {10, 20, 40, 40, 40, 40, 40, 40},
        {20, 10, 40, 40, 40, 40, 40, 40},
        {40, 40, 10, 20, 40, 40, 40, 40},
        {40, 40, 20, 10, 40, 40, 40, 40},
        {40, 40, 40, 40, 10, 20, 40, 40},
        {40, 40, 40, 40, 20, 10, 40, 40},
        {40, 40, 40, 40, 40, 40, 10, 20},
        {40, 40, 40, 40, 40, 40, 20, 10},
    }},
    {0, 1, 4, 5, 8, 9, 12, 13}};

/// IBM POWER9 AC922: CPU nodes 0 and 8, six CPU-less GPU-memory nodes 250-255
/// (hwloc nvidiagpunumanodes). The modern kernel sees only the two CPU nodes: DIRECT.
inline constexpr static_topology<8> ibm_power9_gpu{
    {{
        {10, 40, 80, 80, 80, 80, 80, 80},
        {40, 10, 80, 80, 80, 80, 80, 80},
        {80, 80, 10, 80, 80, 80, 80, 80},
        {80, 80, 80, 10, 80, 80, 80, 80},
        {80, 80, 80, 80, 10, 80, 80, 80},
        {80, 80, 80, 80, 80, 10, 80, 80},
        {80, 80, 80, 80, 80, 80, 10, 80},
        {80, 80, 80, 80, 80, 80, 80, 10},
    }},
    {0, 8, 250, 251, 252, 253, 254, 255}};

/// 2x Xeon Gold 6230 with SNC2 (Dell R740, hwloc memorysidecaches): nodes 0,2 and 1,3 share a
/// socket; levels 10/11/21: BACKPLANE.
inline constexpr static_topology<4> intel_gold6230_snc2{{{
    {10, 21, 11, 21},
    {21, 10, 21, 11},
    {11, 21, 10, 21},
    {21, 11, 21, 10},
}}};

/// 2x Xeon Sapphire Rapids (52 cores x HT each) with one CXL Type-3 memory expander behind
/// each socket: nodes 0 and 1 are the sockets, 2 and 3 their CPU-less CXL nodes. Steve
/// Scargall's `numactl -H` ("How To Map a CXL Endpoint to a CPU Socket in Linux",
/// 2022-12-27): the expander at 38:00.0 is node 2 on socket 0, b8:00.0 node 3 on socket 1.
/// Firmware puts a socket's own expander at 14, nearer than the other socket's DRAM (21).
inline constexpr static_topology<4> intel_spr_2s_cxl{{{
    {10, 21, 14, 24},
    {21, 10, 24, 14},
    {14, 24, 10, 26},
    {24, 14, 26, 10},
}}};

/// Node sizes the same `numactl -H` printed ("MB" there is MiB): DRAM 64167 and 64472 MiB, the
/// expanders 64 and 128 GiB.
inline constexpr std::array<std::uint64_t, 4> intel_spr_2s_cxl_memory{
    std::uint64_t{64167} << 20, std::uint64_t{64472} << 20, std::uint64_t{65536} << 20, std::uint64_t{131072} << 20};

/// One named machine.
struct preset {
  std::string_view name;
  std::string_view description;
  std::string_view source;
  dynamic_topology (*build)();
};

namespace detail {

/// The first `cpu_nodes` nodes get `cpus_per_node` CPUs each, the rest none; node a has
/// memory[a] bytes.
template <std::size_t N>
dynamic_topology with_shape(const static_topology<N>& s, unsigned cpus_per_node,
                            const std::array<std::uint64_t, N>& memory, std::size_t cpu_nodes = N) {
  std::vector<std::vector<long long>> rows(N, std::vector<long long>(N));
  std::vector<node_attributes> nodes(N);
  unsigned next_cpu = 0;
  for (node_index a = 0; a < N; ++a) {
    for (node_index b = 0; b < N; ++b) rows[a][b] = s.distance(a, b);
    nodes[a].id = s.id_of(a);
    nodes[a].memory_bytes = memory[a];
    nodes[a].has_cpu = a < cpu_nodes;
    if (nodes[a].has_cpu) {
      for (unsigned c = 0; c < cpus_per_node; ++c) nodes[a].cpus.push_back(next_cpu++);
    }
  }
  return dynamic_topology(rows, std::move(nodes));
}

/// Every node with the same memory.
template <std::size_t N>
dynamic_topology with_shape(const static_topology<N>& s, unsigned cpus_per_node, std::uint64_t memory,
                            std::size_t cpu_nodes = N) {
  std::array<std::uint64_t, N> each{};
  each.fill(memory);
  return with_shape(s, cpus_per_node, each, cpu_nodes);
}

}  // namespace detail

/// Every preset, in the order `numaplace topo --list-presets` prints them.
inline std::span<const preset> all() {
  static constexpr preset list[] = {
      {"seed000-8node", "seed 000: 8 sockets x 20 CPUs (10 cores x HT), quads {0-3} {4-7} (backplane)",
       "Westmere-EX 8S matrix, LKML 2019-10-08 <20191008143258.GC8431@pauld.bos.csb>",
       [] { return detail::with_shape(seed000_8node, 20, 64 * gib); }},
      {"seed001-4node", "seed 001: 4 nodes x 24 CPUs (6 POWER7 cores x SMT4), directly connected",
       "seed 001 (4-node 24-core POWER; user over elapsed time says ~86 CPUs busy); the thread gives no matrix, "
       "10/20 assumed",
       [] { return detail::with_shape(direct_4node, 24, 16 * gib); }},
      {"seed002-ht", "seed 002: 4 physical CPUs x 2 HT siblings, siblings mapped as nodes",
       "seed 002 (P4 HT, make -j4 on 8 logical CPUs)",
       [] {
         return generate::fully_connected(4, 20, {2, 1 * gib});
       }},
      {"seed003-4node", "seed 003: 4 nodes x 8 CPUs, directly connected",
       "seed 003 (4 JVMs on a 4-node 32-CPU machine); 10/20 assumed",
       [] { return detail::with_shape(direct_4node, 8, 16 * gib); }},
      {"seed004-2socket", "seed 004: 2 sockets x 40 CPUs (20 cores x HT)", "seed 004 (SPECjbb on a 2-socket 80-CPU box); 10/20 assumed",
       [] { return detail::with_shape(two_socket, 40, 128 * gib); }},
      {"amd-opteron-8node", "4x AMD Opteron 6134, 8 nodes x 4 CPUs (glueless mesh)",
       "hwloc tests/hwloc/linux/32amd64-4s2n4c-cgroup2", [] { return detail::with_shape(amd_opteron_8node, 4, 8 * gib); }},
      {"intel-r910-4node", "4x Xeon E7-4870, 4 nodes x 20 CPUs (direct)", "hwloc tests/hwloc/linux/40intel64-2g2n4c+pcilocality",
       [] { return detail::with_shape(direct_4node, 20, 64 * gib); }},
      {"amd-epyc-7742-nps4", "2x EPYC 7742 in NPS4, 8 nodes x 32 CPUs (backplane)", "PDC Dardel slides, 2023-03-08",
       [] { return detail::with_shape(amd_epyc_7742_nps4, 32, 32 * gib); }},
      {"ibm-power7-sparse", "IBM POWER7, 8 nodes x 32 CPUs, node ids 0 1 4 5 8 9 12 13", "hwloc tests/hwloc/linux/256ppc-8n8s4t",
       [] { return detail::with_shape(ibm_power7_sparse, 32, 32 * gib); }},
      {"ibm-power9-gpu", "IBM POWER9 AC922: CPU nodes 0 and 8 (88 CPUs each), GPU memory nodes 250-255",
       "hwloc tests/hwloc/linux/nvidiagpunumanodes", [] { return detail::with_shape(ibm_power9_gpu, 88, 16 * gib, 2); }},
      {"intel-gold6230-snc2", "2x Xeon Gold 6230 with SNC2, 4 nodes x 20 CPUs (backplane)",
       "hwloc tests/hwloc/linux/memorysidecaches", [] { return detail::with_shape(intel_gold6230_snc2, 20, 96 * gib); }},
      {"intel-spr-2s-cxl",
       "2x Xeon Sapphire Rapids, 2 nodes x 104 CPUs (52 cores x HT) + 2 CPU-less CXL memory expanders (64, 128 GiB)",
       "numactl -H in S. Scargall, 'How To Map a CXL Endpoint to a CPU Socket in Linux', 2022-12-27",
       [] { return detail::with_shape(intel_spr_2s_cxl, 104, intel_spr_2s_cxl_memory, 2); }},
  };
  return list;
}

/// The preset called `name`, or nullptr.
inline const preset* find(std::string_view name) {
  for (const preset& p : all()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

}  // namespace numaplace::presets
