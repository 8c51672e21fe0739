#pragma once
// The located errors of numaplace::formats (numaplace/formats/json_checker.hpp), under the
// names the CLI's own JSON readers use.

#include <numaplace/formats/json_checker.hpp>

namespace numaplace_cli {

using numaplace::formats::json_checker;
using numaplace::formats::line_and_column;
using numaplace::formats::max_json_depth;
using numaplace::formats::reason;
using numaplace::formats::shown;
using numaplace::formats::too_deep_at;
using numaplace::formats::too_deep_message;

}  // namespace numaplace_cli
