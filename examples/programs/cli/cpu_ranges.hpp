#pragma once
// CPU numbers written as the kernel's cpulist ("0-19,80-89"): numaplace::format_cpulist, for
// spans. Kept only for advise_command.cpp, which is being moved elsewhere; new code calls
// format_cpulist directly.

#include <span>
#include <string>
#include <vector>

#include <numaplace/topology/cpulist.hpp>

namespace numaplace_cli {

inline std::string cpu_ranges(std::span<const unsigned> cpus) {
  return numaplace::format_cpulist(std::vector<unsigned>(cpus.begin(), cpus.end()));
}

}  // namespace numaplace_cli
