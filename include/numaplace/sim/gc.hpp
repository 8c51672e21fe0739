#pragma once
// A JVM's stop-the-world young collections (HotSpot's parallel scavenge, the default collector
// of the JDKs the seeds ran). The rule for when a pause starts and ends lives here; the engine
// puts tasks to sleep and wakes them (sleep_wake.hpp).
//
//   - Mutators allocate into eden as they work (workload gc_spec::alloc_chunks_per_s per second
//     of work); when eden is full a young collection runs: every mutator stops at the
//     safepoint and blocks, the collector's worker threads wake, share the collection's work
//     (the young region's chunks times work_ms_per_chunk; work stealing keeps them busy to the
//     end, so the pause ends when the pooled work is done), then block again and the mutators
//     wake. Reaching the safepoint and the VM thread's own time are not modelled.
//   - Worker threads: -XX:ParallelGCThreads' default, HotSpot's nof_parallel_worker_threads(5,
//     8, 8): all CPUs up to 8, then 8 + 5/8 of those above 8 (the parallel collector's tuning
//     guide, https://docs.oracle.com/javase/8/docs/technotes/guides/vm/gctuning/parallel.html,
//     "approximately 5/8"). The CPUs counted are those the JVM may run on
//     (os::active_processor_count() reads the affinity mask: a bound JVM counts its nodes'). A
//     run of several unbound JVMs caps each at its share of the machine's CPUs (assumed: a
//     multi-JVM tester sets -XX:ParallelGCThreads so; otherwise every JVM would start a
//     machine's worth of workers).
//   - Eden is reused in place after each collection: the kernel keeps its pages where they
//     were first touched (first_touch.hpp), so a collection moves no memory; only NUMA
//     balancing migrates it.

#include <algorithm>
#include <cstdint>

#include "world.hpp"

namespace numaplace::sim {

/// HotSpot's default ParallelGCThreads for `cpus` active processors (5/8 above 8, rounded
/// down as the integer arithmetic does).
constexpr unsigned parallel_gc_threads(unsigned cpus) noexcept {
  return cpus <= 8 ? cpus : 8 + (cpus - 8) * 5 / 8;
}

/// How many collector threads process p gets: its gc_spec's count, else the default for the
/// CPUs it may use (its bound nodes', else its share of the machine among the processes that
/// collect).
inline unsigned gc_threads_for(const world& s, std::uint32_t p) {
  const gc_spec& gc = s.w.processes[p].gc;
  if (gc.threads != 0) return gc.threads;
  const auto& allowed = s.m.processes[p].allowed;
  std::size_t cpus = 0;
  if (!allowed.empty()) {
    for (const node_index n : allowed) cpus += s.m.node_cpus[n].size();
  } else {
    std::size_t collectors = 0;
    for (const auto& ps : s.w.processes) collectors += ps.gc.enabled() ? 1 : 0;
    cpus = s.m.cpus.size() / std::max<std::size_t>(1, collectors);
  }
  return std::max(1u, parallel_gc_threads(static_cast<unsigned>(std::max<std::size_t>(1, cpus))));
}

/// What process p's collector does at the end of a tick.
enum class gc_event : std::uint8_t { none, begin_pause, end_pause };

inline gc_event gc_due(const process_spec& spec, const process_state& ps) {
  if (!spec.gc.enabled() || !ps.started) return gc_event::none;
  if (ps.in_gc) return ps.gc_work_left_ms <= 0 ? gc_event::end_pause : gc_event::none;
  return ps.gc_allocated_chunks >= double(spec.regions[spec.gc.young_region].chunks) ? gc_event::begin_pause
                                                                                   : gc_event::none;
}

/// The work one young collection of process p takes, pooled over its workers, in ms.
inline double gc_pause_work_ms(const process_spec& spec) {
  return double(spec.regions[spec.gc.young_region].chunks) * spec.gc.work_ms_per_chunk;
}

}  // namespace numaplace::sim
