// numaplace-balance's readers on any bytes. The first byte picks one: a /proc/PID/numa_maps
// (pages per node that add up without wrapping, anonymous pages within each node's), a
// /proc/PID/task/TID/stat (a thread id and a CPU that are not negative), or one --exclude
// entry (a PID in the kernel's range or a name of at most 15 characters). Anything else must
// be the reader's own error, naming the source and a line, or saying what is wrong.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "check.hpp"
#include "exclusions.hpp"
#include "proc_files.hpp"

namespace {

void numa_maps(std::string_view text) {
  try {
    const balancer::numa_maps_summary m = balancer::parse_numa_maps(text, "numa_maps");
    std::uint64_t sum = 0;
    for (const auto& [node, bytes] : m.bytes) {
      NUMAPLACE_FUZZ_CHECK(bytes <= std::numeric_limits<std::uint64_t>::max() - sum);
      sum += bytes;
      const auto anon = m.anon_bytes.find(node);
      NUMAPLACE_FUZZ_CHECK(anon == m.anon_bytes.end() || anon->second <= bytes);
    }
    NUMAPLACE_FUZZ_CHECK(m.total_bytes() == sum);
    for (const auto& [node, anon] : m.anon_bytes) NUMAPLACE_FUZZ_CHECK(m.bytes.count(node) == 1);
  } catch (const balancer::proc_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string_view(e.what()).starts_with("numa_maps:"));
  }
}

void task_stat(std::string_view text) {
  try {
    const balancer::task_stat t = balancer::parse_task_stat(text, "stat");
    NUMAPLACE_FUZZ_CHECK(t.tid > 0);
    NUMAPLACE_FUZZ_CHECK(t.processor >= 0);
  } catch (const balancer::proc_error& e) {
    NUMAPLACE_FUZZ_CHECK(std::string_view(e.what()).starts_with("stat:"));
  }
}

void exclusion(std::string_view text) {
  balancer::exclusions e;
  try {
    balancer::add_exclusion(e, text);
    NUMAPLACE_FUZZ_CHECK(e.pids.size() + e.names.size() == 1);
    for (const int pid : e.pids) NUMAPLACE_FUZZ_CHECK(pid >= 1 && pid <= 0x3fffffff);
    for (const auto& name : e.names) NUMAPLACE_FUZZ_CHECK(!name.empty() && name.size() <= 15 && name == text);
  } catch (const std::invalid_argument& bad) {
    NUMAPLACE_FUZZ_CHECK(e.pids.empty() && e.names.empty());
    NUMAPLACE_FUZZ_CHECK(std::string_view(bad.what()).size() < 400);  // never the whole input
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = numaplace_fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: numa_maps(text); break;
    case 1: task_stat(text); break;
    default: exclusion(text); break;
  }
  return 0;
}
