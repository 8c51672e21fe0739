// adjust_imbalance_by_rule and inputs_read_by (policy/imbalance_by_rule.hpp): the run-time
// dispatch answers as each rule's policy does, and names what each rule reads.
#include <doctest/doctest.h>
#include <numaplace/policy/imbalance_by_rule.hpp>
#include <random>
#include <string>

using namespace numaplace;

namespace {

template <imbalance_rule R>
void same_as_policy(const imbalance_args& a) {
  decision_trace by_rule, by_policy;
  CHECK(adjust_imbalance_by_rule(R, a, by_rule) == imbalance_adjustment<R>{}.adjust_imbalance(a, by_policy));
  CHECK(by_rule.steps().size() == by_policy.steps().size());
  CHECK(adjust_imbalance_by_rule(R, a) == imbalance_adjustment<R>{}.adjust_imbalance(a));
}

std::string names(imbalance_rule rule) {
  std::string out;
  for (const auto& in : inputs_read_by(rule, {})) out += std::string(out.empty() ? "" : " ") + in.name;
  return out;
}

}  // namespace

TEST_CASE("adjust_imbalance_by_rule answers as the rule's own policy, over random arguments") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(0, 40);
  for (int draw = 0; draw < 500; ++draw) {
    const imbalance_args a{small(rng), small(rng), small(rng), small(rng) + 1, small(rng)};
    same_as_policy<imbalance_rule::v5_5>(a);
    same_as_policy<imbalance_rule::v5_7>(a);
    same_as_policy<imbalance_rule::v5_10>(a);
    same_as_policy<imbalance_rule::v5_11>(a);
    same_as_policy<imbalance_rule::v5_18>(a);
    same_as_policy<imbalance_rule::v5_19>(a);
  }
}

TEST_CASE("inputs_read_by names what each adjust_numa_imbalance() reads besides the imbalance") {
  CHECK(names(imbalance_rule::v5_5).empty());
  CHECK(names(imbalance_rule::v5_7) == "src_running");
  CHECK(names(imbalance_rule::v5_10) == "dst_running");
  CHECK(names(imbalance_rule::v5_11) == "dst_running dst_weight");
  CHECK(names(imbalance_rule::v5_18) == "dst_running imb_numa_nr");
  CHECK(names(imbalance_rule::v5_19) == "dst_running imb_numa_nr");
  const imbalance_args a{3, 1, 4, 16, 6};
  const auto read = inputs_read_by(imbalance_rule::v5_11, a);
  REQUIRE(read.size() == 2);
  CHECK(read[0].value == 4);
  CHECK(read[1].value == 16);
}
