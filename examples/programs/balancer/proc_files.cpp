#include "proc_files.hpp"

#include <numaplace/linux/status.hpp>
#include <numaplace/topology/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>
#include <utility>

namespace balancer {

namespace {

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

template <class F>
void for_each_line(std::string_view text, F f) {
  std::size_t number = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line, ++number);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

template <class T>
std::optional<T> number_of(std::string_view s, int base = 10) {
  T v{};
  if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::uint64_t checked_bytes(std::uint64_t pages, std::uint64_t page_kib, const std::string& source, std::size_t line) {
  if (page_kib != 0 && pages > std::numeric_limits<std::uint64_t>::max() / 1024 / page_kib) {
    throw proc_error(source, line, "page count " + std::to_string(pages) + " overflows");
  }
  return pages * page_kib * 1024;
}

// Whole-file reads with errno: what tells a vanished process from a refused one. At most
// `limit` bytes, and only from a regular file: a recorded tree may hold a FIFO or a link to
// /dev/zero where the kernel has a file (O_NONBLOCK keeps the open of a FIFO from waiting).
enum class read_status { ok, gone, refused };

read_status read_all(const std::filesystem::path& path, std::string& out, int& error, std::size_t limit) {
  out.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = errno;
    if (error == ENOENT || error == ESRCH || error == ENOTDIR) return read_status::gone;
    if (error == EACCES || error == EPERM) return read_status::refused;
    throw proc_error(path.string(), 0, std::string("cannot open: ") + std::strerror(error));
  }
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_at_end{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw proc_error(path.string(), 0, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device" : S_ISDIR(st.st_mode) ? "a folder" : "not a regular file";
    throw proc_error(path.string(), 0, std::string("is ") + kind + ", not a file as the kernel's are");
  }
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<std::size_t>(n));
      if (out.size() > limit) {
        throw proc_error(path.string(), 0, "is larger than " + std::to_string(limit >> 20) + " MiB, more than the kernel writes");
      }
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    error = errno;
    if (error == ESRCH || error == ENOENT) return read_status::gone;
    if (error == EACCES || error == EPERM) return read_status::refused;
    throw proc_error(path.string(), 0, std::string("cannot read: ") + std::strerror(error));
  }
  return read_status::ok;
}

}  // namespace

std::uint64_t numa_maps_summary::total_bytes() const noexcept {
  std::uint64_t sum = 0;
  for (const auto& [node, b] : bytes) sum += b;  // bounded by parse_numa_maps
  return sum;
}

numa_maps_summary parse_numa_maps(std::string_view text, const std::string& source) {
  numa_maps_summary out;
  std::uint64_t total = 0;
  for_each_line(text, [&](std::string_view line, std::size_t number) {
    const auto w = words(line);
    if (w.empty()) return;
    if (w.size() < 2) throw proc_error(source, number, "expected 'ADDRESS POLICY ...', got '" + std::string(line) + "'");
    if (!number_of<std::uint64_t>(w[0], 16)) {
      throw proc_error(source, number, "'" + std::string(w[0]) + "' is not a hexadecimal address");
    }
    bool anonymous = true;
    std::uint64_t page_kib = 4;
    std::vector<std::pair<unsigned, std::uint64_t>> per_node;
    for (std::size_t i = 2; i < w.size(); ++i) {
      const auto eq = w[i].find('=');
      if (eq == std::string_view::npos) {
        if (w[i] != "heap" && w[i] != "stack" && w[i] != "huge") {
          throw proc_error(source, number, "unexpected word '" + std::string(w[i]) + "'");
        }
        continue;
      }
      const std::string_view key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
      if (key == "file") {
        anonymous = false;
        continue;
      }
      if (key.size() > 1 && key[0] == 'N' && number_of<unsigned>(key.substr(1))) {
        const auto pages = number_of<std::uint64_t>(value);
        if (!pages) throw proc_error(source, number, "'" + std::string(w[i]) + "': the page count is not a number");
        per_node.emplace_back(*number_of<unsigned>(key.substr(1)), *pages);
        continue;
      }
      if (key == "kernelpagesize_kB") {
        const auto kib = number_of<std::uint64_t>(value);
        if (!kib || *kib == 0) throw proc_error(source, number, "'" + std::string(w[i]) + "' is not a page size");
        page_kib = *kib;
        continue;
      }
      // anon=, dirty=, mapped=, mapmax=, active=, swapcache=, writeback=: counts we do not use,
      // but they must still be counts.
      if (!number_of<std::uint64_t>(value)) {
        throw proc_error(source, number, "'" + std::string(w[i]) + "': expected KEY=NUMBER");
      }
    }
    for (const auto& [node, pages] : per_node) {
      const std::uint64_t b = checked_bytes(pages, page_kib, source, number);
      // Each node's sum, and so every sum of them, stays below 2^64: a wrapped total would
      // put the memory on another node.
      if (b > std::numeric_limits<std::uint64_t>::max() - total) {
        throw proc_error(source, number, "the pages up to here add up to more than 2^64 bytes, more than a machine has");
      }
      total += b;
      out.bytes[node] += b;
      if (anonymous) out.anon_bytes[node] += b;
    }
  });
  return out;
}

