#pragma once
// A machine as a file, both ways: `topo --json` prints a "numaplace-topology" document and
// `--file` reads it back. Only the facts a machine is made of are read (node ids, distances,
// CPUs, memory); the rest of the document (kind, levels, neighbours, ...) is derived from them
// and ignored on reading, so the round trip prints the same document.

#include <string>
#include <string_view>

#include "exit_codes.hpp"
#include "topology_source.hpp"

namespace numaplace_cli {

inline constexpr std::string_view topology_format = "numaplace-topology";
/// Raised when a field changes meaning or goes away, not when one is added.
inline constexpr int topology_schema_version = 1;

/// A topology document that is not valid JSON or not a numaplace topology. Its message names
/// the file and the line:column of a syntax error or the JSON pointer of a bad value.
class topology_file_error : public bad_input_error {
 public:
  using bad_input_error::bad_input_error;
};

/// True when `text` looks like JSON (its first non-blank character is '{'); the other
/// topology formats (a matrix, numactl output) never start so.
bool looks_like_json(std::string_view text);

/// Parses a topology document; `source` names it in errors and in the result's source.
/// Throws topology_file_error, or numaplace::topology_error for a matrix the library rejects.
loaded_topology parse_topology_json(std::string_view text, const std::string& source);

}  // namespace numaplace_cli
