// numaplace_bench: the cost of one preferred-node decision (task_numa_placement) for every
// named stack, on every kind of topology, at 2 to 1024 nodes, against two baselines:
//
//   BM_argmax/<n>                  the hand-written argmax of the faults (what linux-modern
//                                  computes on a direct topology)
//   BM_stack/<stack>/<kind>/<n>    numaplace's composed placement, kind fixed at compile time
//   BM_kernel_style/<kind>/<n>     kernel_style.hpp: the modern kernel's logic transcribed as
//                                  it is written, branching on the topology type at run time
//   BM_owned/linux-modern/<kind>/<n>  owned_placement (a class member): one variant dispatch
//                                  per decision
//   BM_any/linux-modern/<kind>/<n>    any_placement (stack chosen at run time): one virtual call
//                                  per decision
//
// Every benchmark rotates through the same 16 grouped tasks' faults. Before timing anything
// the program checks, for every kind and size, that the kernel-style transcription and
// linux-modern agree on every input (and that the argmax agrees on direct machines), and
// aborts with the input if they do not. scripts/bench runs it and saves the JSON.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <numaplace/any_placement.hpp>
#include <numaplace/owned_placement.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/classify.hpp>

#include "kernel_style.hpp"
#include "workloads.hpp"

namespace {

using namespace numaplace_bench;

struct machine {
  numa_kind kind;
  std::size_t n;
  dynamic_topology topo;
  kernel_style::numa_state kernel;
  fault_inputs faults;

  machine(numa_kind k, std::size_t nodes, dynamic_topology t)
      : kind(k), n(nodes), topo(std::move(t)), kernel(kernel_style::boot(topo)), faults(nodes, input_count, fault_seed) {}
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "numaplace_bench: %s\n", what.c_str());
  std::abort();
}

std::string describe(const decision_input& in) {
  std::string s = "group faults (shared,private per node):";
  for (std::size_t i = 0; i < in.group.memory.size(); i += 2) {
    s += " " + std::to_string(in.group.memory[i]) + "," + std::to_string(in.group.memory[i + 1]);
  }
  s += " total " + std::to_string(in.group.total);
  return s;
}

std::string node_str(node_index n) { return n == numaplace::no_node ? "none" : std::to_string(n); }

// The decision loop every benchmark shares: one decision per iteration, rotating inputs.
template <class Decide>
void decide_loop(benchmark::State& state, const std::vector<decision_input>& inputs, Decide&& decide) {
  const decision_input* data = inputs.data();
  std::size_t i = 0;
  for (auto _ : state) {
    node_index nid = decide(data[i]);
    benchmark::DoNotOptimize(nid);
    i = (i + 1) % input_count;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

// The kernel-style transcription, linux-modern and (on direct machines) the argmax must agree.
void cross_check(const machine& m) {
  numaplace::with_placement<numaplace::stacks::linux_modern>(m.topo, [&](const auto& pl) {
    using pl_type = std::decay_t<decltype(pl)>;
    if (pl_type::kind != m.kind) fail("the " + std::string(kind_name(m.kind)) + " topology classifies differently");
    for (const decision_input& in : m.faults.inputs()) {
      const node_index lib = pl.preferred_node(in);
      const node_index ks = kernel_style::preferred_node(m.kernel, in);
      if (lib != ks) {
        fail("cross-check failed on " + std::string(kind_name(m.kind)) + "/" + std::to_string(m.n) +
             ": linux-modern says " + node_str(lib) + ", kernel-style says " + node_str(ks) + "; " + describe(in));
      }
      if (m.kind == numa_kind::direct && argmax_preferred(in) != lib) {
        fail("argmax and linux-modern disagree on direct/" + std::to_string(m.n) + ": " + describe(in));
      }
    }
  });
}

template <class Stack>
void register_stack(std::string_view name, const machine& m) {
  if (numaplace::classify(m.topo, Stack::era).kind != m.kind) {
    fail("stack " + std::string(name) + " sees the " + std::string(kind_name(m.kind)) + "/" + std::to_string(m.n) +
         " topology as another kind");
  }
  const std::string bm = "BM_stack/" + std::string(name) + "/" + std::string(kind_name(m.kind)) + "/" + std::to_string(m.n);
  benchmark::RegisterBenchmark(bm.c_str(), [&m](benchmark::State& state) {
    numaplace::with_placement<Stack>(m.topo, [&](const auto& pl) {
      decide_loop(state, m.faults.inputs(), [&](const decision_input& in) { return pl.preferred_node(in); });
    });
  });
}

// The placements a runtime keeps, against BM_stack/linux-modern (with_placement's).
void register_kept(const machine& m) {
  const std::string where = std::string(kind_name(m.kind)) + "/" + std::to_string(m.n);
  benchmark::RegisterBenchmark(("BM_owned/linux-modern/" + where).c_str(), [&m](benchmark::State& state) {
    const numaplace::owned_placement<numaplace::stacks::linux_modern> pl(m.topo);
    decide_loop(state, m.faults.inputs(), [&](const decision_input& in) { return pl.preferred_node(in); });
  });
  benchmark::RegisterBenchmark(("BM_any/linux-modern/" + where).c_str(), [&m](benchmark::State& state) {
    const auto pl = numaplace::any_placement::named("linux-modern", m.topo);
    if (!pl) fail("any_placement does not know linux-modern");
    decide_loop(state, m.faults.inputs(), [&](const decision_input& in) { return pl->preferred_node(in); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::unique_ptr<machine>> machines;
  std::string skipped;
  for (std::size_t n : sizes) {
    for (numa_kind k : kinds) {
      auto topo = make_topology(k, n);
      if (!topo) {
        skipped += (skipped.empty() ? "" : ", ") + std::string(kind_name(k)) + "/" + std::to_string(n);
        continue;
      }
      machines.push_back(std::make_unique<machine>(k, n, std::move(*topo)));
    }
  }
  for (const auto& m : machines) cross_check(*m);
  std::fprintf(stderr, "cross-check: kernel-style == linux-modern on %zu inputs of each of %zu machines\n", input_count,
               machines.size());
  benchmark::AddCustomContext("skipped", skipped + " (a 2-node machine has one remote distance: always direct)");
  benchmark::AddCustomContext("inputs", std::to_string(input_count) + " grouped tasks, faults seed " +
                                            std::to_string(fault_seed));

  for (std::size_t n : sizes) {
    const machine* direct = nullptr;
    for (const auto& m : machines) {
      if (m->n == n && m->kind == numa_kind::direct) direct = m.get();
    }
    benchmark::RegisterBenchmark(("BM_argmax/" + std::to_string(n)).c_str(), [direct](benchmark::State& state) {
      decide_loop(state, direct->faults.inputs(), [](const decision_input& in) { return argmax_preferred(in); });
    });
    for (const auto& m : machines) {
      if (m->n != n) continue;
      numaplace::for_each_stack([&](std::string_view name, auto stack) {
        register_stack<typename decltype(stack)::type>(name, *m);
      });
      register_kept(*m);
      const machine* mp = m.get();
      benchmark::RegisterBenchmark(
          ("BM_kernel_style/" + std::string(kind_name(m->kind)) + "/" + std::to_string(n)).c_str(),
          [mp](benchmark::State& state) {
            decide_loop(state, mp->faults.inputs(),
                        [mp](const decision_input& in) { return kernel_style::preferred_node(mp->kernel, in); });
          });
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
