// numaplace::os::parse_status on any bytes: a status with a positive pid and lists ascending
// without repeats (node ids below max_nodes), or a topology_error. Written back as a status
// file, the result parses the same.
#include <numaplace/linux/proc_status.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

void check_ascending(const std::vector<unsigned>& v, unsigned limit) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    NUMAPLACE_FUZZ_CHECK(v[i] <= limit);
    if (i > 0) NUMAPLACE_FUZZ_CHECK(v[i - 1] < v[i]);
  }
}

std::string list_of(const std::vector<unsigned>& v) {
  std::string s;
  for (const unsigned x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  try {
    const auto s = numaplace::os::parse_status(as_text(data, size), "fuzz");
    NUMAPLACE_FUZZ_CHECK(s.pid > 0);
    check_ascending(s.cpus_allowed, numaplace::max_cpu_number);
    check_ascending(s.mems_allowed, static_cast<unsigned>(numaplace::max_nodes - 1));
    // A Name holding a newline cannot come back as one line; the kernel escapes it ("\n").
    if (s.name.find_first_of("\r\n") != std::string::npos) return 0;
    const std::string again = "Name:\t" + s.name + "\nPid:\t" + std::to_string(s.pid) + "\nThreads:\t" +
                              std::to_string(s.threads) + "\nCpus_allowed_list:\t" + list_of(s.cpus_allowed) +
                              "\nMems_allowed_list:\t" + list_of(s.mems_allowed) + "\n";
    const auto t = numaplace::os::parse_status(again, "again");
    NUMAPLACE_FUZZ_CHECK(t.pid == s.pid && t.threads == s.threads);
    NUMAPLACE_FUZZ_CHECK(t.cpus_allowed == s.cpus_allowed && t.mems_allowed == s.mems_allowed);
    // Leading blanks of a value are the separator, not the name.
    NUMAPLACE_FUZZ_CHECK(t.name == s.name);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
