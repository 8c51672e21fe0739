#pragma once
// Measured memory costs of the named machines (topology presets), each figure with where it
// comes from. Where nobody published a figure for the machine class, the figure is derived
// from one that was and `assumption` says how, figure by figure. SLIT plays no part here:
// these are what the hardware does, not what firmware says about it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "machine_costs.hpp"

namespace numaplace::sim {

namespace hardware_detail {

/// An n x n ratio matrix from a rule per pair; the diagonal is 1.
template <class Rule>
std::vector<double> ratios(std::size_t n, Rule rule) {
  std::vector<double> r(n * n, 1.0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a != b) r[a * n + b] = rule(a, b);
    }
  }
  return r;
}

/// Links between every pair of the given nodes, all at one bandwidth.
inline void add_mesh(std::vector<memory_link>& links, const std::vector<node_index>& nodes, double gb_per_s) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (std::size_t j = i + 1; j < nodes.size(); ++j) links.push_back({nodes[i], nodes[j], gb_per_s});
  }
}

/// Intel MLC 3.5 `--loaded_latency` on 2x Xeon Silver 4110 (Skylake-SP, 12x DDR4-2666
/// RDIMMs), posted to Intel's community forum: (bandwidth MB/s, latency ns) as the injected
/// delay shrinks. The last three rows (latency falling by 0.03 ns at saturation) are noise
/// and left out, so the curve never falls.
inline constexpr std::array<std::pair<double, double>, 7> mlc_silver_4110_loaded{{
    {1237.6, 81.96},
    {9723.8, 87.81},
    {22580.9, 90.85},
    {42695.4, 94.56},
    {68357.8, 98.94},
    {131282.0, 123.71},
    {135267.3, 129.67},
}};
inline constexpr double mlc_silver_4110_peak_mb_s = 135655.9;

/// That measurement as a curve: utilisation = bandwidth / the peak MLC reached, factor =
/// latency / the latency under the lightest load.
inline loaded_latency_curve measured_loaded_curve() {
  loaded_latency_curve c;
  c.points = {{0.0, 1.0}};
  const double idle_ns = mlc_silver_4110_loaded.front().second;
  for (const auto& [mb_s, ns] : mlc_silver_4110_loaded) {
    c.points.emplace_back(mb_s / mlc_silver_4110_peak_mb_s, ns / idle_ns);
  }
  return c;
}

inline const char* const source_loaded_curve =
    "loaded latency: Intel MLC 3.5 --loaded_latency on 2x Xeon Silver 4110, DDR4-2666: 81.96 ns at 1.2 GB/s, "
    "98.94 ns at 68.4 GB/s, 123.71 ns at 131.3 GB/s, 129.67 ns at 135.3 GB/s of a 135.7 GB/s peak "
    "(https://community.intel.com/t5/Software-Tuning-Performance/Intel-Memory-Latency-Checker-v3-5-test/m-p/1126268)";

/// Intel MLC on a 4-socket Xeon E7-4800 (Westmere-EX): latency in ns from a core on socket
/// (row) to memory on socket (column). Intel blog "Memory Latencies on Intel Xeon Processor
/// E5-4600 and E7-4800 product families", 2014-01-28.
inline constexpr std::array<std::array<double, 4>, 4> mlc_e7_4800_ns{{
    {136, 194, 198, 201},
    {194, 135, 194, 196},
    {201, 194, 135, 200},
    {202, 197, 198, 135},
}};

inline const char* const source_e7_4800_mlc =
    "latency: Intel MLC on 4-socket Xeon E7-4800 (Westmere-EX): local 135-136 ns, one QPI hop 194-202 ns "
    "(https://software.intel.com/en-us/blogs/2014/01/28/"
    "memory-latencies-on-intel-xeon-processor-e5-4600-and-e7-4800-product-families)";

inline double e7_4800_local_ns() {
  double sum = 0;
  for (std::size_t i = 0; i < 4; ++i) sum += mlc_e7_4800_ns[i][i];
  return sum / 4;
}

/// The mean one-QPI-hop ratio of that matrix (each row over its own diagonal).
inline double e7_4800_one_hop_ratio() {
  double sum = 0;
  for (std::size_t a = 0; a < 4; ++a) {
    for (std::size_t b = 0; b < 4; ++b) {
      if (a != b) sum += mlc_e7_4800_ns[a][b] / mlc_e7_4800_ns[a][a];
    }
  }
  return sum / 12;
}

// Westmere-EX shares Nehalem-EX's memory path (4 SMI channels to memory buffers per socket).
inline constexpr double westmere_ex_smi_read_peak_gbs = 4 * 6.4;
inline constexpr double westmere_ex_node_gbs = 0.7 * westmere_ex_smi_read_peak_gbs;
inline constexpr double westmere_ex_core_gbs = 5.0;
inline constexpr double qpi_6_4_gt_gbs = 12.8;

