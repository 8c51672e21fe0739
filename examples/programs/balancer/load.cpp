// numaplace-balance-load: a process for numaplace-balance to look at (tests, guests).
//
//   numaplace-balance-load [--threads N] [--mib M] [--nodes LIST] [--seconds S] [--ready FILE]
//
// Allocates M MiB (default 8), binds it to the node ids in LIST (mbind: MPOL_BIND for one node,
// MPOL_INTERLEAVE for several; default: no policy), touches it, starts N-1 more threads
// (N default 1) that sleep, writes its PID to FILE when all is in place, then sleeps S seconds
// (default 30) or until killed.
#include <numaplace/linux/memory_policy.hpp>
#include <numaplace/topology/cpulist.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <unistd.h>

int main(int argc, char** argv) try {
  unsigned threads = 1, seconds = 30;
  std::size_t mib = 8;
  std::vector<unsigned> nodes;
  std::string ready;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "numaplace-balance-load: " << a << " needs a value\n";
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--threads") threads = static_cast<unsigned>(std::stoul(v));
    else if (a == "--mib") mib = std::stoul(v);
    else if (a == "--nodes") nodes = numaplace::parse_cpulist(v, "--nodes", 0);
    else if (a == "--seconds") seconds = static_cast<unsigned>(std::stoul(v));
    else if (a == "--ready") ready = v;
    else {
      std::cerr << "numaplace-balance-load: unknown option " << a << '\n';
      return 2;
    }
  }
  const std::size_t bytes = mib << 20;
  void* block = std::aligned_alloc(4096, bytes);
  if (block == nullptr) throw std::bad_alloc();
  if (!nodes.empty()) {
    const numaplace::os::os_status s = nodes.size() == 1 ? numaplace::os::bind_memory(block, bytes, nodes)
                                                          : numaplace::os::interleave_memory(block, bytes, nodes);
    if (!s) {
      std::cerr << "numaplace-balance-load: " << s.message << '\n';
      return 1;
    }
  }
  std::memset(block, 1, bytes);
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads; ++t) others.emplace_back([seconds] { std::this_thread::sleep_for(std::chrono::seconds(seconds)); });
  if (!ready.empty()) std::ofstream(ready) << getpid() << '\n';
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  for (auto& t : others) t.join();
  std::free(block);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "numaplace-balance-load: " << e.what() << '\n';
  return 1;
}
