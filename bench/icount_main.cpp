// numaplace_icount: makes `reps` preferred-node decisions for callgrind to count.
//
//   numaplace_icount <mode> <kind> <n> <reps>
//     mode  argmax | kernel-style | a stack name (linux-modern, vanilla, ...)
//     kind  direct | glueless | backplane
//
// Each decision is one call of a function whose name starts with `icount_decide_` and that
// the compiler may neither inline nor clone, so
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*icount_decide_*'
// counts exactly the instructions of the decisions (call and return included), and nothing of
// building the topology or the inputs. scripts/icount runs it.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

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

template <class Decide>
void run_decisions(const fault_inputs& faults, unsigned long reps, Decide&& decide) {
  const auto& inputs = faults.inputs();
  node_index acc = 0;
  for (unsigned long r = 0; r < reps; ++r) acc ^= decide(inputs[r % input_count]);
  sink = acc;
}

int usage() {
  std::fprintf(stderr, "usage: numaplace_icount <argmax|kernel-style|STACK> <direct|glueless|backplane> <nodes> <reps>\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) return usage();
  const std::string_view mode = argv[1];
  const auto kind = kind_from_name(argv[2]);
  const std::size_t n = std::strtoul(argv[3], nullptr, 10);
  const unsigned long reps = std::strtoul(argv[4], nullptr, 10);
  if (!kind || n == 0 || reps == 0) return usage();
  const auto topo = make_topology(*kind, n);
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
  const bool found = numaplace::with_stack(mode, [&](auto stack) {
    using Stack = typename decltype(stack)::type;
    numaplace::with_placement<Stack>(*topo, [&](const auto& pl) {
      run_decisions(faults, reps, [&](const decision_input& in) { return icount_decide_placement(pl, in); });
    });
  });
  if (!found) {
    std::fprintf(stderr, "numaplace_icount: unknown mode '%.*s'\n", static_cast<int>(mode.size()), mode.data());
    return usage();
  }
  return 0;
}
