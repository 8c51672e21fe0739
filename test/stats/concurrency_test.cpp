// fault_stats under concurrent recording: no page is lost or counted twice while another
// thread ends windows. Also built with -fsanitize=thread (NUMAPLACE_SANITIZE=thread).
#include <doctest/doctest.h>

#include <numaplace/stats/fault_stats.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

using namespace numaplace;

namespace {

constexpr std::size_t nodes = 4;
constexpr int recorders = 8;
constexpr int records_per_thread = 125'000;
constexpr std::uint64_t pages = 3;

struct fault {
  node_index mem_node;
  node_index cpu_node;
  numaplace::access kind;
  bool migration_failed;
};

// Thread t's i-th fault: memory wanders over the nodes, the thread stays on its own node.
constexpr fault fault_of(int t, int i) noexcept {
  return {static_cast<node_index>((t + i) % nodes), static_cast<node_index>(t % nodes),
          i % 2 ? numaplace::access::private_access : numaplace::access::shared, i % 10 == 0};
}

// What one drained window contributed to each memory slot: MEM_new - (MEM_old - MEM_old/2).
void add_drained(std::vector<std::uint64_t>& drained, const std::vector<std::uint64_t>& before,
                 std::span<const std::uint64_t> after) {
  for (std::size_t i = 0; i < drained.size(); ++i) drained[i] += after[i] - (before[i] - before[i] / 2);
}

}  // namespace

TEST_CASE("8 threads x 125000 records while a ninth ends windows: every page counted once") {
  fault_stats stats(nodes);
  fault_stats group(nodes);

  // Expected per memory slot, per kind and per locality slot, worked out single-threaded.
  std::vector<std::uint64_t> want_slots(2 * nodes);
  std::array<std::uint64_t, 2> want_types{};
  std::array<std::uint64_t, 3> want_locality{};
  for (int t = 0; t < recorders; ++t) {
    for (int i = 0; i < records_per_thread; ++i) {
      const fault f = fault_of(t, i);
      want_slots[2 * f.mem_node + static_cast<std::size_t>(f.kind)] += pages;
      want_types[static_cast<std::size_t>(f.kind)] += pages;
      want_locality[f.mem_node == f.cpu_node ? 1 : 0] += pages;
      if (f.migration_failed) want_locality[2] += pages;
    }
  }

  // The window-ending thread is the single writer; it tallies what each window drained.
  std::vector<std::uint64_t> drained(2 * nodes);
  std::array<std::uint64_t, 2> types{};
  std::array<std::uint64_t, 3> locality{};
  std::uint64_t windows = 0;
  auto end_one_window = [&] {
    const std::vector<std::uint64_t> before(stats.memory().begin(), stats.memory().end());
    const fault_window w = stats.end_window(1'000'000, 2'000'000, &group);
    add_drained(drained, before, stats.memory());
    for (std::size_t k = 0; k < 2; ++k) types[k] += w.fault_types[k];
    for (std::size_t k = 0; k < 3; ++k) locality[k] += w.locality[k];
    ++windows;
  };

  std::atomic<int> running{recorders};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < recorders; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int i = 0; i < records_per_thread; ++i) {
        const fault f = fault_of(t, i);
        stats.record(f.mem_node, f.cpu_node, f.kind, pages, f.migration_failed);
      }
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  std::thread ender([&] {
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    while (running.load(std::memory_order_acquire) > 0) end_one_window();
  });
  go.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();
  ender.join();
  end_one_window();  // whatever landed after the ender's last window

  const std::uint64_t everything = std::uint64_t{recorders} * records_per_thread * pages;
  CHECK(everything == 1'000'000 * pages);
  CHECK(types[0] + types[1] == everything);
  CHECK(locality[0] + locality[1] == everything);
  CHECK(types == want_types);
  CHECK(locality == want_locality);
  CHECK(drained == want_slots);
  CHECK(windows >= 1);
  MESSAGE("windows ended while recording: ", windows);

  // Nothing is left in the buffers, and the group (started at 0, one member) mirrors the task.
  for (node_index n = 0; n < nodes; ++n) {
    CHECK(stats.buffered_memory(n, numaplace::access::shared) == 0);
    CHECK(stats.buffered_memory(n, numaplace::access::private_access) == 0);
    CHECK(stats.buffered_cpu(n, numaplace::access::shared) == 0);
    CHECK(stats.buffered_cpu(n, numaplace::access::private_access) == 0);
  }
  CHECK(stats.locality(locality_slot::local) == 0);
  CHECK(stats.locality(locality_slot::remote) == 0);
  CHECK(stats.locality(locality_slot::migration_failed) == 0);
  for (std::size_t i = 0; i < 2 * nodes; ++i) {
    CHECK(group.memory()[i] == stats.memory()[i]);
    CHECK(group.cpu()[i] == stats.cpu()[i]);
  }
  CHECK(group.total() == stats.total());
}
