// numaplace_icount: makes `reps` preferred-node decisions for callgrind to count.
//
//   numaplace_icount <mode> <machine> <n> <reps>
//     mode     argmax | kernel-style | a stack name (linux-modern, vanilla, ...) |
//              owned | any   linux-modern as a runtime keeps it: owned_placement (a variant
//                            dispatch per decision) or any_placement (a virtual call)
//     machine  direct | glueless | backplane   the benchmarks' machines (workloads.hpp)
//              ring | mesh                    glueless machines as AMD builds them, 6 per hop
//                                             (10/16/22/...): a ring of n nodes, or a
//                                             wrap-around mesh of 4x2, 4x4, 8x4 or 8x8 nodes
//
// Each decision is one call of a function whose name starts with `icount_decide_` and that
// the compiler may neither inline nor clone, so
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*icount_decide_*'
// counts exactly the instructions of the decisions (call and return included), and nothing of
// building the topology or the inputs. scripts/icount runs it.

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <numaplace/any_placement.hpp>
#include <numaplace/owned_placement.hpp>
#include <numaplace/stacks.hpp>

#include "kernel_style.hpp"
#include "workloads.hpp"

#if defined(__GNUC__) && !defined(__clang__)
#define ICOUNT_MEASURED [[gnu::noipa]]
#else
#define ICOUNT_MEASURED [[gnu::noinline]]
#endif

using namespace numaplace_bench;

ICOUNT_MEASURED node_index icount_decide_argmax(const decision_input& in) noexcept { return argmax_preferred(in); }

ICOUNT_MEASURED node_index icount_decide_kernel_style(const kernel_style::numa_state& s,
                                                      const decision_input& in) noexcept {
  return kernel_style::preferred_node(s, in);
}

template <class Placement>
ICOUNT_MEASURED node_index icount_decide_placement(const Placement& pl, const decision_input& in) noexcept {
  return pl.preferred_node(in);
}

namespace {

volatile node_index sink;

// One hop costs 6, as between the dies of AMD's glueless boards (hwloc's Opteron matrices:
// 10/16/22): an 8-node ring is 10/16/22/28/34.
constexpr numaplace::distance_t amd_hop = 6;

// A w x h wrap-around mesh.
dynamic_topology amd_mesh(std::size_t w, std::size_t h) {
  std::vector<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < w; ++x) {
      links.emplace_back(y * w + x, y * w + (x + 1) % w);
      links.emplace_back(y * w + x, ((y + 1) % h) * w + x);
    }
  }
  return numaplace::generate::from_links(w * h, links, amd_hop, {}, "mesh");
}

std::optional<dynamic_topology> make_machine(std::string_view machine, std::size_t n) {
  if (machine == "ring") {
    if (n < 5 || (n / 2) * amd_hop > numaplace::max_valid_distance - 10) return std::nullopt;
    return numaplace::generate::ring(n, amd_hop);
  }
  if (machine == "mesh") {
    switch (n) {
      case 8: return amd_mesh(4, 2);
      case 16: return amd_mesh(4, 4);
      case 32: return amd_mesh(8, 4);
      case 64: return amd_mesh(8, 8);
      default: return std::nullopt;
    }
  }
  const auto kind = kind_from_name(machine);
  if (!kind) return std::nullopt;
  return make_topology(*kind, n);
}

template <class Decide>
void run_decisions(const fault_inputs& faults, unsigned long reps, Decide&& decide) {
  const auto& inputs = faults.inputs();
  node_index acc = 0;
  for (unsigned long r = 0; r < reps; ++r) acc ^= decide(inputs[r % input_count]);
  sink = acc;
}

int usage() {
  std::fprintf(stderr, "usage: numaplace_icount <argmax|kernel-style|owned|any|STACK> <direct|glueless|backplane|ring|mesh> <nodes> <reps>\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return usage();
  const std::string_view mode = argv[1];
  const std::size_t n = std::strtoul(argv[3], nullptr, 10);
  const unsigned long reps = std::strtoul(argv[4], nullptr, 10);
  if (n == 0 || reps == 0) return usage();
  const auto topo = make_machine(argv[2], n);
  if (!topo) {
    std::fprintf(stderr, "numaplace_icount: no %s topology with %zu nodes\n", argv[2], n);
    return 2;
  }
  const fault_inputs faults(n, input_count, fault_seed);

  if (mode == "argmax") {
    run_decisions(faults, reps, [](const decision_input& in) { return icount_decide_argmax(in); });
    return 0;
  }
  if (mode == "kernel-style") {
    const auto state = kernel_style::boot(*topo);
    run_decisions(faults, reps, [&](const decision_input& in) { return icount_decide_kernel_style(state, in); });
    return 0;
  }
  if (mode == "owned") {
    const numaplace::owned_placement<numaplace::stacks::linux_modern> pl(*topo);
    run_decisions(faults, reps, [&](const decision_input& in) { return icount_decide_placement(pl, in); });
    return 0;
  }
  if (mode == "any") {
    const auto pl = numaplace::any_placement::named("linux-modern", *topo);
    run_decisions(faults, reps, [&](const decision_input& in) { return icount_decide_placement(*pl, in); });
    return 0;
  }
  const bool found = numaplace::with_named_placement(mode, *topo, [&](const auto& pl) {
    run_decisions(faults, reps, [&](const decision_input& in) { return icount_decide_placement(pl, in); });
  });
  if (!found) {
    std::fprintf(stderr, "numaplace_icount: unknown mode '%.*s'\n", static_cast<int>(mode.size()), mode.data());
    return usage();
  }
  return 0;
}
