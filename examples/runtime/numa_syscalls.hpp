#pragma once
// The three kernel NUMA interfaces the runtime and balancer examples use, behind one small
// wrapper: move_pages(2) (query mode: where pages are), mbind(2) and migrate_pages(2).
//
// With NUMA_RUNTIME_LIBNUMA=1 they are libnuma's (numa_move_pages, mbind, migrate_pages;
// Debian's libnuma-dev). Static builds, which the QEMU guests need, call the system calls
// directly instead: Debian's libnuma.a drags in getaddrinfo (its affinity.c), which glibc
// cannot link statically without a warning. libnuma's numaif.h wrappers are these same
// system calls, so the two are equivalent. numaif.h supplies the MPOL_* constants either way.
//
// Node masks are arrays of unsigned long, bit N for node id N; `maxnode` is passed as the
// libnuma convention wants it: one more than the number of bits.

#include <numaif.h>
#include <sys/syscall.h>
#include <unistd.h>

#if NUMA_RUNTIME_LIBNUMA
#include <numa.h>
#endif

#include <cstddef>
#include <vector>

namespace numa_runtime::sys {

inline constexpr std::size_t mask_bits = 8 * sizeof(unsigned long);

/// move_pages(pid, n, pages, nullptr, status, 0): status[i] is the node id of pages[i], or
/// -errno (-ENOENT: not present, -EFAULT: not mapped). Returns 0, or -1 with errno.
inline long query_pages(int pid, std::size_t n, void** pages, int* status) noexcept {
#if NUMA_RUNTIME_LIBNUMA
  return numa_move_pages(pid, n, pages, nullptr, status, 0);
#else
  return syscall(SYS_move_pages, pid, n, pages, nullptr, status, 0);
#endif
}

/// mbind(addr, len, mode, mask, maxnode, flags). Returns 0, or -1 with errno.
inline long bind_memory(void* addr, std::size_t len, int mode, const std::vector<unsigned long>& mask,
                        unsigned flags) noexcept {
  const unsigned long maxnode = mask.size() * mask_bits + 1;
#if NUMA_RUNTIME_LIBNUMA
  return mbind(addr, len, mode, mask.data(), maxnode, flags);
#else
  return syscall(SYS_mbind, addr, len, mode, mask.data(), maxnode, flags);
#endif
}

/// migrate_pages(pid, maxnode, old, new): the number of pages that could not be moved, or -1
/// with errno (EPERM: not allowed to move another user's process; ESRCH: no such process).
/// `from` and `to` must have the same size.
inline long migrate_process_pages(int pid, const std::vector<unsigned long>& from,
                                  const std::vector<unsigned long>& to) noexcept {
  const unsigned long maxnode = from.size() * mask_bits + 1;
#if NUMA_RUNTIME_LIBNUMA
  return migrate_pages(pid, maxnode, from.data(), to.data());
#else
  return syscall(SYS_migrate_pages, pid, maxnode, from.data(), to.data());
#endif
}

/// A mask with the bits of `ids` set, at least `min_words` long.
template <class Ids>
std::vector<unsigned long> make_mask(const Ids& ids, std::size_t min_words = 1) {
  std::vector<unsigned long> mask(min_words, 0);
  for (const auto id : ids) {
    const auto i = static_cast<std::size_t>(id);
    if (mask.size() <= i / mask_bits) mask.resize(i / mask_bits + 1, 0);
    mask[i / mask_bits] |= 1UL << (i % mask_bits);
  }
  return mask;
}

}  // namespace numa_runtime::sys
