// parse_cpulist on any bytes: CPU numbers ascending without repeats and within
// max_cpu_number, or a topology_error. The result, written back by format_cpulist, parses the same.
#include <numaplace/topology/cpulist.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"

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
    NUMAPLACE_FUZZ_CHECK(numaplace::parse_cpulist(numaplace::format_cpulist(cpus), "again", 1) == cpus);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
