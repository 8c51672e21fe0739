// Compiled with nothing but `pkg-config --cflags numaplace` by test/packaging: the installed
// headers (a core one and version.hpp) must be enough to build and run it.
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/version.hpp>

#include <cstdio>

int main() {
  const auto cpus = numaplace::parse_cpulist("0-3,8", "pkgconfig_program", 1);
  std::printf("pkg-config program: numaplace %s, %zu cpus\n", numaplace::version_string, cpus.size());
  return cpus.size() == 5 ? 0 : 1;
}
