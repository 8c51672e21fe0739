// Compiled with nothing but `pkg-config --cflags numaplace` by test/packaging: the installed
// headers must be enough to build and run it. placement.hpp brings in Boost.Hana and needs
// C++20, so the flags must select C++20 and find Boost.
#include <numaplace/placement.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/version.hpp>

#include <cstdio>

int main() {
  const auto cpus = numaplace::parse_cpulist("0-3,8", "pkgconfig_program", 1);
  std::printf("pkg-config program: numaplace %s, %zu cpus\n", numaplace::version_string, cpus.size());
  return cpus.size() == 5 ? 0 : 1;
}
