#pragma once
// Each CPU's idle time from /proc/stat, as numad 0.5 samples it (numad.c, update_cpu_data):
// the fourth field of every "cpuN user nice system idle ..." line, in USER_HZ ticks (the
// kernel's show_stat, fs/proc/stat.c). numad reads it twice, 2 s apart, and counts a node's
// free CPU as the idle ticks of its CPUs over the time between, in hundredths of a CPU.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>

#include "cpulist.hpp"
#include "text_input.hpp"

namespace numaplace::load {

/// Idle ticks by CPU number from /proc/stat's text. Lines other than "cpuN ..." (the "cpu"
/// total, intr, ctxt, ...) are skipped. Throws topology_error naming `source` and the line for
/// a cpuN line with fewer than four numbers, a non-number, a CPU beyond max_cpu_number or a
/// CPU listed twice.
inline std::map<unsigned, std::uint64_t> proc_stat_idle_ticks(std::string_view text, const std::string& source) {
  using detail::fail;
  std::map<unsigned, std::uint64_t> idle;
  for (const auto& [line, number] : detail::split_lines(text)) {
    const auto words = detail::split_words(line);
    if (words.empty() || !words[0].starts_with("cpu") || words[0].size() == 3) continue;
    const auto cpu = static_cast<unsigned>(
        detail::parse_unsigned(words[0].substr(3), "CPU number", max_cpu_number, source, number));
    if (words.size() < 5) {
      fail(source, number, "expected 'cpu" + std::to_string(cpu) + " user nice system idle ...'");
    }
    for (std::size_t i = 1; i < 4; ++i) {
      detail::parse_unsigned(words[i], "tick count", std::numeric_limits<std::uint64_t>::max(), source, number);
    }
    const std::uint64_t ticks =
        detail::parse_unsigned(words[4], "idle ticks", std::numeric_limits<std::uint64_t>::max(), source, number);
    if (!idle.emplace(cpu, ticks).second) fail(source, number, "CPU " + std::to_string(cpu) + " is listed twice");
  }
  return idle;
}

/// A node's free CPU as numad counts it before its SMT discount: the idle ticks its `cpus`
/// gained between two samples over `elapsed_hundredths` (hundredths of a second), times 100.
/// A CPU missing from either sample, or going backwards (a CPU brought online anew), adds
/// nothing.
template <class Cpus>
std::uint64_t idle_hundredths(const Cpus& cpus, const std::map<unsigned, std::uint64_t>& before,
                              const std::map<unsigned, std::uint64_t>& after, std::uint64_t elapsed_hundredths) {
  if (elapsed_hundredths == 0) return 0;
  std::uint64_t ticks = 0;
  for (const unsigned cpu : cpus) {
    const auto b = before.find(cpu);
    const auto a = after.find(cpu);
    if (b == before.end() || a == after.end() || a->second < b->second) continue;
    const std::uint64_t gained = a->second - b->second;
    ticks = gained > std::numeric_limits<std::uint64_t>::max() / 100 - ticks ? std::numeric_limits<std::uint64_t>::max() / 100
                                                                               : ticks + gained;
  }
  return ticks * 100 / elapsed_hundredths;
}

}  // namespace numaplace::load