inline const char* const source_westmere_ex_memory =
    "node bandwidth: Nehalem-EX/Westmere-EX memory: 4 SMI links per socket, 6.4 GB/s each way "
    "(AnandTech, Xeon 7500 review: https://www.anandtech.com/show/3648/xeon-7500-dell-r810/3)";
inline const char* const source_westmere_ex_core =
    "core stream: Xeon X7560 (Nehalem-EX, same memory buffers) single-threaded STREAM: 5 GB/s with DDR3-1066 "
    "(AnandTech: https://www.anandtech.com/show/3648/xeon-7500-dell-r810/7)";
inline const char* const source_qpi =
    "links: QPI at 6.4 GT/s, 12.8 GB/s each direction (25.6 GB/s both) (HP, Xeon 5500 technology brief: "
    "https://manualsdump.com/en/manuals/hp-smartcache/285990/3)";

// Skylake-SP, two sockets with 2 UPI links (published figures for a Xeon Platinum 8160).
inline constexpr double skylake_socket_read_gbs = 112.0;
inline constexpr double skylake_remote_read_gbs = 34.0;
inline constexpr double skylake_local_ns = 81.96;
inline constexpr double skylake_remote_ns = 154.0;
inline constexpr double skylake_core_gbs = 12.0;

inline const char* const source_skylake_bandwidth =
    "bandwidth: Xeon Platinum 8160, 2 UPI links: local reads ~112 GB/s per socket, remote reads ~34 GB/s "
    "one direction at a time (a Stack Overflow answer on NUMA bandwidth, mirrored at "
    "https://boohere.com/de/detail/201966.html)";
inline const char* const source_skylake_latency =
    "latency: local 81.96 ns (MLC, 2x Xeon Silver 4110, lightest load, link above); remote ~154 ns "
    "(lmbench lat_mem_rd, numactl -C 0 -m 1, 2x Xeon Platinum 8180: "
    "https://community.intel.com/t5/Software-Tuning-Performance/"
    "An-interesting-issue-when-testing-inter-socket-latency-on/td-p/1271481)";

inline const char* const source_power7_smp_links =
    "links: POWER7's package for up to four sockets has three 5-byte SMP links, one to each other chip (Kalla, "
    "Sinharoy, Starke, Floyd, 'Power7: IBM's Next-Generation Server Processor', IEEE Micro 30(2), 2010: "
    "https://doi.org/10.1109/MM.2010.38); IBM's Hot Chips 2009 figure, 360 GB/s of SMP bandwidth per chip, is a "
    "top-end (32-socket) chip's total over all its links, not one link's (The Register: "
    "http://www.theregister.co.uk/2009/08/26/ibm_power7_hotchips?page=2)";

inline const char* const source_amd_40555 =
    "latency ratios: AMD 40555 'Performance Guidelines for AMD Athlon 64 and AMD Opteron ccNUMA "
    "Multiprocessor Systems' (2006), Figure 4: reads take 108-109 % of local one hop away, 130 % two hops away";

// Sapphire Rapids with CXL memory expanders (intel-spr-2s-cxl).

/// Intel MLC 3.11a on 2x Xeon Platinum 8468 (Sapphire Rapids, DDR5-4800, SNC4: nodes 0-3 are
/// socket 0's quadrants, 4-7 socket 1's): idle latency in ns from a core on node (row) to
/// memory on node (column).
inline constexpr std::array<std::array<double, 8>, 8> mlc_spr_8468_snc4_ns{{
    {95.4, 106.3, 111.9, 123.2, 188.3, 188.4, 188.1, 188.3},
    {103.5, 96.3, 118.9, 113.4, 187.4, 187.6, 186.9, 187.6},
    {110.2, 120.7, 96.2, 107.7, 187.6, 187.7, 187.5, 187.8},
    {119.0, 112.5, 102.4, 96.5, 187.6, 187.8, 187.4, 187.9},
    {188.1, 189.2, 187.6, 189.2, 95.8, 105.9, 112.4, 122.6},
    {186.6, 188.0, 186.1, 188.2, 105.1, 96.8, 117.0, 110.1},
    {187.0, 188.3, 186.8, 188.2, 109.7, 120.0, 97.4, 106.8},
    {186.0, 187.5, 186.1, 187.7, 117.2, 110.2, 104.6, 96.9},
}};
/// The same run's peak injection bandwidth, all reads, both sockets reading their own memory.
inline constexpr double mlc_spr_8468_all_reads_mb_s = 491946.4;

