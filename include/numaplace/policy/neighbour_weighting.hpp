#pragma once
// neighbour_weighting: faults on nearby nodes count towards a node's score
// (score_nearby_nodes(), kernel/sched/fair.c since v3.19). Glueless mesh: a neighbour at
// distance d counts f*(max-d)/(max-local), rounded down term by term. Backplane: neighbours
// nearer than the hop limit count in full. On direct topologies the policy does not apply and
// adds no code.
//
// On a glueless mesh the v5.18 rule is precomputed when the placement is built: each node's
// neighbours nearer than the maximum distance, in one flat array, each with the exact
// reciprocal of its (max-d)/(max-local) (detail::scaled_share), so a decision multiplies
// where the kernel divides, and never looks at a node that does not count.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../stats/fault_view.hpp"
#include "../topology/types.hpp"

namespace numaplace {

enum class nearby_rule : std::uint8_t {
  v3_19,  ///< skip d == max; backplane counts d <= hop limit
  v4_19,  ///< backplane counts d < hop limit only
  v5_18,  ///< skip d >= max (distances beyond max, from CPU-less nodes, no longer wrap)
};

namespace detail {

/// floor(f * m / d) for 0 < m < d < 256, as the high half of one 64x64-bit product.
///
/// With r = ceil(m * 2^64 / d) = (m * 2^64 + e) / d, 0 <= e < d, the product f * r / 2^64 is
/// f*m/d + f*e/(d * 2^64): writing f*m = q*d + s (s < d), its floor is q as long as
/// s + f*e/2^64 < d, which holds when f*e < 2^64, so for every f < 2^64 / 256. Below that
/// bound f*m does not wrap either, so the kernel's `f * m / d` on ulong gives the same q.
struct scaled_share {
  /// f must be below 2^exact_bits for of() to be exact.
  static constexpr unsigned exact_bits = 56;

  static constexpr std::uint64_t reciprocal(std::uint64_t m, std::uint64_t d) noexcept {
    __extension__ using u128 = unsigned __int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet
    return static_cast<std::uint64_t>(((u128{m} << 64) + (d - 1)) / d);
  }
  static constexpr std::uint64_t of(std::uint64_t f, std::uint64_t reciprocal) noexcept {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128{f} * reciprocal) >> 64);
  }
};

/// One neighbour that counts towards a node's glueless score.
struct nearby_term {
  std::uint64_t reciprocal;  // scaled_share::reciprocal(factor, max - local)
  node_index node;
  std::uint32_t factor;  // max - d
};

}  // namespace detail

template <nearby_rule Rule = nearby_rule::v5_18>
class neighbour_weighting {
 public:
  template <numa_kind K>
  static constexpr bool applies_to = K != numa_kind::direct;

  /// Whether every node's total can be had in one pass (for_each_nearby_total): the v5.18
  /// glueless rule, whose terms are all positive multiples of a share.
  static constexpr bool totals_in_one_pass = Rule >= nearby_rule::v5_18;

  neighbour_weighting() = default;

  template <class View>
  explicit neighbour_weighting(const View& topo) {
    if constexpr (View::kind == numa_kind::glueless_mesh && totals_in_one_pass) build_terms(topo);
  }

  template <class Placement>
  std::uint64_t score_nearby(const Placement& pl, const fault_view& faults, node_index nid,
                             distance_t hop_limit) const noexcept {
    using View = typename Placement::topology_type;
    using A = typename Placement::arithmetic;
    if constexpr (View::kind == numa_kind::glueless_mesh && totals_in_one_pass) {
      std::uint64_t score = 0;
      for (std::uint32_t t = first_term_[nid]; t < first_term_[nid + 1]; ++t) {
        const detail::nearby_term& term = terms_[t];
        const std::uint64_t f = Placement::faults_on(faults, term.node);
        score = A::add(score, share<A>(f, term));
      }
      return score;
    } else {
      return score_by_distance(pl, faults, nid, hop_limit);
    }
  }

