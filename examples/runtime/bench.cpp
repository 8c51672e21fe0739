// numa-pool-bench: a STREAM triad per task group on numa_pool, with placement on and off.
//
//   numa-pool-bench [--groups N] [--mib M] [--iterations I] [--chunks C] [--mode on|off|both]
//                   [--no-shared] [--sample PAGES] [--sys ROOT]
//
// Each private group owns three arrays of M MiB together and runs a[i] = b[i] + s * c[i] over
// them in C chunks per iteration; one more group (unless --no-shared) is shared: its chunks run
// on every node. After each iteration the pool ends a window and applies numaplace's decisions.
// Printed: triad bandwidth per mode, each group's node and where its pages are (move_pages
// query), whether workers stayed pinned, and the shared group's interleave mask. --sample sets
// the pages each task samples with move_pages (16; 0 turns statistics off).
//
// The stack is chosen at compile time: -DNUMA_POOL_STACK=linux_5_10 (default linux_modern).
#include "numa_pool.hpp"

#include <numaplace/stacks.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <iomanip>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#define NUMA_POOL_STRINGIFY2(x) #x
#define NUMA_POOL_STRINGIFY(x) NUMA_POOL_STRINGIFY2(x)

namespace {

using numa_runtime::group_id;
using numaplace::os::usable_machine;
using numa_runtime::sharing;
using numaplace::node_index;
using numaplace::no_node;

struct settings {
  unsigned groups = 0;  // 0: one per node with CPUs
  std::size_t mib = 6;
  unsigned iterations = 8;
  unsigned chunks = 0;  // 0: twice the workers
  bool shared = true;
  unsigned sample = 16;
  std::string mode = "both";
  std::string sys = "/sys/devices/system/node";
};

constexpr const char* usage_line =
    "usage: numa-pool-bench [--groups N] [--mib M] [--iterations I] [--chunks C] "
    "[--mode on|off|both] [--no-shared] [--sample PAGES] [--sys ROOT]\n";

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "numa-pool-bench: " << why << '\n' << usage_line;
  std::exit(2);
}

unsigned long number(std::string_view option, const char* text) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (end == text || *end != '\0') usage(std::string(option) + " wants a number, not '" + text + "'");
  return v;
}

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    if (a == "--groups") s.groups = static_cast<unsigned>(number(a, value()));
    else if (a == "--mib") s.mib = number(a, value());
    else if (a == "--iterations") s.iterations = static_cast<unsigned>(number(a, value()));
    else if (a == "--chunks") s.chunks = static_cast<unsigned>(number(a, value()));
    else if (a == "--mode") s.mode = value();
    else if (a == "--no-shared") s.shared = false;
    else if (a == "--sample") s.sample = static_cast<unsigned>(number(a, value()));
    else if (a == "--sys") s.sys = value();
    else if (a == "-h" || a == "--help") {
      std::cout << usage_line;
      std::exit(0);
    }
    else usage("unknown argument '" + std::string(a) + "'");
  }
  if (s.mode != "on" && s.mode != "off" && s.mode != "both") usage("--mode is on, off or both");
  if (s.mib == 0 || s.iterations == 0) usage("--mib and --iterations must be positive");
  return s;
}

struct arrays {
  double* a = nullptr;
  double* b = nullptr;
  double* c = nullptr;
  std::size_t n = 0;
  void* block = nullptr;
  std::size_t bytes = 0;
};

arrays allocate(std::size_t mib) {
  arrays x;
  const std::size_t per_array = (mib << 20) / 3 / numa_runtime::page_size * numa_runtime::page_size;
  x.n = per_array / sizeof(double);
  x.bytes = 3 * per_array;
  x.block = std::aligned_alloc(numa_runtime::page_size, x.bytes);  // untouched: first touch places it
  if (x.block == nullptr) throw std::bad_alloc();
  x.a = static_cast<double*>(x.block);
  x.b = x.a + x.n;
  x.c = x.b + x.n;
  return x;
}

struct mode_result {
  double best_gbs = 0;
  double mean_gbs = 0;
};

std::string nodes_text(const std::vector<std::size_t>& pages) {
  std::string s;
  for (std::size_t n = 0; n < pages.size(); ++n) {
    if (pages[n] == 0) continue;
    s += (s.empty() ? "" : " ") + std::to_string(n) + ":" + std::to_string(pages[n]);
  }
  return s.empty() ? "-" : s;
}

