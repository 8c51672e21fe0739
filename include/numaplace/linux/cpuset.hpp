#pragma once
// The cpuset a process is in, and the CPUs and memory nodes it grants.
//
//   /proc/PID/cgroup   one line per hierarchy, "ID:CONTROLLERS:PATH" (kernel/cgroup/cgroup.c,
//                      proc_cgroup_show): "0::/path" for cgroup v2, "N:cpuset,...:/path" for
//                      a v1 hierarchy that has the cpuset controller
//   cgroup v2          <mount>/<path>/cpuset.cpus.effective and cpuset.mems.effective (the
//                      v2 cpuset controller exists since Linux 4.17); a cgroup without the
//                      controller enabled has no such files and is bound by its nearest
//                      ancestor that has them (kernel/cgroup/cpuset.c)
//   cgroup v1          <cpuset mount>/<path>/cpuset.effective_cpus and .effective_mems, or on
//                      kernels before 3.16 only cpuset.cpus and cpuset.mems
//
// When the cpuset controller is bound to a v1 hierarchy it cannot also be on v2, so a v1
// cpuset line wins. No cpuset controller anywhere (or no files to read) means no restriction,
// not an error; a malformed file is a topology_error at the file and line.

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../topology/cpulist.hpp"
#include "../topology/error.hpp"
#include "../topology/text_input.hpp"

namespace numaplace::os {

/// Where a process sits in the cgroup hierarchies that matter for cpusets.
struct cgroup_membership {
  std::optional<std::string> unified;  ///< the v2 path ("0::PATH"), when listed
  std::optional<std::string> cpuset;   ///< the path in the v1 hierarchy holding cpuset, when there is one
};

/// Where the hierarchies are mounted (the usual places by default).
struct cgroup_mounts {
  std::filesystem::path unified = "/sys/fs/cgroup";        ///< cgroup2
  std::filesystem::path cpuset = "/sys/fs/cgroup/cpuset";  ///< v1 cpuset
};

/// What a cpuset grants; nullopt where it does not restrict. `*_source` names the file read.
struct cpuset_limits {
  std::optional<std::vector<unsigned>> cpus;  ///< CPU numbers, ascending
  std::optional<std::vector<unsigned>> mems;  ///< node ids, ascending
  std::string cpus_source;
  std::string mems_source;
};

namespace detail {

// A cgroup path as the kernel writes it: absolute, and (since we append it to a mount point)
// without "." or ".." steps that could leave the mount.
inline void check_cgroup_path(std::string_view path, const std::string& source, std::size_t line) {
  if (path.empty() || path.front() != '/') {
    load::detail::fail(source, line, "cgroup path '" + numaplace::detail::excerpt(path) + "' does not start with '/'");
  }
  std::size_t start = 1;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    const auto step = path.substr(start, slash - start);
    if (step == "." || step == "..") {
      load::detail::fail(source, line, "cgroup path '" + numaplace::detail::excerpt(path) + "' has a '" + numaplace::detail::excerpt(step) + "' step");
    }
    start = slash + 1;
  }
}

inline bool lists_cpuset(std::string_view controllers) {
  std::size_t start = 0;
  while (true) {
    const auto comma = controllers.find(',', start);
    if (controllers.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start) ==
        "cpuset")
      return true;
    if (comma == std::string_view::npos) return false;
    start = comma + 1;
  }
}

}  // namespace detail

/// Parses /proc/PID/cgroup text; `source` names it in errors. Refuses a line that is not
/// "ID:CONTROLLERS:/PATH", a v2 line ("0::") given twice or with controllers, and a second
/// hierarchy claiming the cpuset controller.
inline cgroup_membership parse_proc_cgroup(std::string_view text, const std::string& source) {
  using load::detail::fail;
  cgroup_membership out;
  std::size_t unified_line = 0, cpuset_line = 0;
  for (const auto& [line, number] : load::detail::split_lines(text)) {
    if (line.empty()) continue;
    // The path is last and may itself hold colons: split at the first two only.
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) fail(source, number, "expected 'ID:CONTROLLERS:PATH'");
    const auto id = line.substr(0, first);
    const auto controllers = line.substr(first + 1, second - first - 1);
    const auto path = line.substr(second + 1);
    if (!load::detail::all_digits(id)) fail(source, number, "hierarchy id '" + numaplace::detail::excerpt(id) + "' is not a number");
    detail::check_cgroup_path(path, source, number);
    if (id == "0") {
      if (!controllers.empty()) {
        fail(source, number, "hierarchy 0 is cgroup v2, which lists no controllers, not '" +
                                 numaplace::detail::excerpt(controllers) + "'");
      }
      if (unified_line != 0) {
        fail(source, number, "a second cgroup v2 line (the first is line " + std::to_string(unified_line) + ")");
      }
      unified_line = number;
      out.unified = std::string(path);
    } else if (detail::lists_cpuset(controllers)) {
      if (cpuset_line != 0) {
        fail(source, number,
             "a second hierarchy with the cpuset controller (the first is line " + std::to_string(cpuset_line) + ")");
      }
      cpuset_line = number;
      out.cpuset = std::string(path);
    }
  }
  return out;
}