/// The mean of that matrix's entries on one side of the socket boundary: with SNC off a
/// socket's memory is interleaved over its four quadrants, so a core waits the mean of its
/// own socket's four (same_socket) or the other socket's four.
inline double spr_mean_ns(bool same_socket) {
  double sum = 0;
  int count = 0;
  for (std::size_t a = 0; a < 8; ++a) {
    for (std::size_t b = 0; b < 8; ++b) {
      if ((a / 4 == b / 4) != same_socket) continue;
      sum += mlc_spr_8468_snc4_ns[a][b];
      ++count;
    }
  }
  return sum / count;
}

/// One E3.S CXL 2.0 expander (PCIe Gen5 x8, 96 GB) on 2x Xeon Platinum 8470, per Intel.
inline constexpr double cxl_e3s_x8_read_gbs = 17.8;
inline constexpr double cxl_e3s_x8_latency_ns = 250;
/// PCIe 5.0 / CXL at 32 GT/s: 64 GB/s each way over x16, so 32 over x8.
inline constexpr double cxl_x8_link_gbs = 64.0 / 2;
/// UPI 2.0: 16 GT/s, two bytes a transfer each way (as QPI's 6.4 GT/s carry 12.8 GB/s).
inline constexpr double upi2_link_gbs = 16.0 * 2;
/// What two Skylake-SP UPI links (10.4 GT/s, 20.8 GB/s each way) carried of their peak in
/// the measured remote read: 34 / 41.6.
inline constexpr double upi_measured_share = skylake_remote_read_gbs / (2 * 10.4 * 2);

inline const char* const source_spr_mlc =
    "latency, DRAM bandwidth: Intel MLC 3.11a on 2x Xeon Platinum 8468 (Sapphire Rapids, DDR5-4800, SNC4): own "
    "quadrant 95.4-97.4 ns, the socket's other quadrants 102.4-123.2 ns, the other socket 186.0-189.2 ns; peak "
    "injection bandwidth, all reads, 491946.4 MB/s for both sockets; one quadrant's threads read another socket's "
    "quadrant at 56.2-56.6 GB/s (https://github.com/gjbex/Code-optimization, info/sapphirerapids_mlc.txt)";
inline const char* const source_cachelib_cxl =
    "CXL expander: Intel's CacheLib OCP demo on 2x Xeon Platinum 8470 (52 cores a socket, Hyper-Threading on, "
    "8 channels of DDR5-4800): each CXL 2.0 expander an E3.S card on PCIe Gen 5.0 x8, 96 GB, all reads 17.8 GB/s, "
    "latency 250 ns (https://github.com/intel/CacheLib/wiki/OCP-demo-configuration)";
inline const char* const source_cxl_link =
    "CXL link: CXL runs on the PCIe 5.0 PHY at 32 GT/s, 64 GB/s each direction over x16 (Intel PSG blog, 'How do "
    "the new Intel Agilex FPGA family and the CXL coherent interconnect fabric intersect?': "
    "https://blogs.intel.com/psg/how-do-the-new-intel-agilex-fpga-family-and-the-cxl-coherent-interconnect-fabric-"
    "intersect/)";
inline const char* const source_upi2 =
    "links: Sapphire Rapids has up to four UPI 2.0 links (https://actualnewsmagazine.com/sapphire-rapids-affronte-"
    "milan-x-dans-un-combat-epyc) at 16 GT/s (TechPowerUp: https://techpowerup.com/news-tags/intel?page=95)";
inline const char* const source_ddr5_channels =
    "DDR5 check: 8 DDR5-4800 channels at 38.4 GB/s each, about 300 GB/s a socket (Matthew Wilcox, linux-acpi, "
    "2025-01-15: http://mail.spinics.net/lists/linux-acpi/msg130089.html); MLC's 246 GB/s a socket is 80 % of it";

}  // namespace hardware_detail

