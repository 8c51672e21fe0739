// load::proc_stat_idle_ticks on any bytes (advise --numad's idle sample): CPU numbers within
// bounds, each idle count read back from a clean line, or a topology_error.
#include <numaplace/topology/proc_stat_idle.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const auto idle = numaplace::load::proc_stat_idle_ticks(as_text(data, size), "fuzz");
    std::string clean;
    for (const auto& [cpu, ticks] : idle) {
      NUMAPLACE_FUZZ_CHECK(cpu <= numaplace::max_cpu_number);
      clean += "cpu" + std::to_string(cpu) + " 0 0 0 " + std::to_string(ticks) + "\n";
    }
    NUMAPLACE_FUZZ_CHECK(numaplace::load::proc_stat_idle_ticks(clean, "again") == idle);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
