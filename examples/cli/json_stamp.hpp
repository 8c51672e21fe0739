#pragma once
// Every JSON document the CLI prints says what it is: its format's name, that format's
// schema_version (raised when a field changes meaning or goes away, not when one is added) and
// the numaplace that wrote it. Readers (topo --file, sim --merge) check the first two.

#include <nlohmann/json.hpp>
#include <string_view>

#include <numaplace/version.hpp>

namespace numaplace_cli {

/// Adds "format", "schema_version" and "numaplace_version" to the object `j`.
inline void stamp_json(nlohmann::json& j, std::string_view format, int schema_version) {
  j["format"] = format;
  j["schema_version"] = schema_version;
  j["numaplace_version"] = numaplace::version_string;
}

}  // namespace numaplace_cli