/// seed000: 8x Xeon E7-8870 (Westmere-EX) in an HP DL980 G7: QPI joins each pair of sockets
/// into an island, node controllers (XNC) join the islands into quads {0-3}, {4-7}.
inline machine_costs dl980_g7_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "HP DL980 G7, 8x Xeon E7-8870 (Westmere-EX)";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  const std::size_t n = 8;
  const double hop = e7_4800_one_hop_ratio() - 1.0;
  const auto island = [](std::size_t x) { return x / 2; };
  const auto quad = [](std::size_t x) { return x / 4; };
  c.latency_ratio = ratios(n, [&](std::size_t a, std::size_t b) {
    if (island(a) == island(b)) return 1.0 + hop;
    if (quad(a) == quad(b)) return 1.0 + 2 * hop;
    return 1.0 + 3 * hop;
  });
  c.local_latency_ns = e7_4800_local_ns();
  c.node_bandwidth_gbs.assign(n, westmere_ex_node_gbs);
  c.core_stream_gbs = westmere_ex_core_gbs;
  for (node_index i = 0; i < n; i += 2) c.links.push_back({i, node_index(i + 1), qpi_6_4_gt_gbs});
  // Node-controller paths: island to island inside a quad, and quad to quad.
  for (node_index q = 0; q < n; q += 4) {
    c.links.push_back({q, node_index(q + 2), qpi_6_4_gt_gbs});
    c.links.push_back({node_index(q + 1), node_index(q + 3), qpi_6_4_gt_gbs});
  }
  for (node_index i = 0; i < 4; ++i) c.links.push_back({i, node_index(i + 4), qpi_6_4_gt_gbs});
  c.loaded = measured_loaded_curve();
  c.sources = {
      source_e7_4800_mlc,
      "topology: each pair of sockets shares a QPI island; node controllers (XNC) join the islands (HP, 'Best "
      "Practices When Deploying Linux on the HP ProLiant DL980', 2012: https://www.manualshelf.com/manual/hp/"
      "hp-proliant-dl980-g7-e6540-2-0ghz-6-core-4p-rack-server/"
      "best-practices-when-deploying-linux-on-the-hp-proliant-dl980-updated-december-2012/page-7.html)",
      source_westmere_ex_memory,
      source_westmere_ex_core,
      source_qpi,
      source_loaded_curve,
  };
  c.assumption =
      "no DL980 latency was published: local and the in-island QPI hop are the E7-4800 MLC figures (same "
      "Westmere-EX die); each node-controller crossing is assumed to add what one QPI hop adds (another island "
      "in the quad: 2 hops, the other quad: 3 hops). Node bandwidth assumed 70 % of the 25.6 GB/s SMI read peak. "
      "Node-controller ports assumed to run at QPI's 12.8 GB/s, wired island to island and quad to quad. The "
      "loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// intel-r910-4node: 4x Xeon E7-4870 (Westmere-EX), every socket one QPI link from the others.
inline machine_costs r910_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "Dell R910, 4x Xeon E7-4870 (Westmere-EX)";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  const std::size_t n = 4;
  c.latency_ratio = ratios(n, [](std::size_t a, std::size_t b) { return mlc_e7_4800_ns[a][b] / mlc_e7_4800_ns[a][a]; });
  c.local_latency_ns = e7_4800_local_ns();
  c.node_bandwidth_gbs.assign(n, westmere_ex_node_gbs);
  c.core_stream_gbs = westmere_ex_core_gbs;
  add_mesh(c.links, {0, 1, 2, 3}, qpi_6_4_gt_gbs);
  c.loaded = measured_loaded_curve();
  c.sources = {source_e7_4800_mlc,
               "topology: three of each E7's four QPI links join the other three sockets (same Intel blog)",
               source_westmere_ex_memory, source_westmere_ex_core, source_qpi, source_loaded_curve};
  c.assumption =
      "the E7-4800 MLC matrix is taken as the E7-4870's, socket for socket. Node bandwidth assumed 70 % of the "
      "25.6 GB/s SMI read peak. The loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// seed001: a 4-node, 24-core POWER7 (SMT4), one chip per node, every chip one SMP link from
/// each other (IBM Power 750/770-class).
inline machine_costs power7_4node_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "IBM POWER7, 4 chips x 6 cores";
  // POWER7: SMT4, four threads per core.
  c.threads_per_core = 4;
  const std::size_t n = 4;
  c.latency_ratio = ratios(n, [](std::size_t, std::size_t) { return 1.3; });
  c.local_latency_ns = 100;
  c.node_bandwidth_gbs.assign(n, 50.0);
  c.core_stream_gbs = 10.0;
  // One SMP link between every two chips, each at the share of a chip's memory that links
  // derived from SLIT get (no per-link figure was found).
  add_mesh(c.links, {0, 1, 2, 3}, derived_link_gbs(c.node_bandwidth_gbs[0], c.node_bandwidth_gbs[1]));
  c.loaded = measured_loaded_curve();
  c.sources = {
      "node bandwidth: POWER7 chip memory bandwidth 100 GB/s peak (IBM at Hot Chips 2009, as reported: "
      "https://www.noticias3d.com/noticia/34916/procesador-ibm-power7-8-nucleos.html)",
      "memory path: two DDR3 controllers, eight 6.4 GHz channels to buffer chips per POWER7 chip (IBM Power 770/780 "
      "Technical Overview, 2.1.4)",
      source_power7_smp_links,
      source_loaded_curve,
  };
  c.assumption =
      "no POWER7 latency or STREAM figure was found: local latency assumed 100 ns; remote ratio assumed 1.3 "
      "(between Opteron's measured one hop, 1.08, and Westmere-EX's, 1.46); node bandwidth assumed half the "
      "100 GB/s peak; one core assumed to stream 10 GB/s; no per-link SMP bandwidth was found, so each of the six "
      "links is derived as machines without figures derive theirs: half a chip's memory bandwidth, 25 GB/s each "
      "way; the loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// seed002: hyper-threaded siblings mapped as nodes. Every "node" is the same memory behind
