#pragma once
// The stamp every printed document carries, from numaplace::formats
// (numaplace/formats/json_stamp.hpp), under the names the CLI uses.

#include <numaplace/formats/json_stamp.hpp>

namespace numaplace_cli {

using numaplace::formats::check_stamp;
using numaplace::formats::is_stamp_key;
using numaplace::formats::stamp_json;

}  // namespace numaplace_cli
