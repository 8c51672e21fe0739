#pragma once
// The kernel's "cpulist" text ("0-3,8-11"), used by sysfs for CPUs and for node sets alike.
// Parsing is strict: a corrupt list must be an error, never a silently different machine.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "error.hpp"

namespace numaplace {

/// The largest CPU number a list may name. Linux's NR_CPUS tops out at 8192 (CONFIG_MAXSMP);
/// the bound leaves headroom and stops a corrupt "0-4294967295" from allocating gigabytes.
inline constexpr unsigned max_cpu_number = 65535;

namespace detail {

inline std::string_view trim_blank(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

/// Input text as an error message quotes it: whole when short, else its start and its length,
/// so that a 2 MB word in a corrupt file does not become a 2 MB message.
inline std::string excerpt(std::string_view s) {
  constexpr std::size_t most = 40;
  if (s.size() <= most) return std::string(s);
  return std::string(s.substr(0, most - 3)) + "... (" + std::to_string(s.size()) + " characters)";
}

// Digits only: from_chars alone would accept nothing else, but we also refuse signs and
// report overflow as overflow rather than as "not a number".
inline unsigned parse_list_number(std::string_view text, std::string_view entry, const std::string& source,
                                  std::size_t line) {
  const auto fail = [&](const std::string& why) -> topology_error {
    return topology_error({source, line, std::nullopt, std::nullopt}, why);
  };
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
    throw fail("'" + excerpt(entry) + "' is not a number or a range such as 0-3");
  }
  unsigned long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range || value > max_cpu_number) {
    throw fail("number " + excerpt(text) + " in '" + excerpt(entry) + "' is larger than " +
               std::to_string(max_cpu_number));
  }
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw fail("'" + excerpt(entry) + "' is not a number or a range such as 0-3");
  }
  return static_cast<unsigned>(value);
}

}  // namespace detail

/// Parses a cpulist ("0-3,8-11", surrounding blanks and a final newline allowed; empty text is
/// an empty list). Returns the numbers ascending without repeats (overlaps are legal, as in the
/// kernel's bitmap_parselist). Throws topology_error at `source`:`line` for an empty entry,
/// a non-number, a reversed range ("5-3") or a number beyond max_cpu_number.
inline std::vector<unsigned> parse_cpulist(std::string_view text, const std::string& source, std::size_t line) {
  std::vector<unsigned> out;
  text = detail::trim_blank(text);
  if (text.empty()) return out;
  // Ranges are merged before expansion, so a list repeating "0-65535" many times costs its
  // length, not its length times 65536.
  std::vector<std::pair<unsigned, unsigned>> ranges;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const auto raw = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const auto entry = detail::trim_blank(raw);
    if (entry.empty()) {
      throw topology_error({source, line, std::nullopt, std::nullopt},
                           "empty entry in list '" + detail::excerpt(text) + "'");
    }
    const auto dash = entry.find('-');
    const unsigned first = detail::parse_list_number(entry.substr(0, dash), entry, source, line);
    unsigned last = first;
    if (dash != std::string_view::npos) {
      last = detail::parse_list_number(entry.substr(dash + 1), entry, source, line);
      if (last < first) {
        throw topology_error(
            {source, line, std::nullopt, std::nullopt},
            "reversed range '" + detail::excerpt(entry) + "': the first number must not exceed the second");
      }
    }
    ranges.emplace_back(first, last);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(ranges.begin(), ranges.end());
  for (const auto& [first, last] : ranges) {
    unsigned v = out.empty() ? first : std::max(first, out.back() + 1);
    for (; v <= last; ++v) out.push_back(v);
  }
  return out;
}

/// The cpulist text of `numbers` ("0-3,8"): the inverse of parse_cpulist, for messages. Any
/// order and repeats are fine; an empty list is "".
inline std::string format_cpulist(std::vector<unsigned> numbers) {
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::string out;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(numbers[i]);
    if (j > i) out += '-' + std::to_string(numbers[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace numaplace
