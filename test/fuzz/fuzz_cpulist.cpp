// parse_cpulist on any bytes: CPU numbers ascending without repeats and within
// max_cpu_number, or a topology_error. The result, written back as ranges, parses the same.
#include <numaplace/topology/cpulist.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

std::string ranges_of(const std::vector<unsigned>& cpus) {
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) s += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  try {
    const std::vector<unsigned> cpus = numaplace::parse_cpulist(text, "fuzz", 1);
    NUMAPLACE_FUZZ_CHECK(cpus.size() <= std::size_t{numaplace::max_cpu_number} + 1);
    NUMAPLACE_FUZZ_CHECK(cpus.empty() == numaplace::detail::trim_blank(text).empty());
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      NUMAPLACE_FUZZ_CHECK(cpus[i] <= numaplace::max_cpu_number);
      if (i > 0) NUMAPLACE_FUZZ_CHECK(cpus[i - 1] < cpus[i]);
    }
    NUMAPLACE_FUZZ_CHECK(numaplace::parse_cpulist(ranges_of(cpus), "again", 1) == cpus);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
