// `numaplace sim --workload`'s spec parser (numaplace/formats/workload_spec.hpp) on any bytes:
// parse_workload_spec either returns a workload within the task limit whose threads access
// only regions they have, or throws workload_spec_error naming the spec.
#include <cstddef>
#include <cstdint>
#include <string>

#include <numaplace/formats/workload_spec.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  if (size > 128) return 0;  // a spec is one short word
  const std::string spec(as_text(data, size));
  try {
    const numaplace::sim::workload w = numaplace::formats::parse_workload_spec(spec);
    std::size_t tasks = 0;
    for (const auto& p : w.processes) {
      tasks += p.threads.size();
      for (const auto& t : p.threads) {
        for (const auto& a : t.accesses) NUMAPLACE_FUZZ_CHECK(a.region < p.regions.size());
      }
      for (const auto& r : p.regions) NUMAPLACE_FUZZ_CHECK(r.chunks >= 1);
    }
    NUMAPLACE_FUZZ_CHECK(tasks >= 1 && tasks <= numaplace::formats::max_sim_tasks);
    NUMAPLACE_FUZZ_CHECK(!numaplace::formats::describe_workload(w).empty());
  } catch (const numaplace::formats::workload_spec_error& e) {
    NUMAPLACE_FUZZ_CHECK(e.spec() == spec && !e.reason().empty());
    // what() is a C string: a spec holding a NUL cuts it short, so only its start is checked.
    NUMAPLACE_FUZZ_CHECK(std::string(e.what()).starts_with("workload '"));
  }
  return 0;
}
