// `numaplace sim --workload`'s spec parser on any bytes: parse_workload_spec either returns a
// workload within the CLI's task limit whose threads access only regions they have, or throws
// usage_error naming the spec.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check.hpp"
#include "exit_codes.hpp"
#include "sim_workload_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  if (size > 128) return 0;  // a spec is one short word
  const std::string spec(as_text(data, size));
  try {
    const numaplace::sim::workload w = numaplace_cli::parse_workload_spec(spec);
    std::size_t tasks = 0;
    for (const auto& p : w.processes) {
      tasks += p.threads.size();
      for (const auto& t : p.threads) {
        for (const auto& a : t.accesses) NUMAPLACE_FUZZ_CHECK(a.region < p.regions.size());
      }
      for (const auto& r : p.regions) NUMAPLACE_FUZZ_CHECK(r.chunks >= 1);
    }
    NUMAPLACE_FUZZ_CHECK(tasks >= 1 && tasks <= numaplace_cli::max_sim_tasks);
  } catch (const numaplace_cli::usage_error& e) {
    const std::string what = e.what();
    NUMAPLACE_FUZZ_CHECK(what.find("--workload") != std::string::npos || what.find(spec) != std::string::npos);
  }
  return 0;
}