  /// One pass over a fault view, for a decision that needs every node's total: calls
  /// visit(node, total) for every node, in index order, for which wanted(node) holds, total
  /// being faults_on(node) + score_nearby(node) in Placement's arithmetic; false (and nothing
  /// visited) when every count is 0. `faults` must have one entry pair per node of the
  /// topology. Glueless meshes, v5.18 rule.
  // Inlined into its caller, so that the visitor's state stays in registers (GCC 12 keeps
  // it in memory otherwise: 2 % of an 8-node decision).
  template <class Placement, class Wanted, class Visit>
  [[gnu::always_inline]] bool for_each_nearby_total(const Placement&, const fault_view& faults, Wanted&& wanted, Visit&& visit) const noexcept {
    using A = typename Placement::arithmetic;
    static_assert(Placement::kind == numa_kind::glueless_mesh && totals_in_one_pass);
    const std::size_t n = first_term_.size() - 1;
    // Each node's faults once, not once per node that counts them.
    std::uint64_t f[max_nodes];
    std::uint64_t all_bits = 0;
    std::size_t i = 0;
    for (; i + 2 <= n; i += 2) {  // two nodes a step: the loop costs as much as its work
      f[i] = Placement::faults_on(faults, i);
      f[i + 1] = Placement::faults_on(faults, i + 1);
      all_bits |= f[i] | f[i + 1];
    }
    if (i < n) {
      f[i] = Placement::faults_on(faults, i);
      all_bits |= f[i];
    }
    if (all_bits == 0) return false;
    // Decided once per decision: below 2^56 every share is the reciprocal's, exactly.
    if ((all_bits >> detail::scaled_share::exact_bits) == 0) [[likely]] {
      const auto reciprocal_share = [](std::uint64_t fj, const detail::nearby_term& t) noexcept {
        return detail::scaled_share::of(fj, t.reciprocal);
      };
      // Rings and meshes give every node as many terms: the small counts are unrolled.
      switch (terms_per_node_) {
        case 2: visit_uniform_totals<A, 2>(n, f, wanted, visit, reciprocal_share); break;
        case 4: visit_uniform_totals<A, 4>(n, f, wanted, visit, reciprocal_share); break;
        case 6: visit_uniform_totals<A, 6>(n, f, wanted, visit, reciprocal_share); break;
        case 8: visit_uniform_totals<A, 8>(n, f, wanted, visit, reciprocal_share); break;
        default: visit_totals<A>(n, f, wanted, visit, reciprocal_share); break;
      }
    } else {
      visit_huge_totals<A>(n, f, wanted, visit);
    }
    return true;
  }

 private:
  template <class View>
  void build_terms(const View& topo) {
    const distance_t max = topo.max_distance();
    const std::uint64_t divisor = static_cast<std::uint64_t>(max - topo.local_distance());
    divisor_ = divisor;
    first_term_.reserve(topo.node_count() + 1);
    for (node_index nid = 0; nid < topo.node_count(); ++nid) {
      first_term_.push_back(static_cast<std::uint32_t>(terms_.size()));
      for (node_index node : topo.neighbours(nid)) {
        const distance_t d = topo.distance(nid, node);
        if (node == nid) continue;  // counted by the caller, in full
        if (d >= max) break;        // nearest first: no later node counts either
        const auto factor = static_cast<std::uint32_t>(max - d);  // 0 < factor < divisor: d > local
        terms_.push_back({detail::scaled_share::reciprocal(factor, divisor), node, factor});
      }
      // Even counts, so that the totals loop takes two terms a step; the padding term is nid's
      // own faults times 0: it adds nothing.
      if ((terms_.size() - first_term_.back()) % 2 != 0) terms_.push_back({0, nid, 0});
    }
    first_term_.push_back(static_cast<std::uint32_t>(terms_.size()));
    terms_per_node_ = terms_.size() / topo.node_count();
    for (node_index nid = 0; nid < topo.node_count(); ++nid) {
      if (first_term_[nid + 1] - first_term_[nid] != terms_per_node_) terms_per_node_ = 0;
    }
  }

  // One neighbour's share, exact for any f: the kernel's own expression beyond 2^56.
  template <class A>
  std::uint64_t share(std::uint64_t f, const detail::nearby_term& t) const noexcept {
    if ((f >> detail::scaled_share::exact_bits) != 0) return A::mul_div(f, t.factor, divisor_);
    return detail::scaled_share::of(f, t.reciprocal);
  }

