#pragma once
// `numaplace explain`'s findings: what a named stack computes from the input (per-level
// nearby scores and weights, the preferred node, imbalance allowances) and why it chose that
// node, ready to print as text or JSON. Every number comes from the library's placement, and
// every reason from the steps its policies recorded (numaplace/policy/trace.hpp); the CLI only
// puts them into words.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <numaplace/topology/types.hpp>
#include <optional>
#include <string>
#include <vector>

#include <numaplace/formats/explain_input_json.hpp>

namespace numaplace_cli {

// explain's input, read and checked by the library (numaplace/formats/explain_input_json.hpp).
using numaplace::formats::explain_input;
using numaplace::formats::fault_pair;
using numaplace::formats::imbalance_question;

/// A task's or a group's faults and what the stack derives from them at each level.
struct fault_report {
  std::vector<fault_pair> faults;
  std::uint64_t total = 0;
  /// nearby[k][n]: score_nearby(n, levels_above_local[k]); weight likewise.
  std::vector<std::vector<std::uint64_t>> nearby;
  std::vector<std::vector<std::uint64_t>> weight;
};

struct imbalance_answer {
  imbalance_question question;
  long result = 0;
  std::string reason;  ///< e.g. "dst_running 3 <= imb_numa_nr 4 and imbalance 2 <= 2: forgiven"
};

struct explain_report {
  std::string stack;
  numaplace::numa_kind kind = numaplace::numa_kind::direct;
  std::vector<numaplace::distance_t> levels;
  numaplace::distance_t local_distance = 0;
  numaplace::distance_t max_distance = 0;
  std::vector<numaplace::distance_t> levels_above_local;  ///< the `<dist>` keys
  fault_report task;
  std::optional<fault_report> group;
  long long preferred_nid = -1;  ///< -1: no answer
  std::string why;
  std::vector<imbalance_answer> imbalance;
};

/// The stack names `--stack` accepts, in registry order.
std::vector<std::string> stack_names();

/// Runs stack `stack_name` on `in`. Throws usage_error for an unknown stack.
explain_report make_explain_report(const explain_input& in, const std::string& stack_name);

/// The `--json` object.
nlohmann::ordered_json explain_json(const explain_report& r);

/// The text for a person: per-node tables, the chosen node and why, the imbalance answers.
void print_explain_text(const explain_report& r);

}  // namespace numaplace_cli
