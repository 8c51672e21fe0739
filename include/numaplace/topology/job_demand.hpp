#pragma once
// A new job's demand as numad's -w takes it, "NCPUS[:MB]": a CPU count and, optionally, MiB of
// memory (numad 0.5, numad.c: parse_two_arg_values). numad also takes fractions of a CPU such
// as "1.5": parse_job_demand refuses them (numaplace's nodes offer whole CPUs), and
// parse_numad_demand, for numad's own rule (numad_nodes.hpp), takes them as numad does.

#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace numaplace {

/// CPUs and memory a job asks for (job_nodes.hpp meets it).
struct job_demand {
  unsigned cpus = 1;
  std::optional<std::uint64_t> mib;  ///< none: memory does not decide
};

namespace detail {

// A whole decimal number, nothing else; `what` names it in the error.
template <class Number>
Number job_demand_number(std::string_view text, std::string_view whole, const char* what) {
  if (text.empty()) {
    throw std::invalid_argument(std::string(whole) + ": the " + what +
                                " is missing (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  }
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits_only = text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits_only || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    throw std::invalid_argument(std::string(whole) + ": " + what + " '" + std::string(text) +
                                "' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  }
  if (ec == std::errc::result_out_of_range) {
    throw std::invalid_argument(std::string(whole) + ": " + what + " " + std::string(text) + " is too large");
  }
  return value;
}

}  // namespace detail

/// "4" or "4:2048". Throws std::invalid_argument that starts with `text` and says what is wrong
/// with it.
inline job_demand parse_job_demand(std::string_view text) {
  job_demand d;
  const auto colon = text.find(':');
  d.cpus = detail::job_demand_number<unsigned>(text.substr(0, colon), text, "CPU count");
  if (d.cpus == 0) throw std::invalid_argument(std::string(text) + ": asks for 0 CPUs; a job needs at least one");
  if (colon != std::string_view::npos) {
    d.mib = detail::job_demand_number<std::uint64_t>(text.substr(colon + 1), text, "memory (MB)");
  }
  return d;
}

/// numad's -w as numad 0.5 reads it: CPUs with an optional fraction, counted in hundredths
/// ("1.5" is 150; a third decimal and beyond are dropped, as numad drops them), and optional
/// MiB.
struct numad_demand {
  std::uint64_t cpu_hundredths = 100;
  std::optional<std::uint64_t> mib;  ///< none: memory does not decide
};

/// "1.5", "4" or "0.25:2048". Throws std::invalid_argument that starts with `text`; numad
/// takes "0" (no CPU at all) too, numaplace refuses it as parse_job_demand does.
inline numad_demand parse_numad_demand(std::string_view text) {
  numad_demand d;
  const auto colon = text.find(':');
  const std::string_view cpus = text.substr(0, colon);
  const auto dot = cpus.find('.');
  d.cpu_hundredths = std::uint64_t{detail::job_demand_number<unsigned>(cpus.substr(0, dot), text, "CPU count")} * 100;
  if (dot != std::string_view::npos) {
    const std::string_view decimals = cpus.substr(dot + 1);
    if (decimals.empty() || decimals.find_first_not_of("0123456789") != std::string_view::npos) {
      throw std::invalid_argument(std::string(text) + ": the CPU fraction '" + std::string(decimals) +
                                  "' is not decimal digits (expected e.g. 1.5 or 0.25)");
    }
    d.cpu_hundredths += static_cast<std::uint64_t>(decimals[0] - '0') * 10;
    if (decimals.size() > 1) d.cpu_hundredths += static_cast<std::uint64_t>(decimals[1] - '0');
  }
  if (d.cpu_hundredths == 0) throw std::invalid_argument(std::string(text) + ": asks for 0 CPUs; a job needs some");
  if (colon != std::string_view::npos) {
    d.mib = detail::job_demand_number<std::uint64_t>(text.substr(colon + 1), text, "memory (MB)");
  }
  return d;
}

}  // namespace numaplace
