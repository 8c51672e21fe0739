// Recording and ending windows allocate nothing once a fault_stats is built: every operator
// new in this test binary is counted. Not under ThreadSanitizer, whose runtime brings its own
// operator new (clang links it statically, so ours would be a duplicate definition).
#include <doctest/doctest.h>

#include <numaplace/stats/active_nodes.hpp>
#include <numaplace/stats/fault_stats.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

using namespace numaplace;

#if defined(__SANITIZE_THREAD__)
#define NUMAPLACE_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NUMAPLACE_UNDER_TSAN 1
#endif
#endif

#ifndef NUMAPLACE_UNDER_TSAN

namespace {
std::atomic<std::size_t> allocations{0};
}

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

TEST_CASE("record, end_window, view and active-node counting allocate nothing") {
  fault_stats task(8), group(8);
  const std::size_t before = allocations.load();
  std::uint64_t sink = 0;
  for (std::uint64_t window = 0; window < 100; ++window) {
    for (node_index n = 0; n < 8; ++n) task.record(n, (n + 1) % 8, numaplace::access::shared, window + n, n == 3);
    sink += task.end_window(window * 1000, 100'000, &group).fault_types[0];
    sink += count_active_nodes(group.view()) + task.view().faults(2);
  }
  CHECK(allocations.load() == before);
  CHECK(sink > 0);
}

#endif  // NUMAPLACE_UNDER_TSAN

TEST_CASE("a mismatched group, or the stats themselves as group, is left alone") {
  fault_stats task = fault_stats::from_counts(std::array<std::uint64_t, 4>{4, 4, 4, 4});
  fault_stats other(3);
  task.end_window(0, 0, &other);
  CHECK(other.total() == 0);
  task.end_window(0, 0, &task);
  CHECK(task.total() == 4);  // 16 -> 8 -> 4: decayed twice, never doubled
}
