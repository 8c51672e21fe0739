#pragma once
// The Linux layer's result: every call that asks the kernel for something returns an os_status.
// A failure names the call, its arguments and errno's text, and for the errors a placement
// runtime meets in practice says what they usually mean (EPERM: a capability is missing; ESRCH:
// the task has exited; EINVAL on a node mask: a node is offline or not allowed). Callers who
// prefer exceptions pass the status to throw_if_failed.

#include <cerrno>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace numaplace::os {

/// What a call's arguments name, so that an errno shared by many causes gets the right hint.
enum class call_arguments : std::uint8_t {
  plain,           ///< nothing the hints below apply to
  cpu_set,         ///< a CPU set (sched_setaffinity)
  node_mask,       ///< a node mask (migrate_pages, set_mempolicy)
  range_and_nodes,  ///< a memory range and a node mask (mbind)
  page_list         ///< pages of a process, read (move_pages in query mode)
};

/// Whether a call worked, and if not, why. Cheap when it worked (no message is built).
struct [[nodiscard]] os_status {
  int error = 0;        ///< the failed call's errno; 0: it worked
  std::string message;  ///< "call(arguments): errno text (hint)"; empty when it worked

  explicit operator bool() const noexcept { return error == 0; }
  bool ok() const noexcept { return error == 0; }
  std::error_code code() const noexcept { return {error, std::generic_category()}; }
};

/// What `error` usually means for a call taking `args`; empty when there is nothing to add.
/// The causes are those the kernel's man pages list for sched_setaffinity(2), mbind(2),
/// migrate_pages(2) and move_pages(2) (Linux 6.1).
inline std::string errno_hint(int error, call_arguments args) {
  switch (error) {
    case EPERM:
      if (args == call_arguments::page_list) {
        return "reading another user's process needs CAP_SYS_PTRACE, which root has unless a container or a "
               "capability bounding set took it away; Yama's ptrace_scope or a security module may refuse even then";
      }
      return "acting on another user's task, or moving pages that other processes also map, needs CAP_SYS_NICE, which "
             "root has unless a container or a capability bounding set took it away";
    case ESRCH:
      return "the task has exited, or never existed";
    case EINVAL:
      if (args == call_arguments::cpu_set) return "no CPU of the set is online and in the task's cpuset";
      if (args == call_arguments::node_mask || args == call_arguments::range_and_nodes) {
        return "no node of the mask is online with memory and in the task's cpuset (Mems_allowed)";
      }
      return {};
    case EFAULT:
      if (args == call_arguments::range_and_nodes) return "part of the range is not mapped";
      return {};
    default:
      return {};
  }
}

/// The status of `call` (its name and arguments, e.g. "mbind(0x7f00, 8192 bytes, MPOL_BIND,
/// nodes 0-1)") having failed with `error`. Capture errno right after the call: building the
/// text of `call` may change it.
inline os_status failure(const std::string& call, int error, call_arguments args = call_arguments::plain) {
  os_status s;
  s.error = error == 0 ? EINVAL : error;  // a failure is never "success"
  s.message = call + ": " + std::generic_category().message(s.error);
  if (const std::string hint = errno_hint(s.error, args); !hint.empty()) s.message += " (" + hint + ")";
  return s;
}

/// A call refused before reaching the kernel: bad arguments, with `why` in words.
inline os_status invalid_arguments(const std::string& call, const std::string& why) {
  return os_status{EINVAL, call + ": " + why};
}

/// What throw_if_failed throws: the status's message, its errno as code().
class os_error : public std::runtime_error {
 public:
  explicit os_error(os_status status) : std::runtime_error(status.message), status_(std::move(status)) {}

  int error() const noexcept { return status_.error; }
  std::error_code code() const noexcept { return status_.code(); }
  const os_status& status() const noexcept { return status_; }

 private:
  os_status status_;
};

/// For callers who prefer exceptions: throws os_error when `status` is a failure.
inline void throw_if_failed(os_status status) {
  if (!status) throw os_error(std::move(status));
}

}  // namespace numaplace::os
