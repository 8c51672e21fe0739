#pragma once
// One entry point for a topology file of either text form, so a CLI takes any of them.

#include <filesystem>
#include <string>
#include <string_view>

#include "dynamic_topology.hpp"
#include "load_matrix.hpp"
#include "load_numactl.hpp"
#include "text_input.hpp"

namespace numaplace::load {

/// `numactl --hardware` output when the text has its "node distances:" table (or its
/// "available:" line, so that a truncated paste gets numactl's error, not the matrix one);
/// otherwise a plain matrix. `source` names the text in errors; `details`, when given, gets
/// what a numactl dump says besides the topology (its free memory).
inline dynamic_topology text(std::string_view text, const std::string& source, numactl_details* details = nullptr) {
  const bool numactl = text.find("node distances:") != std::string_view::npos || text.starts_with("available:") ||
                       text.find("\navailable:") != std::string_view::npos;
  return numactl ? numactl_text(text, source, details) : matrix_text(text, source);
}

/// load::text of the file at `path`. Throws topology_error naming the file.
inline dynamic_topology file(const std::filesystem::path& path) { return text(detail::read_text(path), path.string()); }

}  // namespace numaplace::load
