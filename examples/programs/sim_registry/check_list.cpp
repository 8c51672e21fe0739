// The registry's list of stacks (NUMAPLACE_SIM_FOR_EACH_NAMED_STACK) names every named stack
// and nothing else: checked here, at compile time, once.
#include <boost/hana/length.hpp>

#include <numaplace/sim/compiled_stacks.hpp>

namespace numaplace::sim::detail {

[[maybe_unused]] inline void every_named_stack_is_compiled() {
  for_each_stack([](std::string_view, auto type) {
    static_assert(is_compiled_stack<typename decltype(type)::type>(),
                  "a named stack is missing from NUMAPLACE_SIM_FOR_EACH_NAMED_STACK");
  });
  static_assert(decltype(boost::hana::length(compiled_stack_types))::value ==
                    decltype(boost::hana::length(named_stacks()))::value + 1,
                "NUMAPLACE_SIM_FOR_EACH_NAMED_STACK and named_stacks() count different stacks");
}

}  // namespace numaplace::sim::detail
