#pragma once
// The one exception type topology construction and loading throw.
// Decisions never throw; only building a topology from untrusted input does.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace numaplace {

/// Where a problem was found. Every field is optional: a matrix given in code has no file,
/// a sysfs tree has files but no rows.
struct error_location {
  std::string source;                  ///< file or folder path, or a label such as "matrix"
  std::size_t line = 0;                ///< 1-based line in `source`, 0 when not applicable
  std::optional<std::size_t> row;      ///< 0-based matrix row (dense node index)
  std::optional<std::size_t> column;   ///< 0-based matrix column
};

/// Thrown when a topology cannot be built: the message says what was wrong and where.
class topology_error : public std::runtime_error {
 public:
  topology_error(error_location where, const std::string& what)
      : std::runtime_error(format(where, what)), where_(std::move(where)), reason_(what) {}

  const error_location& where() const noexcept { return where_; }
  /// The message without the location prefix.
  const std::string& reason() const noexcept { return reason_; }

  /// The same error seen from an outer source (a loader adds its file and line).
  topology_error located(std::string source, std::size_t line) const {
    error_location w = where_;
    w.source = std::move(source);
    w.line = line;
    return topology_error(std::move(w), reason_);
  }

 private:
  static std::string format(const error_location& w, const std::string& what) {
    std::string s;
    if (!w.source.empty()) {
      s += w.source;
      if (w.line != 0) s += ':' + std::to_string(w.line);
      s += ": ";
    }
    if (w.row && w.column) {
      s += "row " + std::to_string(*w.row) + ", column " + std::to_string(*w.column) + ": ";
    } else if (w.row) {
      s += "row " + std::to_string(*w.row) + ": ";
    }
    return s + what;
  }

  error_location where_;
  std::string reason_;
};

}  // namespace numaplace
