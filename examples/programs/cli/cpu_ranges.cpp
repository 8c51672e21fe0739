#include "cpu_ranges.hpp"

#include <vector>

#include <numaplace/topology/cpulist.hpp>

namespace numaplace_cli {

std::string cpu_ranges(std::span<const unsigned> cpus) {
  return numaplace::format_cpulist(std::vector<unsigned>(cpus.begin(), cpus.end()));
}

}  // namespace numaplace_cli
