#pragma once
// The guest kernel's own record of its NUMA balancing decisions: tracefs's text output (the
// `trace` file) of the events examples/programs/oracle/oracle-trace enables, parsed strictly. A line is
//
//   COMM-PID [CPU] FLAGS SECONDS.MICROS: EVENT: [(SYMBOL+0x0/0xN)] KEY=VALUE ...
//
// COMM may hold blanks and dashes, so the line is read from its "[CPU]" on. Values are
// decimal or 0x-hex integers; a word that is not KEY=INTEGER (a tracepoint's comm=NAME, a
// kprobe's "(symbol+off/size)") is skipped. Every error names the file and line.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace numaplace_oracle {

class trace_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One event of the trace.
struct trace_event {
  std::int64_t ns = 0;  ///< trace_clock mono: CLOCK_MONOTONIC nanoseconds
  unsigned cpu = 0;     ///< the CPU whose buffer holds it (where the probe fired)
  std::string name;     ///< "setnuma", "sched_move_numa", ...
  std::vector<std::pair<std::string, std::int64_t>> fields;
  std::size_t line = 0;

  std::optional<std::int64_t> find(std::string_view key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return v;
    return std::nullopt;
  }
};

/// The trace, in the order the file lists it (ftrace merges the CPUs' buffers by time).
struct trace_log {
  std::string file;
  std::vector<trace_event> events;
  std::uint64_t lost = 0;  ///< events the kernel dropped ("CPU:N [LOST M EVENTS]")

  /// event.key, or an error naming the file, the line and what is missing.
  std::int64_t get(const trace_event& e, std::string_view key) const {
    if (const auto v = e.find(key)) return *v;
    throw trace_error(file + ":" + std::to_string(e.line) + ": " + e.name + " has no " + std::string(key));
  }
};

namespace detail {

inline std::optional<std::int64_t> parse_integer(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  // Hex pointers keep their bits; a decimal beyond int64 is refused.
  if (base == 10 && v > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  // Negated as unsigned: -0x8000000000000000 is INT64_MIN, not an overflow.
  return static_cast<std::int64_t>(negative ? 0 - v : v);
}

inline std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// "SECONDS.MICROS:" -> nanoseconds.
inline std::optional<std::int64_t> parse_timestamp(std::string_view w) {
  if (w.empty() || w.back() != ':') return std::nullopt;
  w.remove_suffix(1);
  const auto dot = w.find('.');
  if (dot == std::string_view::npos || dot == 0 || w.size() - dot - 1 != 6) return std::nullopt;
  std::int64_t s = 0, us = 0;
  const auto a = std::from_chars(w.data(), w.data() + dot, s);
  const auto b = std::from_chars(w.data() + dot + 1, w.data() + w.size(), us);
  if (a.ec != std::errc{} || a.ptr != w.data() + dot || b.ec != std::errc{} || b.ptr != w.data() + w.size() || s < 0 ||
      s > 1'000'000'000 || us < 0)
    return std::nullopt;
  return s * 1'000'000'000 + us * 1'000;
}

}  // namespace detail

/// One line of the trace file; nullopt for comments, blank lines and lost-event notes (counted
/// in `lost`). Throws trace_error naming `file:line` for anything else that does not parse.
inline std::optional<trace_event> parse_trace_line(std::string_view l, const std::string& file, std::size_t line,
                                                   std::uint64_t& lost) {
  const auto fail = [&](const std::string& what) -> trace_error {
    return trace_error(file + ":" + std::to_string(line) + ": " + what);
  };
  if (l.empty() || l.front() == '#') return std::nullopt;
  if (l.find_first_not_of(" \t") == std::string_view::npos) return std::nullopt;
  if (const auto at = l.find("[LOST "); at != std::string_view::npos && l.rfind("CPU:", 0) == 0) {
    const auto end = l.find(' ', at + 6);
    const auto n = detail::parse_integer(l.substr(at + 6, end == std::string_view::npos ? 0 : end - at - 6));
    if (!n || *n < 0) throw fail("a lost-events note without a count");
    lost += static_cast<std::uint64_t>(*n);
    return std::nullopt;
  }
  // The task field ends at the last "-PID" before " [CPU]".
  const auto open = l.find(" [");
  if (open == std::string_view::npos) throw fail("no '[CPU]' field");
  const auto close = l.find(']', open);
  if (close == std::string_view::npos) throw fail("no ']' after the CPU");
  const auto cpu = detail::parse_integer(l.substr(open + 2, close - open - 2));
  if (!cpu || *cpu < 0 || *cpu > 65535) throw fail("the CPU field is not a CPU number");
  const auto rest = detail::split_blanks(l.substr(close + 1));
  // FLAGS TIMESTAMP: EVENT: ...
  if (rest.size() < 3) throw fail("expected 'FLAGS SECONDS.MICROS: EVENT:' after the CPU");
  trace_event e;
  e.cpu = static_cast<unsigned>(*cpu);
  e.line = line;
  const auto ns = detail::parse_timestamp(rest[1]);
  if (!ns) throw fail("'" + std::string(rest[1]) + "' is not a timestamp (SECONDS.MICROS:)");
  e.ns = *ns;
  if (rest[2].size() < 2 || rest[2].back() != ':') throw fail("expected 'EVENT:', found '" + std::string(rest[2]) + "'");
  e.name = std::string(rest[2].substr(0, rest[2].size() - 1));
  for (std::size_t i = 3; i < rest.size(); ++i) {
    const auto w = rest[i];
    const auto eq = w.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const auto v = detail::parse_integer(w.substr(eq + 1));
    if (!v) continue;
    for (const auto& [k, old] : e.fields)
      if (k == w.substr(0, eq)) throw fail(e.name + ": '" + k + "' appears twice");
    e.fields.emplace_back(std::string(w.substr(0, eq)), *v);
  }
  return e;
}

/// A whole trace file's text.
inline trace_log parse_trace(std::string_view text, std::string file) {
  trace_log log;
  log.file = std::move(file);
  std::size_t line = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const auto l = text.substr(0, nl);
    ++line;
    if (auto e = parse_trace_line(l, log.file, line, log.lost)) log.events.push_back(std::move(*e));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return log;
}

}  // namespace numaplace_oracle