  // Counts of 2^56 and more: each share as the kernel computes it.
  // This and the visit_*totals below are inlined into for_each_nearby_total: one of them out of
  // line takes the visitor's address, and GCC 12 then builds the visitor's state in memory on
  // every path (16 of an 8-node decision's instructions).
  template <class A, class Wanted, class Visit>
  [[gnu::always_inline]] void visit_huge_totals(std::size_t n, const std::uint64_t* f, Wanted& wanted,
                                                Visit& visit) const noexcept {
    visit_totals<A>(n, f, wanted, visit,
                    [this](std::uint64_t fj, const detail::nearby_term& t) noexcept { return share<A>(fj, t); });
  }

  // visit_totals when every node has T terms, T even: node i's are terms_[T*i .. T*i+T).
  template <class A, std::size_t T, class Wanted, class Visit, class Share>
  [[gnu::always_inline]] void visit_uniform_totals(std::size_t n, const std::uint64_t* f, Wanted& wanted,
                                                   Visit& visit, Share share_of) const noexcept {
    const detail::nearby_term* t = terms_.data();
    for (std::size_t i = 0; i < n; ++i, t += T) {
      if (!wanted(static_cast<node_index>(i))) continue;
      std::uint64_t even = f[i], odd = 0;
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (((K % 2 == 0 ? even : odd) = A::add(K % 2 == 0 ? even : odd, share_of(f[t[K].node], t[K]))), ...);
      }(std::make_index_sequence<T>{});
      visit(static_cast<node_index>(i), A::add(even, odd));
    }
  }

  template <class A, class Wanted, class Visit, class Share>
  [[gnu::always_inline]] void visit_totals(std::size_t n, const std::uint64_t* f, Wanted& wanted, Visit& visit,
                                           Share share_of) const noexcept {
    const detail::nearby_term* t = terms_.data();
    const std::uint32_t* end = first_term_.data() + 1;
    for (std::size_t i = 0; i < n; ++i) {
      const detail::nearby_term* last = terms_.data() + end[i];  // node i's terms are [t, last)
      if (!wanted(static_cast<node_index>(i))) {
        t = last;
        continue;
      }
      // Two sums, so that each product is added as it comes (the sums commute: wrapping and
      // saturating additions of unsigned values give the same total in any order).
      std::uint64_t even = f[i], odd = 0;
      for (; t != last; t += 2) {
        even = A::add(even, share_of(f[t[0].node], t[0]));
        odd = A::add(odd, share_of(f[t[1].node], t[1]));
      }
      visit(static_cast<node_index>(i), A::add(even, odd));
    }
  }

  // The rule as the kernel states it, for the other kinds and rules.
  template <class Placement>
  static std::uint64_t score_by_distance(const Placement& pl, const fault_view& faults, node_index nid,
                                         distance_t hop_limit) noexcept {
    using View = typename Placement::topology_type;
    const View& topo = pl.topology();
    const distance_t max = topo.max_distance();
    const auto neighbours = topo.neighbours(nid);  // nearest first; [0] is nid itself
    std::uint64_t score = 0;
    for (std::size_t i = 1; i < neighbours.size(); ++i) {
      const node_index node = neighbours[i];
      const distance_t d = topo.distance(nid, node);
      if constexpr (Rule >= nearby_rule::v5_18) {
        if (d >= max) break;
      } else {
        if (d == max) continue;
      }
      if constexpr (View::kind == numa_kind::backplane) {
        if constexpr (Rule >= nearby_rule::v4_19) {
          if (d >= hop_limit) break;
        } else {
          if (d > hop_limit) break;
        }
      }
      using A = typename Placement::arithmetic;
      std::uint64_t f = Placement::faults_on(faults, node);
      if constexpr (View::kind == numa_kind::glueless_mesh) {
        // Unsigned, as in the kernel: before v5.18 a distance beyond max wraps here.
        f = A::mul_div(f, static_cast<std::uint64_t>(static_cast<long>(max) - static_cast<long>(d)),
                       static_cast<std::uint64_t>(max - topo.local_distance()));
      }
      score = A::add(score, f);
    }
    return score;
  }

  // Glueless meshes, v5.18: node i's terms are terms_[first_term_[i] .. first_term_[i+1]).
  std::vector<detail::nearby_term> terms_;
  std::vector<std::uint32_t> first_term_;
  std::uint64_t divisor_ = 1;        // max - local
  std::size_t terms_per_node_ = 0;  // when every node has as many terms; else 0
};

}  // namespace numaplace
