#pragma once
// Replaces the global operator new and delete to count allocations, for tests that check a
// code path allocates nothing. Include it from exactly one file of a test binary.
//
// Not under ThreadSanitizer, whose runtime brings its own operator new (clang links it
// statically, so ours would be a second definition): NUMAPLACE_COUNTS_ALLOCATIONS is then 0.

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_THREAD__)
#define NUMAPLACE_COUNTS_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NUMAPLACE_COUNTS_ALLOCATIONS 0
#endif
#endif
#ifndef NUMAPLACE_COUNTS_ALLOCATIONS
#define NUMAPLACE_COUNTS_ALLOCATIONS 1
#endif

#if NUMAPLACE_COUNTS_ALLOCATIONS

namespace numaplace::test {
inline std::atomic<std::size_t> allocations{0};
}  // namespace numaplace::test

// GCC inlines these into callers and then sees malloc paired with operator delete; the pairing
// is right, since both halves are replaced here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  numaplace::test::allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // NUMAPLACE_COUNTS_ALLOCATIONS
