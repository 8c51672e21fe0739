#pragma once
// The demand of `numaplace advise -w NCPUS[:MB]`, written as numad's -w takes it: a CPU count
// and, optionally, MiB of memory (numad.c, parse_two_arg_values; numad also takes fractions of
// a CPU such as "1.5", which numaplace refuses: its nodes offer whole CPUs).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "exit_codes.hpp"

namespace numaplace_cli {

struct demand {
  unsigned cpus = 1;
  std::optional<std::uint64_t> mib;  ///< none: memory does not decide
};

namespace detail {

// A whole decimal number, nothing else; `what` names it in the error.
template <class Number>
Number demand_number(std::string_view text, std::string_view whole, const char* what) {
  if (text.empty()) {
    throw usage_error("-w " + std::string(whole) + ": the " + what + " is missing (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  }
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits_only || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    throw usage_error("-w " + std::string(whole) + ": " + what + " '" + std::string(text) +
                      "' is not a whole number (expected NCPUS[:MB], e.g. 4 or 4:2048)");
  }
  if (ec == std::errc::result_out_of_range) {
    throw usage_error("-w " + std::string(whole) + ": " + what + " " + std::string(text) + " is too large");
  }
  return value;
}

}  // namespace detail

/// "4" or "4:2048". Throws usage_error naming the text and what is wrong with it.
inline demand parse_demand(std::string_view text) {
  demand d;
  const auto colon = text.find(':');
  d.cpus = detail::demand_number<unsigned>(text.substr(0, colon), text, "CPU count");
  if (d.cpus == 0) throw usage_error("-w " + std::string(text) + ": asks for 0 CPUs; a job needs at least one");
  if (colon != std::string_view::npos) {
    d.mib = detail::demand_number<std::uint64_t>(text.substr(colon + 1), text, "memory (MB)");
  }
  return d;
}

}  // namespace numaplace_cli