task_stat parse_task_stat(std::string_view text, const std::string& source) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.find('\n') != std::string_view::npos) throw proc_error(source, 2, "expected one line");
  const auto open = text.find(" (");
  const auto close = text.rfind(") ");  // the command may itself contain ") "; the last one ends it
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    throw proc_error(source, 1, "expected 'TID (COMM) STATE ...'");
  }
  task_stat out;
  const auto tid = number_of<int>(text.substr(0, open));
  if (!tid || *tid <= 0) throw proc_error(source, 1, "'" + std::string(text.substr(0, open)) + "' is not a thread id");
  out.tid = *tid;
  out.comm = std::string(text.substr(open + 2, close - open - 2));
  const auto rest = words(text.substr(close + 2));
  // rest[0] is field 3 (state); field 39 (processor) is rest[36].
  if (rest.size() < 37) {
    throw proc_error(source, 1, "has " + std::to_string(rest.size() + 2) + " fields; the CPU is field 39");
  }
  if (rest[0].size() != 1) throw proc_error(source, 1, "state '" + std::string(rest[0]) + "' is not one letter");
  out.state = rest[0][0];
  const auto flags = number_of<std::uint64_t>(rest[6]);
  if (!flags) throw proc_error(source, 1, "field 9 (flags) '" + std::string(rest[6]) + "' is not a number");
  out.flags = *flags;
  const auto cpu = number_of<int>(rest[36]);
  if (!cpu) throw proc_error(source, 1, "field 39 (processor) '" + std::string(rest[36]) + "' is not a CPU number");
  out.processor = *cpu;
  return out;
}

std::vector<int> list_threads(const std::filesystem::path& proc_root, int pid) {
  std::vector<int> tids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc_root / std::to_string(pid) / "task", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (const auto tid = number_of<int>(it->path().filename().string())) tids.push_back(*tid);
  }
  std::sort(tids.begin(), tids.end());
  return tids;
}

std::optional<process_snapshot> read_process(const std::filesystem::path& proc_root, int pid, std::string* why_gone) {
  const auto dir = proc_root / std::to_string(pid);
  const auto gone = [&](const std::string& why) -> std::optional<process_snapshot> {
    if (why_gone != nullptr) *why_gone = why;
    return std::nullopt;
  };
  process_snapshot p;
  p.pid = pid;
  std::string text;
  int error = 0;
  const auto read_or = [&](const std::filesystem::path& file, std::size_t limit = max_small_proc_file_bytes) {
    const read_status s = read_all(file, text, error, limit);
    if (s == read_status::refused) {
      throw proc_permission_error(file.string() + ": " + std::strerror(error) + " (" + numaplace::os::errno_hint(EPERM, numaplace::os::call_arguments::page_list) + ")");
    }
    return s == read_status::ok;
  };

  if (!read_or(dir / "status")) return gone("no such process");
  try {
    p.status = numaplace::os::parse_status(text, (dir / "status").string());
  } catch (const numaplace::topology_error& e) {
    throw proc_error(e.where().source, e.where().line, e.reason());
  }
  if (!read_or(dir / "numa_maps", max_numa_maps_bytes)) return gone(std::string("exited while being read (") + std::strerror(error) + ")");
  p.memory = parse_numa_maps(text, (dir / "numa_maps").string());
  for (const int tid : list_threads(proc_root, pid)) {
    const auto stat = dir / "task" / std::to_string(tid) / "stat";
    if (!read_or(stat)) {
      ++p.threads_gone;
      continue;
    }
    p.threads.push_back(parse_task_stat(text, stat.string()));
  }
  if (p.threads.empty()) return gone("exited while being read (no threads left)");
  return p;
}

}  // namespace balancer
