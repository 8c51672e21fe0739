#pragma once
// stack<Era, Policies...>: a policy list and the kernel era whose topology classification it
// goes with, and the algebra that derives one stack from another:
//
//   extend<Stack, Ps...>        Stack's policies, then Ps..., in Stack's era
//   replace<Stack, Old, New>    Stack with every Old swapped for New (Old must be in Stack)
//   with_era<Stack, Era>        Stack's policies, classified as Era classifies topologies
//
// Order is kept: it is the order in which in_order hooks refine (policy/hooks.hpp).

#include <type_traits>

#include "placement.hpp"
#include "topology/kinded_topology.hpp"

namespace numaplace {

/// A policy list and the kernel era whose topology classification it goes with.
template <kernel_era Era, class... Policies>
struct stack {
  static constexpr kernel_era era = Era;
  template <class View>
  using placement_type = placement<View, Policies...>;
};

/// Whether `Policy` is one of `Stack`'s policies.
template <class Stack, class Policy>
inline constexpr bool stack_lists = false;
template <kernel_era Era, class... Ps, class Policy>
inline constexpr bool stack_lists<stack<Era, Ps...>, Policy> = (std::is_same_v<Ps, Policy> || ...);

namespace detail {

template <class Stack, class... More>
struct extend_stack;
template <kernel_era Era, class... Ps, class... More>
struct extend_stack<stack<Era, Ps...>, More...> {
  using type = stack<Era, Ps..., More...>;
};

template <class Stack, class Old, class New>
struct replace_in_stack;
template <kernel_era Era, class... Ps, class Old, class New>
struct replace_in_stack<stack<Era, Ps...>, Old, New> {
  // Compilers print the failed condition with its arguments: the stack and the policy.
  static_assert(stack_lists<stack<Era, Ps...>, Old>,
                "numaplace: replace<Stack, Old, New>: Old is not one of Stack's policies (the failed condition "
                "names both; spell Old exactly as the stack lists it, template arguments included)");
  using type = stack<Era, std::conditional_t<std::is_same_v<Ps, Old>, New, Ps>...>;
};

template <class Stack, kernel_era Era>
struct stack_with_era;
template <kernel_era From, class... Ps, kernel_era Era>
struct stack_with_era<stack<From, Ps...>, Era> {
  using type = stack<Era, Ps...>;
};

}  // namespace detail

/// `Stack`'s policies followed by `Policies...`, in `Stack`'s era.
template <class Stack, class... Policies>
using extend = typename detail::extend_stack<Stack, Policies...>::type;

/// `Stack` with every `Old` swapped for `New`, in place; a compile error when `Old` is not in it.
template <class Stack, class Old, class New>
using replace = typename detail::replace_in_stack<Stack, Old, New>::type;

/// `Stack`'s policies, with topologies classified as kernel era `Era` classifies them.
template <class Stack, kernel_era Era>
using with_era = typename detail::stack_with_era<Stack, Era>::type;

}  // namespace numaplace
