#pragma once
// A machine's measured memory costs as JSON (`numaplace sim --costs FILE.json`), read and
// checked here so that every problem names the file and either the line:column of a syntax
// error or the JSON path of a bad value (`/latency_ratio/2/3`). Printed in the same form by
// `--costs-json`, so a preset's costs are a starting point for a user's own.

#include <nlohmann/json.hpp>
#include <numaplace/sim/machine_costs.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "exit_codes.hpp"
#include "json_checker.hpp"

namespace numaplace_cli {

/// What the printed costs say they are (json_stamp.hpp); files without the stamp are read too.
inline constexpr std::string_view machine_costs_format = "numaplace-machine-costs";
inline constexpr int machine_costs_schema_version = 1;

/// Costs that cannot be used; the message starts with the file name and the location.
class machine_costs_error : public bad_input_error {
 public:
  using bad_input_error::bad_input_error;
};

/// Parses and checks `text`; `source` names it in messages. Throws machine_costs_error. Costs
/// whose text has no "links" field come back without links (read_machine_costs derives them).
numaplace::sim::machine_costs parse_machine_costs(std::string_view text, const std::string& source);

/// Reads the file at `path` and parses it as the costs of `machine` (named `machine_name` in
/// messages), whose node count they must have. A file without a "links" field gets links
/// derived from the machine's SLIT (numaplace::sim::derive_links), as a machine without costs
/// does, and its assumption says so; "links": [] keeps its nodes free of link limits. Throws
/// machine_costs_error.
numaplace::sim::machine_costs read_machine_costs(const std::string& path, const numaplace::dynamic_topology& machine,
                                                 std::string_view machine_name);

/// `c` in the form parse_machine_costs reads back to the same costs.
nlohmann::ordered_json machine_costs_json(const numaplace::sim::machine_costs& c);


}  // namespace numaplace_cli
