#pragma once
// One run of one stack: the simulator's engine built for a stack's placement. This is where
// engines are instantiated; the stack registry (compiled_stacks.hpp) may compile the named
// stacks' ones once, elsewhere.

#include "../stacks.hpp"
#include "../topology/dynamic_topology.hpp"
#include "engine.hpp"
#include "result.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// One run of `w` on `t` under `Stack`'s placement, built for t's kind as Stack's era sees it.
/// Not inline on purpose: an `extern template` declaration then keeps a translation unit from
/// instantiating the engine (every kind of it) when another one already has.
template <class Stack>
run_result run_engine(const dynamic_topology& t, const workload& w, const run_options& o) {
  run_result result;
  with_placement<Stack>(t, [&](const auto& pl) { result = engine<std::decay_t<decltype(pl)>>(t, &pl, w, o).run(); });
  return result;
}

}  // namespace numaplace::sim
