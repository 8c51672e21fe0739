// numaplace advise's parse_demand on any bytes: at least one CPU and, written back as
// "NCPUS[:MB]", the same demand again; or a usage_error that quotes the demand.
#include <cstddef>
#include <cstdint>
#include <string>

#include "advise_demand.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  try {
    const numaplace_cli::demand d = numaplace_cli::parse_demand(text);
    NUMAPLACE_FUZZ_CHECK(d.cpus >= 1);
    const std::string again = std::to_string(d.cpus) + (d.mib ? ":" + std::to_string(*d.mib) : std::string());
    const numaplace_cli::demand e = numaplace_cli::parse_demand(again);
    NUMAPLACE_FUZZ_CHECK(e.cpus == d.cpus && e.mib == d.mib);
  } catch (const numaplace_cli::usage_error& e) {
    const std::string_view what = e.what();
    NUMAPLACE_FUZZ_CHECK(what.starts_with("-w "));
    NUMAPLACE_FUZZ_CHECK(what.find(text.substr(0, text.find('\0'))) != std::string_view::npos);
  }
  return 0;
}
