#pragma once
// `numaplace explain`'s input: a JSON object with a distance matrix, per-node fault counts and,
// optionally, a group's faults and adjust_numa_imbalance() questions. Read and checked here, so
// that every problem is reported with the JSON path it was found at (`task_faults[3][1]`).

#include <cstdint>
#include <numaplace/policy/imbalance_adjustment.hpp>
#include <numaplace/policy/inputs.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "exit_codes.hpp"
#include <string_view>
#include <vector>

namespace numaplace_cli {

/// Input that cannot be explained; the message names the source and the JSON path.
class explain_input_error : public bad_input_error {
 public:
  using bad_input_error::bad_input_error;
};

/// One node's decayed faults, as the kernel's NUMA_MEM region holds them.
struct fault_pair {
  std::uint64_t shared = 0;
  std::uint64_t private_faults = 0;
};

/// One adjust_numa_imbalance() question: which kernel's rule, with which arguments.
struct imbalance_question {
  std::string variant;  ///< as written: "v5.5", "v5.9", "v5.10", "v5.11", "v5.18" or "v5.19"
  numaplace::imbalance_rule rule = numaplace::imbalance_rule::v5_19;
  numaplace::imbalance_args args;
};

struct explain_input {
  std::string source;  ///< the file name, or "stdin"
  numaplace::dynamic_topology topology;
  std::vector<fault_pair> task_faults;                  ///< one per node
  std::optional<std::vector<fault_pair>> group_faults;  ///< one per node when given
  std::vector<imbalance_question> imbalance;
};

/// The variant names `imbalance[].variant` accepts, in kernel order.
std::vector<std::string_view> imbalance_variant_names();

/// Parses and checks `text`; `source` names it in messages. Throws explain_input_error.
explain_input parse_explain_input(std::string_view text, const std::string& source);

/// Reads `path` ("-" for standard input) and parses it. Throws explain_input_error.
explain_input read_explain_input(const std::string& path);

}  // namespace numaplace_cli
