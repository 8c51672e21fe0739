// The cpuset readers on any bytes, each a result or a topology_error:
//   parse_proc_cgroup   paths absolute, without "." or ".." steps (they are joined to mounts)
//   parse_cpuset_cpus   CPU numbers ascending, within max_cpu_number
//   parse_cpuset_mems   node ids ascending, below max_nodes
#include <numaplace/linux/cpuset.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"

namespace {

void check_path(const std::optional<std::string>& path) {
  if (!path) return;
  NUMAPLACE_FUZZ_CHECK(!path->empty() && path->front() == '/');
  NUMAPLACE_FUZZ_CHECK(path->find('\n') == std::string::npos);
  const std::string padded = *path + "/";
  NUMAPLACE_FUZZ_CHECK(padded.find("/../") == std::string::npos);
  NUMAPLACE_FUZZ_CHECK(padded.find("/./") == std::string::npos);
}

void check_ascending(const std::vector<unsigned>& v, unsigned limit) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    NUMAPLACE_FUZZ_CHECK(v[i] <= limit);
    if (i > 0) NUMAPLACE_FUZZ_CHECK(v[i - 1] < v[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  try {
    const auto m = numaplace::os::parse_proc_cgroup(text, "fuzz");
    check_path(m.unified);
    check_path(m.cpuset);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  std::vector<unsigned> cpus;
  bool cpus_ok = false;
  try {
    cpus = numaplace::os::parse_cpuset_cpus(text, "fuzz");
    cpus_ok = true;
    check_ascending(cpus, numaplace::max_cpu_number);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  try {
    const auto mems = numaplace::os::parse_cpuset_mems(text, "fuzz");
    check_ascending(mems, static_cast<unsigned>(numaplace::max_nodes - 1));
    // A node list is a CPU list with a lower bound: what parses as one parses as the other.
    NUMAPLACE_FUZZ_CHECK(cpus_ok && cpus == mems);
  } catch (const numaplace::topology_error& e) {
    check_error(e);
  }
  return 0;
}