namespace detail {

// A cpuset file holds one list; text on a later line is not part of it.
inline std::string_view only_line(std::string_view text, const std::string& source) {
  const auto lines = load::detail::split_lines(text);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (!load::detail::trim_blank(lines[i].text).empty()) {
      load::detail::fail(source, lines[i].number, "a second line (a cpuset file holds one list)");
    }
  }
  return lines.empty() ? std::string_view() : lines[0].text;
}

}  // namespace detail

/// A cpuset file's CPU list ("0-3,8", one line); `source` names it in errors.
inline std::vector<unsigned> parse_cpuset_cpus(std::string_view text, const std::string& source) {
  return parse_cpulist(detail::only_line(text, source), source, 1);
}

/// A cpuset file's memory node list ("0-1", one line); ids must be below max_nodes.
inline std::vector<unsigned> parse_cpuset_mems(std::string_view text, const std::string& source) {
  return load::detail::parse_node_list(detail::only_line(text, source), source, 1);
}

namespace detail {

// The first of `names` present in `folder` or, walking up to `top`, in its nearest ancestor.
inline std::optional<std::filesystem::path> nearest_file(const std::filesystem::path& top, std::string_view path,
                                                         std::initializer_list<const char*> names,
                                                         bool walk_up) {
  std::error_code ec;
  std::string relative(path.substr(1));
  while (true) {
    const auto folder = relative.empty() ? top : top / relative;
    for (const char* name : names) {
      if (std::filesystem::exists(folder / name, ec)) return folder / name;
    }
    if (!walk_up || relative.empty()) return std::nullopt;
    const auto slash = relative.rfind('/');
    relative.resize(slash == std::string::npos ? 0 : slash);
  }
}

}  // namespace detail

/// The limits of the cpuset `membership` names, read under `mounts`.
inline cpuset_limits read_cpuset(const cgroup_membership& membership, const cgroup_mounts& mounts = {}) {
  cpuset_limits out;
  std::optional<std::filesystem::path> cpus_file, mems_file;
  if (membership.cpuset) {
    cpus_file = detail::nearest_file(mounts.cpuset, *membership.cpuset, {"cpuset.effective_cpus", "cpuset.cpus"}, false);
    mems_file = detail::nearest_file(mounts.cpuset, *membership.cpuset, {"cpuset.effective_mems", "cpuset.mems"}, false);
  } else if (membership.unified) {
    cpus_file = detail::nearest_file(mounts.unified, *membership.unified, {"cpuset.cpus.effective"}, true);
    mems_file = detail::nearest_file(mounts.unified, *membership.unified, {"cpuset.mems.effective"}, true);
  }
  if (cpus_file) {
    out.cpus_source = cpus_file->string();
    out.cpus = parse_cpuset_cpus(load::detail::read_text(*cpus_file), out.cpus_source);
  }
  if (mems_file) {
    out.mems_source = mems_file->string();
    out.mems = parse_cpuset_mems(load::detail::read_text(*mems_file), out.mems_source);
  }
  return out;
}

/// Reads `process`/cgroup (a /proc/PID folder), then that cpuset's limits. A process without
/// a cgroup file (a kernel without cgroups) is unrestricted.
inline cpuset_limits read_cpuset_of(const std::filesystem::path& process = "/proc/self",
                                    const cgroup_mounts& mounts = {}) {
  const auto file = process / "cgroup";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return {};
  return read_cpuset(parse_proc_cgroup(load::detail::read_text(file), file.string()), mounts);
}

}  // namespace numaplace::os