/// one front-side bus, so there is no remote memory at all.
inline machine_costs p4_ht_costs(std::size_t nodes = 4) {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "Pentium 4 / Xeon MP with Hyper-Threading, siblings as nodes";
  c.latency_ratio = ratios(nodes, [](std::size_t, std::size_t) { return 1.0; });
  c.local_latency_ns = 150;
  const double bus_gbs = 0.75 * 3.2;
  c.node_bandwidth_gbs.assign(nodes, bus_gbs / double(nodes));
  c.core_stream_gbs = 2.0;
  c.loaded = measured_loaded_curve();
  c.sources = {
      "latency ratio 1.0 everywhere: the 'nodes' are hyper-threaded siblings of CPUs sharing one memory (seed 002)",
      "front-side bus: 400 MT/s x 8 bytes = 3.2 GB/s peak, shared by all CPUs (arithmetic from the bus width)",
      source_loaded_curve,
  };
  c.assumption =
      "one shared memory, split evenly: each of the nodes gets 1/n of an assumed 2.4 GB/s sustained bus "
      "(75 % of the 3.2 GB/s peak of an assumed 400 MT/s FSB), so one node alone cannot use the whole bus as "
      "it really could; local latency assumed 150 ns and one core's stream 2 GB/s (no figure found); no links; "
      "the loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// seed003: 2x Opteron 6200 (Interlagos, G34), four dies, every die one HyperTransport hop
/// from every other.
inline machine_costs opteron_6200_2s_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "2x AMD Opteron 6200 (Interlagos), 4 nodes";
  // No SMT (Bulldozer modules share an FPU, not a core's pipeline; Magny-Cours has none).
  c.threads_per_core = 1;
  const std::size_t n = 4;
  const double local_gbs = 8.4, remote_gbs = 6.7;
  c.latency_ratio = ratios(n, [&](std::size_t, std::size_t) { return local_gbs / remote_gbs; });
  c.local_latency_ns = 98;
  c.node_bandwidth_gbs.assign(n, 13.2);
  c.core_stream_gbs = local_gbs;
  add_mesh(c.links, {0, 1, 2, 3}, 7.4);
  c.loaded = measured_loaded_curve();
  c.sources = {
      "perf bench numa on a 32-way Opteron: one thread reads 8.4 GB/s locally, 6.7 GB/s remotely; two threads "
      "13.2 GB/s locally, 7.4 GB/s together remotely (Ingo Molnar, linux-mm, 2012-12-07, "
      "https://lore.kernel.org/r/20121207215357.GA30130@gmail.com)",
      "local latency: Opteron 6174 (G34, previous generation) 98 ns, SiSoft Sandra (AnandTech: "
      "http://www.anandtech.com/show/2978/amd-s-12-core-magny-cours-opteron-6174-vs-intel-s-6-core-xeon/5)",
      source_loaded_curve,
  };
  c.assumption =
      "latency ratio 8.4/6.7 = 1.25: derived from one thread's local over remote bandwidth (a lone thread's "
      "stream is bound by its misses in flight over latency); node bandwidth: the two-thread local 13.2 GB/s "
      "assumed to be the die's limit; every link assumed to carry what two remote threads got, 7.4 GB/s; "
      "local latency taken from the Opteron 6174; the loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// seed004: 2 sockets of 20-core Skylake-SP / Cascade Lake Xeon Gold with HT, 2 UPI links.
inline machine_costs skylake_2s_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "2x Xeon Gold (Skylake-SP / Cascade Lake), 20 cores each";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  c.latency_ratio = ratios(2, [](std::size_t, std::size_t) { return skylake_remote_ns / skylake_local_ns; });
  c.local_latency_ns = skylake_local_ns;
  c.node_bandwidth_gbs.assign(2, skylake_socket_read_gbs);
  c.core_stream_gbs = skylake_core_gbs;
  c.links.push_back({0, 1, skylake_remote_read_gbs});
  c.loaded = measured_loaded_curve();
  c.sources = {source_skylake_bandwidth, source_skylake_latency, source_loaded_curve};
  c.assumption =
      "figures from other Skylake-SP boxes (8160, 8180, Silver 4110), taken as this one's; the remote ratio "
      "mixes lmbench (remote) and MLC (local), so it may read high; the 2 UPI links are one link carrying the "
      "measured 34 GB/s; one core assumed to stream 12 GB/s (no figure found)";
  complete_routes(c);
  return c;
}

