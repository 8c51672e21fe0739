// load::detail::parse_memory_tier on any bytes, split at the first newline into a folder name
// and its nodelist: nullopt for a name that is not memory_tierN, else a tier whose nodes are
// in order and that a clean "memory_tierN" / "a,b,c" pair reads back unchanged; or a
// topology_error.
#include <numaplace/topology/memory_tiers.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  const auto cut = text.find('\n');
  const std::string_view name = text.substr(0, cut);
  const std::string_view nodelist = cut == std::string_view::npos ? std::string_view{} : text.substr(cut + 1);
  try {
    const auto tier = numaplace::load::detail::parse_memory_tier(name, nodelist, "fuzz");
    if (!tier) return 0;
    NUMAPLACE_FUZZ_CHECK(std::is_sorted(tier->nodes.begin(), tier->nodes.end()));
    std::string clean;
    for (const unsigned n : tier->nodes) clean += (clean.empty() ? "" : ",") + std::to_string(n);
    const auto again = numaplace::load::detail::parse_memory_tier("memory_tier" + std::to_string(tier->id), clean, "again");
    NUMAPLACE_FUZZ_CHECK(again && again->id == tier->id && again->nodes == tier->nodes);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
