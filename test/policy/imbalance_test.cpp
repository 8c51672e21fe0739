// adjust_numa_imbalance() across its forms (v5.7..v5.19), through the composed placement.
#include <doctest/doctest.h>

#include <numaplace/policy/imbalance_adjustment.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

using namespace numaplace;

namespace {

template <imbalance_rule Rule>
using with_rule = stack<kernel_era::modern, fault_scoring<>, imbalance_adjustment<Rule>>;

// task_numa_find_cpu's arguments for a move from a node running `src` tasks to one running
// `dst`: src_running = src - 1, dst_running = dst + 1, imbalance = max(0, dst_running - src_running).
imbalance_args move(int src, int dst, int dst_weight = 0, int imb_numa_nr = 0) {
  imbalance_args a;
  a.src_running = src - 1;
  a.dst_running = dst + 1;
  a.imbalance = a.dst_running > a.src_running ? a.dst_running - a.src_running : 0;
  a.dst_weight = dst_weight;
  a.imb_numa_nr = imb_numa_nr;
  return a;
}

template <class Stack>
long adjusted(const imbalance_args& a) {
  static const dynamic_topology t = presets::find("seed004-2socket")->build();
  return with_placement<Stack>(t, [&](const auto& pl) { return pl.adjust_imbalance(a); });
}

}  // namespace

TEST_CASE("a worked example: src 2 and dst 3 running") {
  const imbalance_args a = move(2, 3);
  CHECK(a.src_running == 1);
  CHECK(a.dst_running == 4);
  CHECK(a.imbalance == 3);
  CHECK(adjusted<with_rule<imbalance_rule::v5_7>>(a) == 0);  // v5.9: the source is nearly idle, forgiven
  CHECK(adjusted<with_rule<imbalance_rule::v5_10>>(a) == 3);  // v5.10: the destination is not, kept
  CHECK(adjusted<stacks::linux_5_10>(a) == 3);
}

TEST_CASE("v5.7 - v5.9: forgiven while the source runs at most 2 tasks after the move") {
  using S = with_rule<imbalance_rule::v5_7>;
  CHECK(adjusted<S>(move(3, 3)) == 0);   // src_running 2: imbalance 4 - 2 forgiven
  CHECK(adjusted<S>(move(4, 4)) == 2);   // src_running 3: imbalance 5 - 3 kept
  CHECK(adjusted<S>(move(3, 10)) == 0);  // however busy the destination
}

TEST_CASE("v5.10: forgiven while the destination runs at most 2 tasks after the move") {
  using S = with_rule<imbalance_rule::v5_10>;
  CHECK(adjusted<S>(move(1, 1)) == 0);    // dst_running 2, imbalance 2
  CHECK(adjusted<S>(move(2, 1)) == 0);    // dst_running 2, imbalance 1
  CHECK(adjusted<S>(move(1, 2)) == 3);    // dst_running 3, imbalance 3 kept
}

TEST_CASE("v5.11 - v5.17: small imbalances forgiven while the destination is under 25 % busy") {
  using S = with_rule<imbalance_rule::v5_11>;
  // 20 CPUs: 20 >> 2 = 5, so dst_running must be below 5.
  CHECK(adjusted<S>(move(2, 2, 20)) == 0);   // dst_running 3, imbalance 2: forgiven
  CHECK(adjusted<S>(move(1, 2, 20)) == 3);   // imbalance 3 > NUMA_IMBALANCE_MIN: kept
  CHECK(adjusted<S>(move(3, 3, 20)) == 0);   // dst_running 4 < 5, imbalance 2
  CHECK(adjusted<S>(move(4, 4, 20)) == 2);   // dst_running 5: not < 5, kept
  CHECK(adjusted<S>(move(4, 4, 24)) == 0);   // 24 >> 2 = 6: forgiven
  CHECK(adjusted<S>(move(2, 2, 3)) == 2);    // 3 CPUs: 3 >> 2 = 0, never lightly loaded
}

TEST_CASE("v5.18 forgives while dst_running < imb_numa_nr, v5.19 while <=") {
  using v5_18 = with_rule<imbalance_rule::v5_18>;
  using v5_19 = with_rule<imbalance_rule::v5_19>;
  const imbalance_args at_limit = move(3, 3, 0, 4);  // dst_running 4 == imb_numa_nr, imbalance 2
  CHECK(at_limit.imbalance == 2);
  CHECK(adjusted<v5_18>(at_limit) == 2);
  CHECK(adjusted<v5_19>(at_limit) == 0);
  CHECK(adjusted<stacks::linux_modern>(at_limit) == 0);

  const imbalance_args below = move(2, 2, 0, 4);  // dst_running 3
  CHECK(adjusted<v5_18>(below) == 0);
  CHECK(adjusted<v5_19>(below) == 0);

  const imbalance_args above = move(4, 4, 0, 4);  // dst_running 5
  CHECK(adjusted<v5_18>(above) == 2);
  CHECK(adjusted<v5_19>(above) == 2);

  const imbalance_args big = move(1, 3, 0, 8);  // lightly loaded, but imbalance 4
  CHECK(adjusted<v5_18>(big) == 4);
  CHECK(adjusted<v5_19>(big) == 4);
}

TEST_CASE("a stack without an imbalance policy leaves the imbalance alone") {
  CHECK(adjusted<stacks::vanilla>(move(2, 3)) == 3);
  CHECK(adjusted<stacks::linux_4_2>(move(1, 1)) == 2);
}

TEST_CASE("the policy is usable on its own, at compile time") {
  static_assert(imbalance_adjustment<imbalance_rule::v5_7>{}.adjust_imbalance({3, 1, 4, 0, 0}) == 0);
  static_assert(imbalance_adjustment<imbalance_rule::v5_10>{}.adjust_imbalance({3, 1, 4, 0, 0}) == 3);
  static_assert(imbalance_adjustment<imbalance_rule::v5_19>{}.adjust_imbalance({2, 0, 4, 0, 4}) == 0);
  static_assert(imbalance_adjustment<imbalance_rule::v5_18>{}.adjust_imbalance({2, 0, 4, 0, 4}) == 2);
  // And at run time, from values the compiler cannot see.
  volatile int dst_running = 4;
  CHECK(imbalance_adjustment<imbalance_rule::v5_19>{}.adjust_imbalance({2, 0, dst_running, 0, 4}) == 0);
  CHECK(imbalance_adjustment<imbalance_rule::v5_18>{}.adjust_imbalance({2, 0, dst_running, 0, 4}) == 2);
}
