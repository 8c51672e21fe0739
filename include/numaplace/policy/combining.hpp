#pragma once
// How the composer combines one hook over a stack's policies: the six combining rules, the
// fold each one is, and the compile-time check that a stack keeps a hook's rule. The hooks
// themselves, each with its rule and default, are the table in policy/hooks.hpp.
//
// A hook entry `H` provides:
//   static constexpr combining rule;
//   template <class P, class Placement> static constexpr bool provided_by;   detection
//   static R call(const P&, const Placement&, Args...) noexcept;              the policy's answer
//   static R fallback(const Placement&, Args...) noexcept;   the default: the answer of
//                                                            at_most_one without a provider, the
//                                                            start of sum, any and all (none
//                                                            for in_order: the caller's value;
//                                                            exactly_one's is never called)
// and a placement method calls `combine<H>(*this, policies_, args...)`.

#include <boost/hana/at.hpp>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/tuple.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace numaplace::hooks {

enum class combining : std::uint8_t {
  exactly_one,  ///< one policy of the stack provides it, or the stack does not compile
  at_most_one,  ///< the one provider's answer, else the hook's default; two do not compile
  in_order,     ///< folded through in stack order, each provider refining the previous value
                ///< (the first sees the caller's); no provider: the caller's value unchanged
  sum,          ///< the default (0) plus every provider's value, in the stack's arithmetic
  any,          ///< the default (false) or any provider's answer; stops at the first true
  all,          ///< the default (true) and every provider's answer; stops at the first false
};

/// How many policies of the hana::tuple `Policies` provide `Hook` (for a given placement type).
template <class Hook, class Placement, class Policies>
inline constexpr int provider_count = 0;
template <class Hook, class Placement, class... Ps>
inline constexpr int provider_count<Hook, Placement, boost::hana::tuple<Ps...>> =
    ((Hook::template provided_by<Ps, Placement> ? 1 : 0) + ... + 0);

// The conditions the rules' static_asserts test. GCC and Clang both print a failed condition
// with its template arguments, so the diagnostic names the rule and the hook:
// "exactly_one_policy_provides<numaplace::hooks::select_preferred, 0>" (C++20 messages must be
// string literals and cannot name the hook themselves).
template <class Hook, int Providers>
inline constexpr bool exactly_one_policy_provides = Providers == 1;
template <class Hook, int Providers>
inline constexpr bool at_most_one_policy_provides = Providers <= 1;

/// Fails to compile, with a message that says what to change, when `Providers` policies of a
/// stack break `Hook`'s rule. The other rules accept any number of providers.
template <class Hook, int Providers>
constexpr void check_rule() noexcept {
  if constexpr (Hook::rule == combining::exactly_one) {
    static_assert(exactly_one_policy_provides<Hook, Providers>,
                  "numaplace: an exactly_one hook (the failed condition names it) must be provided by exactly one "
                  "policy of the stack: add one (select_preferred: fault_scoring) or remove the others");
  } else if constexpr (Hook::rule == combining::at_most_one) {
    static_assert(at_most_one_policy_provides<Hook, Providers>,
                  "numaplace: an at_most_one hook (the failed condition names it) is provided by more than one "
                  "policy of the stack: keep one (replace<Stack, Old, New> swaps a policy)");
  }
}

namespace detail {

template <class Hook, class P, class Placement>
inline constexpr bool provides = Hook::template provided_by<std::decay_t<P>, Placement>;

// The index in Ps... of the first policy that provides Hook (called only when one does).
template <class Hook, class Placement, class... Ps>
constexpr std::size_t first_provider(const boost::hana::tuple<Ps...>*) noexcept {
  constexpr bool provides[] = {Hook::template provided_by<Ps, Placement>..., false};
  std::size_t i = 0;
  while (!provides[i]) ++i;
  return i;
}

// in_order: `value` through every provider, in stack order.
template <class Hook, class Placement, class Policies, class Value, class... Args>
Value refine(const Placement& pl, const Policies& policies, Value value, const Args&... args) noexcept {
  return boost::hana::fold_left(policies, value, [&](Value v, const auto& p) -> Value {
    if constexpr (provides<Hook, decltype(p), Placement>) {
      return Hook::call(p, pl, v, args...);
    } else {
      return v;
    }
  });
}

}  // namespace detail

/// `Hook` combined over `policies` (a hana::tuple) by its rule, for placement `pl`. For in_order
/// hooks the first argument is the value being refined; every provider sees the others as given.
template <class Hook, class Placement, class Policies, class... Args>
decltype(auto) combine(const Placement& pl, const Policies& policies, const Args&... args) noexcept {
  constexpr int providers = provider_count<Hook, Placement, Policies>;
  check_rule<Hook, providers>();

  if constexpr (Hook::rule == combining::exactly_one || Hook::rule == combining::at_most_one) {
    if constexpr (providers == 0) {
      return Hook::fallback(pl, args...);
    } else {
      constexpr std::size_t i = detail::first_provider<Hook, Placement>(static_cast<const Policies*>(nullptr));
      return Hook::call(policies[boost::hana::size_c<i>], pl, args...);
    }
  } else if constexpr (Hook::rule == combining::in_order) {
    return detail::refine<Hook>(pl, policies, args...);
  } else {
    using result = decltype(Hook::fallback(pl, args...));
    return boost::hana::fold_left(policies, Hook::fallback(pl, args...), [&](result acc, const auto& p) -> result {
      if constexpr (!detail::provides<Hook, decltype(p), Placement>) {
        return acc;
      } else if constexpr (Hook::rule == combining::sum) {
        return Placement::arithmetic::add(acc, Hook::call(p, pl, args...));
      } else if constexpr (Hook::rule == combining::any) {
        return acc || Hook::call(p, pl, args...);
      } else {
        return acc && Hook::call(p, pl, args...);
      }
    });
  }
}

/// Whether some policy of `Policies` (a hana::tuple) provides `Hook`.
template <class Hook, class Placement, class Policies>
inline constexpr bool provided = provider_count<Hook, Placement, Policies> > 0;

}  // namespace numaplace::hooks