/// intel-gold6230-snc2: 2x Xeon Gold 6230 (Cascade Lake) with sub-NUMA clustering: nodes 0, 2
/// on socket 0 and 1, 3 on socket 1, each node half a socket's six DDR4-2933 channels.
inline machine_costs gold6230_snc2_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "2x Xeon Gold 6230 (Cascade Lake), SNC2";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  const std::size_t n = 4;
  const auto socket = [](std::size_t x) { return x % 2; };
  c.latency_ratio = ratios(n, [&](std::size_t a, std::size_t b) {
    return socket(a) == socket(b) ? 1.1 : skylake_remote_ns / skylake_local_ns;
  });
  c.local_latency_ns = skylake_local_ns;
  const double node_gbs = skylake_socket_read_gbs * (2933.0 / 2666.0) / 2;
  c.node_bandwidth_gbs.assign(n, node_gbs);
  c.core_stream_gbs = skylake_core_gbs;
  // One UPI link per cluster pair across; the mesh inside a socket assumed not to limit.
  c.links = {{0, 1, skylake_remote_read_gbs / 2},
             {2, 3, skylake_remote_read_gbs / 2},
             {0, 2, 2 * node_gbs},
             {1, 3, 2 * node_gbs}};
  c.loaded = measured_loaded_curve();
  c.sources = {source_skylake_bandwidth, source_skylake_latency,
               "Cascade Lake-SP: six memory channels per socket, DDR4 up to 2933 MT/s (Microway: https://www.microway.com/knowledge-center-articles/detailed-specifications-of-the-cascade-lake-sp-intel-xeon-processor-scalable-family-cpus/)", source_loaded_curve};
  c.assumption =
      "Skylake-SP figures (8160, 8180, Silver 4110) taken for Cascade Lake; the 6230 assumed to run its memory at 2933 MT/s; node bandwidth: the 8160's 112 GB/s "
      "per socket scaled from DDR4-2666 to DDR4-2933 and halved per SNC2 cluster; the other cluster of the same "
      "socket assumed 1.1 (a few mesh stops; no figure found); the measured 34 GB/s remote read split over two "
      "UPI links, one per cluster pair; the in-socket mesh set to twice a node's bandwidth so it never limits; "
      "one core assumed to stream 12 GB/s";
  complete_routes(c);
  return c;
}

/// amd-epyc-7742-nps4: 2x EPYC 7742 (Rome) in NPS4: nodes 0-3 are socket 0's quadrants, 4-7
/// socket 1's, each with two DDR4-3200 channels.
inline machine_costs epyc_7742_nps4_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "2x AMD EPYC 7742 (Rome), NPS4";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  const std::size_t n = 8;
  const double local_ns = 113, nps1_ns = 122;
  // NPS1 spreads every access over all four quadrants: (local + 3 x other) / 4 = NPS1.
  const double other_quadrant_ns = (4 * nps1_ns - local_ns) / 3;
  const double cross_socket_ns = 200;
  const auto socket = [](std::size_t x) { return x / 4; };
  c.latency_ratio = ratios(n, [&](std::size_t a, std::size_t b) {
    return socket(a) == socket(b) ? other_quadrant_ns / local_ns : cross_socket_ns / local_ns;
  });
  c.local_latency_ns = local_ns;
  const double channel_pair_peak_gbs = 2 * 25.6;
  c.node_bandwidth_gbs.assign(n, 0.8 * channel_pair_peak_gbs);
  c.core_stream_gbs = 20;
  // Infinity Fabric between the quadrants of one I/O die, assumed not to limit.
  add_mesh(c.links, {0, 1, 2, 3}, 2 * channel_pair_peak_gbs);
  add_mesh(c.links, {4, 5, 6, 7}, 2 * channel_pair_peak_gbs);
  // xGMI: four x16 links between the sockets, one at each quadrant.
  for (node_index q = 0; q < 4; ++q) c.links.push_back({q, node_index(q + 4), 32.0});
  c.loaded = measured_loaded_curve();
  c.sources = {
      "latency: EPYC 7742, 128 MB full random: ~113 ns NPS4, ~122 ns NPS1 (AnandTech, Rome review: "
      "https://www.anandtech.com/show/14694/amd-rome-epyc-2nd-gen/7)",
      "memory: each quadrant closest to two of the socket's eight DDR4-3200 channels (Dell, 'NUMA Configuration "
      "settings on AMD EPYC 2nd Generation': https://infohub.delltechnologies.com/p/"
      "numa-configuration-settings-on-amd-epyc-2nd-generation/)",
      source_loaded_curve,
  };
  c.assumption =
      "another quadrant of the same socket: (4 x 122 - 113) / 3 = 125 ns, derived from the NPS1 and NPS4 averages; "
      "the other socket assumed 200 ns (no published figure found); node bandwidth assumed 80 % of two "
      "DDR4-3200 channels' 51.2 GB/s; one core assumed to stream 20 GB/s; xGMI assumed four x16 links at 16 GT/s "
      "(32 GB/s each direction), one per quadrant; the I/O die's fabric set to twice a quadrant's channels so it "
      "never limits; the loaded-latency curve is Skylake-SP's, assumed to hold in shape";
  complete_routes(c);
  return c;
}

