// numaplace advise's demand parsers (parse_job_demand; parse_numad_demand below) on any bytes: at least one CPU and,
// written back as "NCPUS[:MB]", the same demand again; or a std::invalid_argument that starts
// with the demand.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <numaplace/topology/job_demand.hpp>

#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  try {
    const numaplace::job_demand d = numaplace::parse_job_demand(text);
    NUMAPLACE_FUZZ_CHECK(d.cpus >= 1);
    const std::string again = std::to_string(d.cpus) + (d.mib ? ":" + std::to_string(*d.mib) : std::string());
    const numaplace::job_demand e = numaplace::parse_job_demand(again);
    NUMAPLACE_FUZZ_CHECK(e.cpus == d.cpus && e.mib == d.mib);
  } catch (const std::invalid_argument& e) {
    const std::string_view what = e.what();
    NUMAPLACE_FUZZ_CHECK(what.starts_with(text.substr(0, text.find('\0'))));
  }
  // numad's form (advise --numad): some CPU in hundredths; a whole demand that parse_job_demand
  // takes is the same demand; written back as "N.DD[:MB]", the same again.
  try {
    const numaplace::numad_demand d = numaplace::parse_numad_demand(text);
    NUMAPLACE_FUZZ_CHECK(d.cpu_hundredths >= 1);
    try {
      const numaplace::job_demand whole = numaplace::parse_job_demand(text);
      NUMAPLACE_FUZZ_CHECK(d.cpu_hundredths == std::uint64_t{whole.cpus} * 100 && d.mib == whole.mib);
    } catch (const std::invalid_argument&) {
    }
    std::string again = std::to_string(d.cpu_hundredths / 100) + "." + std::to_string(d.cpu_hundredths % 100 / 10) +
                        std::to_string(d.cpu_hundredths % 10);
    if (d.mib) again += ":" + std::to_string(*d.mib);
    const numaplace::numad_demand e = numaplace::parse_numad_demand(again);
    NUMAPLACE_FUZZ_CHECK(e.cpu_hundredths == d.cpu_hundredths && e.mib == d.mib);
  } catch (const std::invalid_argument& e) {
    const std::string_view what = e.what();
    NUMAPLACE_FUZZ_CHECK(what.starts_with(text.substr(0, text.find('\0'))));
  }
  return 0;
}
