// numaplace::formats::parse_explain_input, `numaplace explain`'s JSON input: read into a
// topology and fault counts, or refused at the JSON path of the problem.
#include <doctest/doctest.h>

#include <string>

#include <numaplace/formats/explain_input_json.hpp>

namespace formats = numaplace::formats;

namespace {

std::string refusal(const std::string& text) {
  try {
    formats::parse_explain_input(text, "e.json");
  } catch (const formats::explain_input_error& e) {
    return e.what();
  }
  FAIL("accepted what it should refuse");
  return "";
}

}  // namespace

TEST_CASE("explain's input reads into a topology, faults and questions") {
  const formats::explain_input in = formats::parse_explain_input(
      R"({"distances": [[10, 20], [20, 10]], "task_faults": [[1, 2], [3, 4]],
          "imbalance": [{"variant": "v5.19", "imbalance": 2, "dst_running": 3, "imb_numa_nr": 4}]})",
      "e.json");
  CHECK(in.source == "e.json");
  CHECK(in.topology.node_count() == 2);
  CHECK(in.task_faults[1].private_faults == 4);
  CHECK_FALSE(in.group_faults);
  REQUIRE(in.imbalance.size() == 1);
  CHECK(in.imbalance[0].rule == numaplace::imbalance_rule::v5_19);
  CHECK(in.imbalance[0].args.imb_numa_nr == 4);
  CHECK(formats::imbalance_variant_names().front() == "v5.5");
}

TEST_CASE("bad explain input is refused at its JSON path") {
  const std::string distances = R"("distances": [[10, 20], [20, 10]])";
  CHECK(refusal("") == "e.json: the input is empty; expected a JSON object with \"distances\" and \"task_faults\"");
  CHECK(refusal(R"({"distances": [[10, 20.5], [20, 10]], "task_faults": []})") ==
        "e.json: distances[0][1]: expected an integer distance, got 20.5");
  // A short value is shown as written, a long one by its type (json_checker's shown()).
  CHECK(refusal("{" + distances + R"(, "task_faults": [[1, 2], [3]]})") ==
        "e.json: task_faults[1]: expected [shared, private] with two non-negative integers, got [3]");
  CHECK(refusal("{" + distances + R"(, "task_faults": [[1, 2], [")" + std::string(60, 'x') + "\"]]}")
            .ends_with("got an array of 1"));
  CHECK(refusal("{" + distances + R"(, "task_faults": [[1, 2], [3, 4]], "imbalance": [{"variant": "v6"}]})")
            .starts_with("e.json: imbalance[0].variant: unknown variant \"v6\"; expected one of v5.5, "));
}
