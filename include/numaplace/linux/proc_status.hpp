#pragma once
// /proc/PID/status: "Key:\tvalue" lines, one per key (fs/proc/array.c, proc_pid_status).
// Of its keys we read five:
//   Name                the command, as the kernel escapes it
//   Pid                 the process id in the reader's pid namespace
//   Threads             how many threads the process has
//   Cpus_allowed_list   the CPUs the task may run on: its affinity, already within its cpuset
//   Mems_allowed_list   the nodes it may allocate on (the task's mems_allowed, from its cpuset)
// Strict: a line without a colon, a key given twice, a bad number or list, or a missing key is
// a topology_error at the file and line. Other keys are skipped unread, so new kernels parse.

#include <charconv>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../topology/cpulist.hpp"
#include "../topology/error.hpp"
#include "../topology/text_input.hpp"

namespace numaplace::os {

/// What a status file says about one process.
struct process_status {
  std::string name;
  int pid = 0;
  unsigned threads = 0;
  std::vector<unsigned> cpus_allowed;  ///< CPU numbers, ascending
  std::vector<unsigned> mems_allowed;  ///< node ids, ascending
};

namespace detail {

inline int parse_pid(std::string_view value, const std::string& source, std::size_t line) {
  int pid = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), pid);
  if (!load::detail::all_digits(value) || ec != std::errc{} || end != value.data() + value.size() || pid <= 0) {
    load::detail::fail(source, line, "Pid '" + numaplace::detail::excerpt(value) + "' is not a process id");
  }
  return pid;
}

}  // namespace detail

/// Parses a status file's text; `source` names it in errors.
inline process_status parse_status(std::string_view text, const std::string& source) {
  using load::detail::fail;
  process_status out;
  // The line each key was found on (0: not yet), to refuse a second one.
  std::size_t name_line = 0, pid_line = 0, threads_line = 0, cpus_line = 0, mems_line = 0;
  const auto first_time = [&](std::size_t& seen, std::string_view key, std::size_t line) {
    if (seen != 0) {
      fail(source, line, std::string(key) + " appears twice (first on line " + std::to_string(seen) + ")");
    }
    seen = line;
  };
  for (const auto& [line, number] : load::detail::split_lines(text)) {
    if (line.empty()) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) fail(source, number, "expected 'Key:\tvalue'");
    const std::string_view key = line.substr(0, colon);
    // The kernel separates with a tab; the value itself may hold blanks (a Name can).
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    if (key == "Name") {
      first_time(name_line, key, number);
      out.name = std::string(value);
    } else if (key == "Pid") {
      first_time(pid_line, key, number);
      out.pid = detail::parse_pid(value, source, number);
    } else if (key == "Threads") {
      first_time(threads_line, key, number);
      out.threads = static_cast<unsigned>(load::detail::parse_unsigned(value, "Threads", 0xffffffffu, source, number));
    } else if (key == "Cpus_allowed_list") {
      first_time(cpus_line, key, number);
      out.cpus_allowed = parse_cpulist(value, source, number);
    } else if (key == "Mems_allowed_list") {
      first_time(mems_line, key, number);
      out.mems_allowed = load::detail::parse_node_list(value, source, number);
    }
  }
  const auto need = [&](std::size_t seen, const char* key) {
    if (seen == 0) fail(source, 0, std::string("no ") + key + " line");
  };
  need(name_line, "Name");
  need(pid_line, "Pid");
  need(threads_line, "Threads");
  need(cpus_line, "Cpus_allowed_list");
  need(mems_line, "Mems_allowed_list");
  return out;
}

/// Reads and parses `process`/status, where `process` is a /proc/PID folder (/proc/self by
/// default). A folder that is gone says so: the process has exited (or never existed).
inline process_status read_status(const std::filesystem::path& process = "/proc/self") {
  std::error_code ec;
  if (!std::filesystem::is_directory(process, ec)) {
    load::detail::fail(process.string(), 0, "no such process (it has exited, or never existed)");
  }
  const auto file = process / "status";
  return parse_status(load::detail::read_text(file), file.string());
}

}  // namespace numaplace::os