/// amd-opteron-8node: 4x Opteron 6134 (Magny-Cours, G34), two dies per package: nodes 2k and
/// 2k+1 share a package. Each die is one HyperTransport hop from its partner and from three
/// dies in the other packages, two hops from the other three.
inline machine_costs opteron_6134_4s_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "4x AMD Opteron 6134 (Magny-Cours), 8 nodes";
  // No SMT (Bulldozer modules share an FPU, not a core's pipeline; Magny-Cours has none).
  c.threads_per_core = 1;
  const std::size_t n = 8;
  const double in_package_gbs = 12.8, cross_package_gbs = 6.4;
  c.links = {{0, 1, in_package_gbs},    {2, 3, in_package_gbs},    {4, 5, in_package_gbs},
             {6, 7, in_package_gbs},    {0, 2, cross_package_gbs}, {0, 4, cross_package_gbs},
             {0, 6, cross_package_gbs}, {1, 3, cross_package_gbs}, {1, 5, cross_package_gbs},
             {1, 7, cross_package_gbs}, {2, 4, cross_package_gbs}, {2, 6, cross_package_gbs},
             {3, 5, cross_package_gbs}, {3, 7, cross_package_gbs}, {4, 6, cross_package_gbs},
             {5, 7, cross_package_gbs}};
  c.node_bandwidth_gbs.assign(n, 100.0 / 8);
  complete_routes(c);
  c.latency_ratio = ratios(n, [&](std::size_t a, std::size_t b) {
    return c.route(node_index(a), node_index(b)).size() == 1 ? 1.08 : 1.30;
  });
  c.local_latency_ns = 98;
  c.core_stream_gbs = 9.5;
  c.loaded = measured_loaded_curve();
  c.sources = {
      source_amd_40555,
      "local latency: Opteron 6174 (same Magny-Cours die) 98 ns, SiSoft Sandra; one thread streams 9.5 GB/s with "
      "DDR3-1333 (AnandTech: http://www.anandtech.com/show/2978/amd-s-12-core-magny-cours-opteron-6174-vs-intel-s-"
      "6-core-xeon/5 and https://www.anandtech.com/show/3648/xeon-7500-dell-r810/7)",
      "node bandwidth: four Opteron 6100 reach about 100 GB/s in STREAM, AMD's figure (tecchannel: "
      "http://www.tecchannel.de/server/prozessoren/2023649/amd_opteron_6100_4100_magny_cours_12_core_ddr3_cpu/"
      "index3.html)",
      "links: the two dies of a package share a 16-bit HT3 link at 6.4 GT/s, 12.8 GB/s (Chips and Cheese: "
      "https://chipsandcheese.com/p/amds-magny-cours-and-hypertransport); each die's other links are 8 bits wide "
      "(AMD at Hot Chips 21: https://semiaccurate.com/2009/08/24/amd-outs-socket-g34/)",
      source_loaded_curve,
  };
  c.assumption =
      "the hop ratios are AMD's for 4-socket K8 Opteron, assumed to carry over to Magny-Cours; node bandwidth: "
      "AMD's 100 GB/s for four sockets split over the eight dies; cross-package links assumed 8-bit HT3, 6.4 GB/s "
      "each direction, wired as the one-hop pairs of the machine's published distance table; the loaded-latency "
      "curve is Skylake-SP's, assumed to hold in shape";
  return c;
}

