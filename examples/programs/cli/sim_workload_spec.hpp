#pragma once
// `numaplace sim --workload SPEC`: the library's workload spec parser
// (numaplace/formats/workload_spec.hpp), its errors said as the CLI's usage errors naming the
// option. (The bindings a custom workload gets for the binding baselines are the library's:
// sim/binding.hpp.)

#include <fmt/format.h>

#include <string>

#include <numaplace/formats/workload_spec.hpp>
#include <numaplace/sim/workload.hpp>

#include "exit_codes.hpp"

namespace numaplace_cli {

using numaplace::formats::describe_workload;
using numaplace::formats::max_sim_tasks;
using numaplace::formats::workload_spec_forms;

/// Builds the workload `spec` names. Throws usage_error, naming --workload, the spec and the bad field.
inline numaplace::sim::workload parse_workload_spec(const std::string& spec) {
  try {
    return numaplace::formats::parse_workload_spec(spec);
  } catch (const numaplace::formats::workload_spec_error& e) {
    throw usage_error(fmt::format("--workload '{}': {}; forms: {}", e.spec(), e.reason(), workload_spec_forms));
  }
}

}  // namespace numaplace_cli
