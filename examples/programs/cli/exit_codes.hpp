#pragma once
// What the numaplace CLI returns to its caller, and the errors that choose the code.
//   0  success
//   1  the work failed: a simulation, a plot, a write or a system call that went wrong
//   2  usage or bad input: a command line CLI11 rejected, contradicting options, a file or
//      sysfs folder that is missing or malformed, an unknown name

#include <stdexcept>

namespace numaplace_cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failed = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_bad_input = 2;

/// A request that cannot be served as asked (unknown machine, hwloc not built in, ...).
/// Its message is shown as is, so it should say what to do instead.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Input that is missing or malformed; its message names the input and where in it.
/// (numaplace::topology_error and numaplace::formats::format_error are the library's own, and
/// map to the same code.)
class bad_input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace numaplace_cli
