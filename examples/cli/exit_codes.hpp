#pragma once
// What the numaplace CLI returns to its caller, and the error that maps to a usage failure.

#include <stdexcept>

namespace numaplace_cli {

inline constexpr int exit_ok = 0;
/// A command line CLI11 rejected, or options that contradict each other.
inline constexpr int exit_usage = 2;
/// Input that is missing or malformed: an unknown preset, a bad file, an unreadable sysfs.
inline constexpr int exit_bad_input = 2;

/// A request that cannot be served as asked (unknown preset, hwloc not built in, ...).
/// Its message is shown as is, so it should say what to do instead.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace numaplace_cli