mode_result run_mode(const numa_runtime::pool_placement& pl, const usable_machine& m, const settings& s, bool on) {
  numa_runtime::pool_options options;
  options.placement = on;
  options.sample_pages = s.sample;
  numa_runtime::numa_pool pool(pl, numa_runtime::numa_pool::cpus_of(m), options);
  std::vector<node_index> cpu_nodes;
  for (node_index n = 0; n < m.node_count(); ++n) {
    if (!m.cpus(n).empty()) cpu_nodes.push_back(n);
  }
  const unsigned private_groups = s.groups != 0 ? s.groups : static_cast<unsigned>(cpu_nodes.size());
  const unsigned chunks = s.chunks != 0 ? s.chunks : static_cast<unsigned>(2 * pool.worker_count());

  std::vector<group_id> ids;
  std::vector<arrays> data;
  std::vector<bool> is_shared;
  for (unsigned g = 0; g < private_groups + (s.shared ? 1u : 0u); ++g) {
    const bool shared = g >= private_groups;
    ids.push_back(pool.add_group(shared ? sharing::shared_memory : sharing::private_memory));
    data.push_back(allocate(s.mib));
    is_shared.push_back(shared);
    pool.add_memory(ids.back(), data.back().block, data.back().bytes);
  }

  // Submits one task per chunk of every group: `body(arrays, first, last)`.
  const auto for_chunks = [&](auto body) {
    for (std::size_t g = 0; g < ids.size(); ++g) {
      arrays* x = &data[g];
      for (unsigned k = 0; k < chunks; ++k) {
        const std::size_t first = x->n * k / chunks, last = x->n * (k + 1) / chunks;
        const node_index hint = is_shared[g] ? cpu_nodes[k % cpu_nodes.size()] : no_node;
        pool.submit(ids[g], [=] { body(*x, first, last); }, hint);
      }
    }
    pool.wait();
  };

  // First touch, by the workers that will use the memory.
  for_chunks([](arrays& x, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      x.a[i] = 0.0;
      x.b[i] = 1.0;
      x.c[i] = 2.0;
    }
  });
  pool.end_window();

  mode_result r;
  double sum = 0;
  std::vector<numa_runtime::group_decision> last;
  for (unsigned it = 0; it < s.iterations; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    for_chunks([](arrays& x, std::size_t first, std::size_t last_i) {
      const double scalar = 3.0;
      for (std::size_t i = first; i < last_i; ++i) x.a[i] = x.b[i] + scalar * x.c[i];
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double bytes = 0;
    for (const auto& x : data) bytes += 3.0 * sizeof(double) * static_cast<double>(x.n);
    const double gbs = bytes / seconds / 1e9;
    r.best_gbs = std::max(r.best_gbs, gbs);
    sum += gbs;
    last = pool.end_window();
  }
  r.mean_gbs = sum / s.iterations;

  std::cout << "placement " << (on ? "on" : "off") << ": " << pool.worker_count() << " workers, " << ids.size()
            << " groups of " << s.mib << " MiB, " << chunks << " chunks each, " << s.iterations << " iterations\n";
  std::cout << std::fixed << std::setprecision(3) << "  triad GB/s: best " << r.best_gbs << ", mean " << r.mean_gbs
            << '\n';
  if (on) {
    std::cout << "  workers pinned: "
              << (pool.pinning_failed() ? "NO (" + pool.pinning_error() + ")"
                                        : pool.off_cpu_runs() == 0 ? "yes (every task ran on its worker's CPU)"
                                                                   : std::to_string(pool.off_cpu_runs()) +
                                                                         " tasks ran on another CPU")
              << '\n';
    std::cout << "  steal order of worker 0 (cpu " << pool.worker_cpu(0) << ", node " << pool.worker_node(0) << "):";
    for (const std::size_t w : pool.steal_order(0)) std::cout << ' ' << pool.worker_node(w);
    std::cout << " (nodes of the workers it steals from)\n";
  }
  std::size_t on_chosen = 0, total = 0;
  for (std::size_t g = 0; g < ids.size(); ++g) {
    const auto pages = pool.pages_per_node(ids[g]);
    std::cout << "  group " << g << (is_shared[g] ? " (shared)" : "") << ": ";
    if (on) {
      std::cout << "node " << (pool.group_node(ids[g]) == no_node ? std::string("-") : std::to_string(pool.group_node(ids[g])));
      if (is_shared[g] && g < last.size() && !last[g].interleave.empty()) {
        std::cout << ", interleave over";
        for (node_index n = 0; n < last[g].interleave.size(); ++n) {
          if (last[g].interleave[n]) std::cout << ' ' << n;
        }
      }
      if (g < last.size() && !last[g].mbind_error.empty()) std::cout << " (" << last[g].mbind_error << ')';
      std::cout << "; ";
    }
    std::cout << "pages by node " << nodes_text(pages) << '\n';
    if (on && !is_shared[g] && pool.group_node(ids[g]) != no_node) {
      on_chosen += pages[pool.group_node(ids[g])];
      for (const auto p : pages) total += p;
    }
  }
  if (on && total > 0) {
    std::cout << std::setprecision(1) << "  private groups' pages on their chosen node: "
              << 100.0 * static_cast<double>(on_chosen) / static_cast<double>(total) << " %\n";
  }
  for (auto& x : data) std::free(x.block);
  return r;
}

}  // namespace

int main(int argc, char** argv) try {
  const settings s = parse(argc, argv);
  numaplace::os::roots where;
  where.sysfs_nodes = s.sys;
  const usable_machine m = usable_machine::read(where, numaplace::os::calling_thread_affinity);
  std::cout << "machine: " << m.node_count() << " nodes, " << m.cpu_count() << " usable CPUs, kind "
            << to_string(m.topology().kind()) << "; stack " << NUMA_POOL_STRINGIFY(NUMA_POOL_STACK) << '\n';
  // Both modes share one placement (and its topology): the pools copy the handle.
  const numa_runtime::pool_placement pl(m.topology());
  mode_result on, off;
  if (s.mode != "off") on = run_mode(pl, m, s, true);
  if (s.mode != "on") off = run_mode(pl, m, s, false);
  if (s.mode == "both") {
    std::cout << std::fixed << std::setprecision(3) << "summary: triad best GB/s on " << on.best_gbs << ", off "
              << off.best_gbs << " (on/off " << std::setprecision(2) << on.best_gbs / off.best_gbs << ")\n";
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "numa-pool-bench: " << e.what() << '\n';
  return 1;
}
