#pragma once
// What the Linux layer's tests share: this machine's topology and CPUs, page-aligned memory,
// and the pid of a process known to have exited.

#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace linux_os_test {

inline const numaplace::dynamic_topology& this_machine() {
  static const numaplace::dynamic_topology t = numaplace::load::sysfs("/sys/devices/system/node");
  return t;
}

/// The CPUs this process may run on (sched_getaffinity).
inline std::vector<unsigned> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("sched_getaffinity failed");
  std::vector<unsigned> cpus;
  for (unsigned c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

inline std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

/// `pages` fresh pages (anonymous mmap: none present until touched), unmapped at scope end.
class mapping {
 public:
  explicit mapping(std::size_t pages) : bytes_(pages * page_bytes()) {
    base_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
  }
  mapping(const mapping&) = delete;
  mapping& operator=(const mapping&) = delete;
  ~mapping() { munmap(base_, bytes_); }

  void* base() const noexcept { return base_; }
  std::size_t bytes() const noexcept { return bytes_; }
  char* page(std::size_t i) const noexcept { return static_cast<char*>(base_) + i * page_bytes(); }
  void touch(std::size_t i) const noexcept { *static_cast<volatile char*>(page(i)) = 1; }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A pid that belonged to a child which has exited and been reaped.
inline pid_t exited_child() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  if (child < 0) throw std::runtime_error("fork failed");
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

/// The memory policy of the page at `address`, read back with get_mempolicy(MPOL_F_ADDR).
struct policy_read {
  int mode = -1;
  std::vector<unsigned> nodes;
};

inline policy_read policy_at(const void* address) {
  constexpr unsigned long words = 16;  // 1024 nodes, the most any kernel config has
  unsigned long mask[words] = {};
  policy_read out;
  if (syscall(SYS_get_mempolicy, &out.mode, mask, words * 64, address, MPOL_F_ADDR) != 0) {
    throw std::runtime_error("get_mempolicy failed");
  }
  for (unsigned n = 0; n < words * 64; ++n) {
    if (mask[n / 64] >> (n % 64) & 1UL) out.nodes.push_back(n);
  }
  return out;
}

}  // namespace linux_os_test
