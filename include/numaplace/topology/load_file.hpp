#pragma once
// One entry point for a topology file of either text form, so a CLI takes any of them.

#include <filesystem>
#include <string_view>

#include "dynamic_topology.hpp"
#include "load_matrix.hpp"
#include "load_numactl.hpp"
#include "text_input.hpp"

namespace numaplace::load {

/// `numactl --hardware` output when the text has its "node distances:" table (or its
/// "available:" line, so that a truncated paste gets numactl's error, not the matrix one);
/// otherwise a plain matrix. Throws topology_error naming the file.
inline dynamic_topology file(const std::filesystem::path& path) {
  const std::string text = detail::read_text(path);
  const std::string_view view = text;
  const bool numactl = view.find("node distances:") != std::string_view::npos || view.starts_with("available:") ||
                       view.find("\navailable:") != std::string_view::npos;
  return numactl ? numactl_text(text, path.string()) : matrix_text(text, path.string());
}

}  // namespace numaplace::load
