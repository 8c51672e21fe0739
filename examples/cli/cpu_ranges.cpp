#include "cpu_ranges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace numaplace_cli {

std::string cpu_ranges(std::span<const unsigned> cpus) {
  std::vector<unsigned> sorted(cpus.begin(), cpus.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (std::size_t first = 0; first < sorted.size();) {
    std::size_t last = first;
    while (last + 1 < sorted.size() && sorted[last + 1] == sorted[last] + 1) ++last;
    if (!out.empty()) out += ',';
    out += last == first ? fmt::format("{}", sorted[first]) : fmt::format("{}-{}", sorted[first], sorted[last]);
    first = last + 1;
  }
  return out;
}

}  // namespace numaplace_cli
