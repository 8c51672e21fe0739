#pragma once
// The named stacks' engines, compiled once. A target linked to numaplace_sim_registry (the
// CLI, the tests and benchmarks of this repository) gets NUMAPLACE_SIM_COMPILED_STACKS defined,
// and every translation unit of it then calls the registry's run_engine<Stack> instead of
// instantiating every named stack times four kinds of engine itself. Without the macro, header-only
// users instantiate them inline as before.

#include <boost/hana/contains.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>

#include "../stacks.hpp"
#include "run_engine.hpp"

// X(stack type in numaplace::stacks) for every named stack; the registry's CMake list of
// translation units (examples/programs/sim_registry) follows it, one unit per stack.
#define NUMAPLACE_SIM_FOR_EACH_NAMED_STACK(X) \
  X(linux_3_8)                                \
  X(linux_3_13)                               \
  X(vanilla)                                  \
  X(patches_1_2)                              \
  X(patches_1_4)                              \
  X(linux_4_1)                                \
  X(linux_4_2)                                \
  X(linux_4_19_rc5)                           \
  X(linux_4_19_rc5_noratelimit)               \
  X(linux_4_19)                               \
  X(linux_5_5)                                \
  X(linux_5_6)                                \
  X(linux_5_9)                                \
  X(linux_5_10)                               \
  X(linux_5_17)                               \
  X(linux_5_18)                               \
  X(linux_modern)                             \
  X(linux_6_12)                               \
  X(linux_7_x)                                \
  X(shared_interleave)                        \
  X(linux_modern_safe)                        \
  X(numa_core)                                \
  X(numa_core_interleave)

namespace numaplace::sim::detail {

#define NUMAPLACE_SIM_STACK_TYPE(s) stacks::s,
/// The list above as types (and a closing void), checked against named_stacks() by the registry:
/// a stack named there and missing here would silently compile inline again.
inline constexpr auto compiled_stack_types = boost::hana::tuple_t<NUMAPLACE_SIM_FOR_EACH_NAMED_STACK(NUMAPLACE_SIM_STACK_TYPE) void>;
#undef NUMAPLACE_SIM_STACK_TYPE

template <class Stack>
constexpr bool is_compiled_stack() {
  return boost::hana::contains(compiled_stack_types, boost::hana::type_c<Stack>);
}

}  // namespace numaplace::sim::detail

#ifdef NUMAPLACE_SIM_COMPILED_STACKS
namespace numaplace::sim {
#define NUMAPLACE_SIM_EXTERN_ENGINE(s) \
  extern template run_result run_engine<stacks::s>(const dynamic_topology&, const workload&, const run_options&);
NUMAPLACE_SIM_FOR_EACH_NAMED_STACK(NUMAPLACE_SIM_EXTERN_ENGINE)
#undef NUMAPLACE_SIM_EXTERN_ENGINE
}  // namespace numaplace::sim
#endif