/// intel-spr-2s-cxl: 2x Xeon Sapphire Rapids (52 cores x HT), nodes 0 and 1 the sockets'
/// DDR5, node 2 a CXL Type-3 expander behind socket 0, node 3 one behind socket 1.
inline machine_costs spr_2s_cxl_costs() {
  using namespace hardware_detail;
  machine_costs c;
  c.name = "2x Xeon Sapphire Rapids + 2 CXL Type-3 expanders (PCIe Gen5 x8)";
  // Hyper-Threading / SMT2: two threads per core.
  c.threads_per_core = 2;
  const double local_ns = spr_mean_ns(true), remote_ns = spr_mean_ns(false);
  // The far expander: the near one's latency plus what crossing UPI adds to a DRAM access.
  const double cxl_near_ns = cxl_e3s_x8_latency_ns, cxl_far_ns = cxl_near_ns + (remote_ns - local_ns);
  const auto socket = [](std::size_t x) { return x % 2; };
  const auto is_cxl = [](std::size_t x) { return x >= 2; };
  c.latency_ratio = ratios(4, [&](std::size_t a, std::size_t b) {
    // A CPU-less node's row is never read (no CPU runs there); it mirrors its column.
    if (is_cxl(a) && is_cxl(b)) return cxl_far_ns / local_ns;
    if (is_cxl(a)) std::swap(a, b);
    if (!is_cxl(b)) return remote_ns / local_ns;
    return (socket(a) == socket(b) ? cxl_near_ns : cxl_far_ns) / local_ns;
  });
  c.local_latency_ns = local_ns;
  const double socket_gbs = mlc_spr_8468_all_reads_mb_s / 1000 / 2;
  c.node_bandwidth_gbs = {socket_gbs, socket_gbs, cxl_e3s_x8_read_gbs, cxl_e3s_x8_read_gbs};
  c.core_stream_gbs = 20;
  // Four UPI links between the sockets, as one; each expander on an x8 link to its socket.
  c.links = {{0, 1, 4 * upi2_link_gbs * upi_measured_share}, {0, 2, cxl_x8_link_gbs}, {1, 3, cxl_x8_link_gbs}};
  c.loaded = measured_loaded_curve();
  c.sources = {
      "topology, node sizes: numactl -H of a 2-socket, 208-CPU box with one CXL expander per socket (Steve Scargall, "
      "'How To Map a CXL Endpoint to a CPU Socket in Linux', 2022-12-27: "
      "https://stevescargall.com/blog/2022/12/how-to-map-a-cxl-endpoint-to-a-cpu-socket-in-linux/)",
      source_spr_mlc,
      source_cachelib_cxl,
      source_cxl_link,
      source_upi2,
      source_qpi,
      source_skylake_bandwidth,
      source_ddr5_channels,
      source_loaded_curve,
  };
  c.assumption =
      "the Platinum 8468's MLC figures (48 cores, SNC4) taken for a 52-core part with SNC off: local latency is the "
      "mean of the 8468's same-socket entries (a socket's memory interleaved over its four quadrants), remote the "
      "mean of its cross-socket entries; DRAM bandwidth a socket is half the 8468's all-read peak injection "
      "bandwidth; CXL from its own socket is Intel's 250 ns for the 8470's expander (its tool not stated), from the "
      "other socket 250 ns plus what UPI adds to a DRAM access (remote - local), no published figure found; the "
      "rows of the CPU-less nodes mirror their columns; the four UPI links (the 8470 assumed to have all four) are "
      "one link of 4 x 32 GB/s (two bytes a transfer each way at 16 GT/s) times the share of UPI peak Skylake-SP's "
      "measured remote read reached (34 / 41.6); each expander's x8 link is half x16's 64 GB/s; one core assumed "
      "to stream 20 GB/s (no figure found); the bandwidths assume all eight DDR5 channels populated, while the "
      "node sizes are those of the numactl box, whose 64 GB a socket may fill fewer; the loaded-latency curve is "
      "Skylake-SP's, assumed to hold in shape for DDR5 and for the expander";
  complete_routes(c);
  return c;
}

/// Names of the topology presets that have measured costs here.
inline std::vector<std::string_view> hardware_preset_names() {
  return {"seed000-8node",   "seed001-4node",    "seed002-ht",         "seed003-4node",      "seed004-2socket",
          "intel-r910-4node", "amd-opteron-8node", "amd-epyc-7742-nps4", "intel-gold6230-snc2",
          "intel-spr-2s-cxl"};
}

/// The costs of the topology preset called `machine_name`; nothing for a machine without
/// figures here (ibm-power7-sparse, ibm-power9-gpu), whose runs derive them, links included,
/// from SLIT (from_slit).
inline std::optional<machine_costs> hardware_preset(std::string_view machine_name) {
  if (machine_name == "seed000-8node") return dl980_g7_costs();
  if (machine_name == "seed001-4node") return power7_4node_costs();
  if (machine_name == "seed002-ht") return p4_ht_costs();
  if (machine_name == "seed003-4node") return opteron_6200_2s_costs();
  if (machine_name == "seed004-2socket") return skylake_2s_costs();
  if (machine_name == "intel-r910-4node") return r910_costs();
  if (machine_name == "amd-opteron-8node") return opteron_6134_4s_costs();
  if (machine_name == "amd-epyc-7742-nps4") return epyc_7742_nps4_costs();
  if (machine_name == "intel-gold6230-snc2") return gold6230_snc2_costs();
  if (machine_name == "intel-spr-2s-cxl") return spr_2s_cxl_costs();
  return std::nullopt;
}

}  // namespace numaplace::sim
