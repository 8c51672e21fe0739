// OpenMP placed by numaplace: the example chooses OMP_PLACES and OMP_PROC_BIND for a team of
// --threads threads near --start (advise_openmp), runs itself again with them set (the OpenMP
// runtime reads its environment once, when it loads), and each thread of a parallel region
// reports its place as the runtime parsed it and where it runs (getcpu).
//
// The second run is told the CPUs the first one could use: libgomp binds the initial thread to
// the first place as it loads, so the second run's own affinity is that place alone, and a
// machine read from it would have one node. A program choosing its own places must likewise
// read the machine before the OpenMP runtime starts (or in a process without it).
//
//   numaplace-openmp-example [--threads T] [--start N] [--node-cpus LIST]...
#include <numaplace/adapters/openmp_places.hpp>
#include <numaplace/linux/affinity.hpp>
#include <numaplace/linux/usable_machine.hpp>
#include <numaplace/topology/cpulist.hpp>

#include "example_machine.hpp"

#include <omp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Set in the second run: the CPUs the first run could use (cpulist text).
constexpr const char* child_marker = "NUMAPLACE_OPENMP_EXAMPLE_CPUS";

std::vector<unsigned> place_cpus(int place) {
  std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
  omp_get_place_proc_ids(place, ids.data());
  return {ids.begin(), ids.end()};
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* inherited = std::getenv(child_marker);
  const std::vector<unsigned> first_run_cpus =
      inherited ? numaplace::parse_cpulist(inherited, child_marker, 0) : numaplace::os::calling_thread_affinity();
  const adapter_example::machine m = adapter_example::read_machine(args, &first_run_cpus);
  const unsigned threads = adapter_example::unsigned_option(args, "--threads", 2);
  const unsigned start = adapter_example::unsigned_option(args, "--start", 0);
  const numaplace::adapters::omp_binding b = numaplace::adapters::advise_openmp(m.topology, m.cpus, start, threads);

  if (inherited == nullptr) {
    std::cout << "OMP_PLACES=" << b.places << "\nOMP_PROC_BIND=" << b.proc_bind << "\nOMP_NUM_THREADS=" << threads
              << '\n'
              << std::flush;
    setenv("OMP_PLACES", b.places.c_str(), 1);
    setenv("OMP_PROC_BIND", b.proc_bind.c_str(), 1);
    setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    setenv(child_marker, numaplace::format_cpulist(first_run_cpus).c_str(), 1);
    execv("/proc/self/exe", argv);
    std::cerr << "numaplace-openmp-example: execv(/proc/self/exe): " << std::strerror(errno) << '\n';
    return 1;
  }

  adapter_example::print_machine(m);
  if (omp_get_num_places() != static_cast<int>(b.nodes.size())) {
    std::cerr << "numaplace-openmp-example: the OpenMP runtime has " << omp_get_num_places() << " places, OMP_PLACES="
              << getenv("OMP_PLACES") << " names " << b.nodes.size() << '\n';
    return 1;
  }
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::cout << "place " << p << " cpus " << numaplace::format_cpulist(place_cpus(p)) << " node "
              << b.nodes[static_cast<std::size_t>(p)] << '\n';
  }
  std::vector<std::string> lines(threads);
  unsigned unbound = 0;  // threads the runtime bound to no place
#pragma omp parallel num_threads(static_cast<int>(threads)) reduction(+ : unbound)
  {
    const int place = omp_get_place_num();
    if (place < 0) ++unbound;
    const auto here = numaplace::os::current_cpu_and_node();
    const int t = omp_get_thread_num();
    std::ostringstream line;
    line << "ran thread-" << t << " on cpu " << here.cpu << " node " << here.node << " want node "
         << (place >= 0 ? b.nodes[static_cast<std::size_t>(place)] : numaplace::no_node) << " place " << place;
    lines[static_cast<std::size_t>(t)] = line.str();
  }
  for (const auto& l : lines) std::cout << l << '\n';
  std::cout << "proc_bind " << b.proc_bind << " (omp_get_proc_bind " << static_cast<int>(omp_get_proc_bind()) << ")\n"
            << "pinning failures " << unbound << '\n'
            << "expect runs " << threads << '\n';
  return 0;
} catch (const std::exception& e) {
  std::cerr << "numaplace-openmp-example: " << e.what() << '\n';
  return 1;
}
