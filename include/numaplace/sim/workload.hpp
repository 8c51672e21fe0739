#pragma once
// Workloads as data: processes, their threads, and the memory regions each thread touches.
// Generators build the seeds' benchmarks; users can build their own the same way.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace numaplace::sim {

/// Who first touches a region every thread works on (first_touch_by_all), and so where its
/// chunks land under the default local allocation policy.
enum class shared_touch : std::uint8_t {
  /// Everybody at once: each chunk on a node of the threads drawn at random.
  any_thread,
  /// One thread builds it before the others use it: all of it on the first thread's node.
  first_thread,
  /// Handed out to the threads that allocate in it (a Java eden carved into TLABs), each the
  /// same share, in an order drawn at random (who asks for the next TLAB first is a race): a
  /// chunk lands on its allocating thread's node. Reused memory is not faulted again, so later
  /// allocations land wherever the first pass put the chunk.
  allocating_threads,
  /// Written first by the process's garbage collector threads (objects promoted into the old
  /// generation: each worker copies survivors into its own promotion buffer), each chunk by a
  /// worker drawn at random (work stealing). Honoured for private regions too; without a
  /// collector it falls back to the region's default.
  collector_threads,
  /// Written once by every thread of the process at the same time, before each turns to its
  /// own part (numa01_THREAD_ALLOC's first bzero() of the whole buffer): each chunk on the node
  /// of a thread drawn at random, as any_thread, but honoured for private regions too.
  every_thread_once,
};

/// A memory region of a process, in 2 MiB chunks.
struct region {
  std::uint32_t chunks = 1;
  /// Whether every thread works on it (a shared heap), so chunks start out where `touch` puts
  /// them; else it is private data, on the node of the first thread that accesses it (unless
  /// `touch` is collector_threads).
  bool first_touch_by_all = false;
  shared_touch touch = shared_touch::any_thread;
  /// The mapping (VMA) it is part of: a process's consecutive regions with the same number
  /// are one mmap (a benchmark's buffer split among its threads, a Java heap); own_mapping, a
  /// mapping of its own. Only the scan of 6.4 onwards reads it (it skips VMAs, not regions).
  std::uint32_t mapping = own_mapping;
  static constexpr std::uint32_t own_mapping = ~std::uint32_t{0};
};

/// One thread's accesses: which regions, with what share of its memory accesses.
struct access {
  std::uint32_t region = 0;  ///< index into the process's regions
  double weight = 1.0;
};

struct thread_spec {
  std::vector<access> accesses;
};

/// A stop-the-world young collector (HotSpot's ParallelGC scavenge). Mutators allocate into the
/// young region as they work; when they have allocated its size, every mutator stops (sleeps,
/// off the runqueue), the collector's worker threads wake and do `work_ms_per_chunk` of work per
/// young chunk between them, then sleep again and the mutators wake. Workers touch only the
/// young region. No collector when `young_region` is no_young.
struct gc_spec {
  static constexpr std::uint32_t no_young = ~std::uint32_t{0};
  std::uint32_t young_region = no_young;  ///< index into the process's regions
  /// Chunks each mutator allocates per second of its work (ms of work at full local speed).
  double alloc_chunks_per_s = 0;
  /// Collector work per young chunk collected, in ms at full local speed (shared by workers).
  double work_ms_per_chunk = 0;
  /// Worker threads; 0: HotSpot's ParallelGCThreads default for the CPUs the JVM may use.
  std::uint32_t threads = 0;
  bool enabled() const noexcept { return young_region != no_young && alloc_chunks_per_s > 0; }
};

/// A process: the unit a numa_group forms around (its threads share memory).
struct process_spec {
  std::string name;
  std::vector<region> regions;
  std::vector<thread_spec> threads;
  /// Share of a thread's time spent on memory when all of it is local and unloaded (0..1).
  double memory_bound = 0.3;
  /// How much of that memory time streams (many misses in flight, bandwidth-bound: 1) rather
  /// than waits on one dependent miss after another (latency-bound: 0). Sets how many bytes
  /// the thread asks for (memory_load.hpp).
  double streaming = 0.5;
  /// Whether the main thread writes all of the memory before the threads start (numa02), so
  /// every chunk starts on the node it ran on.
  bool main_thread_touches_first = false;
  /// The nodes its memory is first touched on, whatever node the toucher runs on: the memory
  /// policy it faults its memory in under (set_mempolicy(MPOL_BIND) around the first touch, as
  /// autonuma-benchmark's NO_BIND_FORCE_SAME_NODE does), each chunk on the one of these nearest
  /// its toucher. Empty: where the toucher runs. A binding baseline's memory binding replaces
  /// it (the benchmark's HARD_BIND builds do not force the first touch).
  std::vector<std::uint32_t> first_touch_nodes;
  /// For elapsed-time workloads without jobs: the bytes each thread streams to finish (a
  /// benchmark's passes over its buffer), instead of the workload's work_per_thread_ms. The run
  /// turns them into work at what the thread streams at full local speed on its machine
  /// (memory_load.hpp's thread_work_ms). 0: work_per_thread_ms.
  double work_bytes_per_thread = 0;
  /// For short-lived jobs (make -j): total jobs to run, each `job_work` ms of CPU, at most
  /// `threads.size()` at once. 0 jobs: threads run for the whole simulation.
  std::uint32_t jobs = 0;
  double job_work_ms = 0;
  /// Hard binding of CPUs and memory together (numactl --cpunodebind=B --membind=B): node
  /// indices; empty = unbound. cpu_nodes and memory_nodes, where given, stand in for it.
  std::vector<std::uint32_t> bind_nodes;
  /// The CPU binding alone (numactl --cpunodebind): node indices, each with CPUs; empty:
  /// bind_nodes.
  std::vector<std::uint32_t> cpu_nodes;
  /// The memory binding alone (numactl --membind): node indices, each with memory, CPU-less
  /// ones (CXL, GPU memory) included; empty: bind_nodes, and with neither, memory is not
  /// bound (first touch near the CPUs, as numactl --cpunodebind alone leaves it).
  std::vector<std::uint32_t> memory_nodes;
  /// The binding baselines bind each thread, not the process, as numa02's HARD_BIND and
  /// INVERSE_BIND builds do (binding.hpp's bind_thread): thread i of T's memory on node
  /// i * n / T of the n nodes with CPUs, and the thread there (hard binding) or on the mirrored
  /// node (T - 1 - i) * n / T (inverse binding). bind_nodes are then not needed, nor used.
  bool bind_each_thread = false;
  /// Whether inverse binding sends its memory to the nodes farthest from its CPUs (the worst
  /// case), or leaves it bound with them. numa01's INVERSE_BIND builds invert only the first
  /// process's node mask (the else-if that should invert the second repeats the first test),
  /// so their second process runs as if hard-bound.
  bool inverse_moves_memory = true;
  /// When the process starts, in simulated ms: its threads start then, and its memory is first
  /// touched then (a JVM started some seconds after another).
  double start_ms = 0;
  /// Its garbage collector, if it has one.
  gc_spec gc{};

  /// The nodes its threads are bound to in the binding baselines: cpu_nodes, else bind_nodes.
  const std::vector<std::uint32_t>& bound_cpu_nodes() const noexcept {
    return cpu_nodes.empty() ? bind_nodes : cpu_nodes;
  }
  /// The nodes its memory is bound to there: memory_nodes, else bind_nodes (empty: unbound).
  const std::vector<std::uint32_t>& bound_memory_nodes() const noexcept {
    return memory_nodes.empty() ? bind_nodes : memory_nodes;
  }
};

struct workload {
  std::string name;
  std::vector<process_spec> processes;
  /// Simulated duration in seconds (jobs workloads end when all jobs are done, or at this).
  double seconds = 60.0;
  /// Whether results are reported as throughput (ops) or as elapsed time (jobs, numa01/02).
  bool report_elapsed = false;
  /// For elapsed-time workloads without jobs: CPU ms of work per thread to finish.
  double work_per_thread_ms = 0;
  /// Bulk-synchronous, as an MPI job's iterations are: each thread's work is this many equal
  /// steps, and no thread starts a step before every workload thread of every process has
  /// finished the one before (the exchange and reduction an iteration ends with). A thread
  /// waiting there spins, as MPICH and Open MPI poll for messages by default: it keeps its CPU
  /// but makes no progress and touches no memory (task_state::spinning). Every thread leaves
  /// at the last barrier, so the slowest sets everyone's pace. 0: threads run independently.
  /// Only for elapsed-time workloads without jobs or collectors, every process starting at 0.
  std::uint32_t barrier_steps = 0;
};

/// Why `w`'s barriers cannot hold, or "" when they can (or it has none). They count every
/// workload thread from the first step to the last, so the workload reports elapsed time and
/// none of its processes has jobs, a collector or a late start; `process` is set to the index
/// of the first that does (else left alone).
inline std::string barriers_refused(const workload& w, std::size_t& process) {
  if (w.barrier_steps == 0) return {};
  if (!w.report_elapsed) return "barriers need an elapsed-time workload (report_elapsed)";
  for (std::size_t i = 0; i < w.processes.size(); ++i) {
    const process_spec& p = w.processes[i];
    if (p.jobs > 0 || p.gc.enabled() || p.start_ms > 0) {
      process = i;
      return "has jobs, a collector or a late start; a workload with barrier_steps has none (its threads all run "
             "from the first step to the last)";
    }
  }
  return {};
}

namespace workloads {

/// SPECjbb2005 as its documents describe it, the parameters not found there stated as assumed.
/// Sources:
///   [wp]  SPECjbb2005 white paper, http://www.spec.org/jbb2005/docs/WhitePaper.html : one
///         user, mapped to one Java thread, per warehouse; a warehouse is a unit of data of
///         roughly 25 MB held in Java collections; every tier runs inside one JVM.
///   [faq] SPECjbb2005 FAQ, http://ftp.spec.org/jbb2005/docs/FAQ.html : several JVM instances
///         may run at once, each its own set of warehouses.
///   [pgc] HotSpot GC tuning guide (Java 8), parallel collector,
///         https://docs.oracle.com/javase/8/docs/technotes/guides/vm/gctuning/parallel.html :
///         young collections stop the world and run on N GC threads for N hardware threads up
///         to 8, about 5/8 of N above (gc.hpp has the exact rule).
///   [numa] JEP 345, https://openjdk.org/jeps/345 : the parallel collector's NUMA-aware eden
///         (-XX:+UseNUMA) is an option; the model runs without it (the default), so eden is one
///         space carved into TLABs by whichever thread asks next.
/// Per JVM (one process, one numa_group's worth of threads):
///   - per warehouse, `chunks_per_warehouse` chunks of its own data (25 MB: 13 chunks [wp]),
///     which its thread works on alone (assumed: no remote-warehouse transactions). Its objects
///     are allocated in eden by that thread, but the long-lived ones are copied into the old
///     generation by the collector's workers at their first collections [pgc], so the old
///     generation's pages are first touched by the workers: each chunk on a worker's node;
///   - a shared part every thread reads and updates (the company's item table and the like),
///     8 chunks (16 MB, assumed), built by the JVM's first thread before the others start
///     (assumed);
///   - the young generation, 16 chunks (32 MB) per warehouse (assumed; heap sizing is the
///     tester's choice), first touched TLAB by TLAB by the allocating threads: each warehouse
///     thread an equal share, on its node, in a random order. After a collection the eden is reused as it is: its
///     pages are not faulted again, so its nodes stay where that first pass put them unless
///     NUMA balancing migrates them, and a thread's next TLAB lies wherever the next free part
///     of eden is. Its accesses therefore spread over the whole young region (which is what
///     they do after the first collection; the first fill's local TLABs are not modelled).
///   Each warehouse thread's accesses: own warehouse 0.60, shared part 0.15, young 0.25
///   (assumed). Time on memory: 0.35 of a thread's time, a fifth of it streaming (assumed:
///   object graphs are walked by dependent loads).
///   Collection: each warehouse thread allocates 32 chunks (64 MB) per second of its work
///   (assumed), so a young collection comes every 16 / 32 = 0.5 s of work; it costs 0.5 ms of
///   collector work per young chunk (assumed: copying the few survivors and scanning roots),
///   shared by the JVM's ParallelGC threads (gc.hpp: 0 = HotSpot's default for its CPUs).
///   JVM j starts 2 s after JVM j-1 (assumed: multi-JVM runs launch the instances one after
///   another [faq]); its memory is first touched when it starts.
/// Throughput in ops ("bops").
inline workload specjbb(std::size_t jvms, std::size_t warehouses, double seconds = 60.0,
                        std::uint32_t chunks_per_warehouse = 13) {
  constexpr std::uint32_t shared_chunks = 8;
  constexpr std::uint32_t young_chunks_per_warehouse = 16;
  constexpr double jvm_start_gap_ms = 2000;
  workload w{"specjbb", {}, seconds, false, 0};
  for (std::size_t j = 0; j < jvms; ++j) {
    process_spec p;
    p.name = "jvm" + std::to_string(j + 1);
    p.memory_bound = 0.35;
    p.streaming = 0.2;
    p.start_ms = jvm_start_gap_ms * double(j);
    const auto n = static_cast<std::uint32_t>(warehouses);
    // Regions: 0 shared part, 1 young generation, 2 + t warehouse t's data; all one heap,
    // which HotSpot reserves as one mapping at start.
    p.regions.push_back({shared_chunks, true, shared_touch::first_thread, 0});
    p.regions.push_back({young_chunks_per_warehouse * n, true, shared_touch::allocating_threads, 0});
    for (std::uint32_t t = 0; t < n; ++t) {
      p.regions.push_back({chunks_per_warehouse, false, shared_touch::collector_threads, 0});
      p.threads.push_back({{{t + 2, 0.60}, {0, 0.15}, {1, 0.25}}});
    }
    p.gc.young_region = 1;
    p.gc.alloc_chunks_per_s = 32;
    p.gc.work_ms_per_chunk = 0.5;
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// autonuma-benchmark (Andrea Arcangeli, 2012; git.kernel.org andrea/autonuma-benchmark) as
/// its default builds have run since July 2012 (its commits 2e33cc1 and 9529d89 made
/// NO_BIND_FORCE_SAME_NODE the default for numa01 and numa01_THREAD_ALLOC): every thread
/// first bzero()s the whole of its process's 3 GiB under set_mempolicy(MPOL_BIND) to node 0
/// or 1 (the time's parity, the same for both processes; node 0 here), so all memory of both
/// processes starts on one node and NUMA balancing has to spread it. Nothing but stores to
/// memory: bandwidth-bound. Elapsed time. Its HARD_BIND builds do not force the first touch,
/// so a binding baseline's memory binding replaces it (first_touch_nodes).
namespace detail {
inline process_spec autonuma_process(std::string name) {
  process_spec p;
  p.name = std::move(name);
  p.memory_bound = 0.95;
  p.streaming = 1.0;
  p.first_touch_nodes = {0};
  return p;
}
}  // namespace detail

/// The bytes of `passes` sweeps over `chunks` 2 MiB chunks.
constexpr double sweep_bytes(double passes, double chunks) { return passes * chunks * 2.0 * 1024 * 1024; }

/// numa01: two processes, each with `threads` threads (half the CPUs) that all sweep the whole
/// of their process's 3 GiB, fifty times after the first touch (a worst case: memory shared by
/// many threads): 51 sweeps a thread. `work_per_thread_ms` above 0 replaces that run length
/// (short tests). Inverse binding moves only the first process's memory, as the benchmark's
/// INVERSE_BIND build does (process_spec::inverse_moves_memory).
inline workload numa01(std::size_t threads_per_process, std::uint32_t chunks_per_process = 1536,
                       double work_per_thread_ms = 0) {
  workload w{"numa01", {}, 3600.0, true, work_per_thread_ms};
  for (int i = 0; i < 2; ++i) {
    process_spec p = detail::autonuma_process("numa01-" + std::to_string(i + 1));
    p.regions.push_back({chunks_per_process, true});
    for (std::size_t t = 0; t < threads_per_process; ++t) p.threads.push_back({{{0, 1.0}}});
    if (work_per_thread_ms <= 0) p.work_bytes_per_thread = sweep_bytes(51, chunks_per_process);
    p.inverse_moves_memory = i == 0;
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// numa01_THREAD_ALLOC: as numa01, but after the first touch of the whole buffer (still all on
/// one node) each thread sweeps its own part, a thousand times. Every thread writes the whole
/// buffer first in every build, so under a binding (HARD_BIND, INVERSE_BIND: no forced node) a
/// thread's part lands on whichever thread's node reached each page first
/// (shared_touch::every_thread_once), not on its own.
inline workload numa01_thread_alloc(std::size_t threads_per_process, std::uint32_t chunks_per_process = 1536,
                                    double work_per_thread_ms = 0) {
  workload w{"numa01_THREAD_ALLOC", {}, 3600.0, true, work_per_thread_ms};
  const auto part = static_cast<std::uint32_t>(chunks_per_process / threads_per_process);
  for (int i = 0; i < 2; ++i) {
    process_spec p = detail::autonuma_process("numa01ta-" + std::to_string(i + 1));
    for (std::size_t t = 0; t < threads_per_process; ++t) {
      p.regions.push_back({part, false, shared_touch::every_thread_once, 0});  // one buffer
      p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
    }
    if (work_per_thread_ms <= 0) p.work_bytes_per_thread = sweep_bytes(1, chunks_per_process) + sweep_bytes(1000, part);
    p.inverse_moves_memory = i == 0;
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// numa02: one process, one thread per CPU, each bzero()ing its own part of 1 GiB 800 times.
/// Before it starts them, the main thread writes the whole 1 GiB, a node's share at a time
/// under bind(node) (its BINDMAP), which binds only in the HARD_BIND builds: unbound, all of
/// it starts on the main thread's node. Those builds bind each thread (bind_each_thread).
/// 800 sweeps a thread; `work_per_thread_ms` above 0 replaces that run length. `chunks_per_thread` 0: 1 GiB split among the threads,
/// one chunk each at least.
inline workload numa02(std::size_t threads, std::uint32_t chunks_per_thread = 0, double work_per_thread_ms = 0) {
  workload w{"numa02", {}, 3600.0, true, work_per_thread_ms};
  process_spec p = detail::autonuma_process("numa02");
  p.first_touch_nodes.clear();
  p.main_thread_touches_first = true;
  p.bind_each_thread = true;
  if (chunks_per_thread == 0) chunks_per_thread = static_cast<std::uint32_t>(std::max<std::size_t>(1, 512 / threads));
  for (std::size_t t = 0; t < threads; ++t) {
    p.regions.push_back({chunks_per_thread, false, shared_touch::any_thread, 0});  // one buffer
    p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
  }
  if (work_per_thread_ms <= 0) p.work_bytes_per_thread = sweep_bytes(800, chunks_per_thread);
  w.processes.push_back(std::move(p));
  return w;
}

/// McCalpin's STREAM (stream.c 5.10, built with OpenMP): `threads` threads, each first
/// writing then sweeping its own static slice of three arrays of `elements` doubles
/// (STREAM_ARRAY_SIZE, 10,000,000 by default). The initialising loop is itself `omp parallel
/// for`, so each slice is first touched by the thread that sweeps it. Each of the `ntimes`
/// passes (NTIMES, 10 by default) runs Copy, Scale, Add and Triad, which move 2, 2, 3 and 3
/// doubles an element as STREAM counts them; the initialisation writes 3. Elapsed time is the
/// whole run's, the initialisation included (STREAM reports each kernel's best pass).
inline workload stream(std::size_t threads, std::uint64_t elements = 10'000'000, unsigned ntimes = 10) {
  workload w{"stream", {}, 3600.0, true, 0};
  process_spec p;
  p.name = "stream";
  p.memory_bound = 0.95;  // assumed, as for autonuma-benchmark's sweeps: a loop over memory only
  p.streaming = 1.0;
  const double slice_bytes = 3.0 * 8.0 * double(elements) / double(threads);
  const auto chunks = static_cast<std::uint32_t>(std::max(1.0, std::ceil(slice_bytes / (2.0 * 1024 * 1024))));
  for (std::size_t t = 0; t < threads; ++t) {
    p.regions.push_back({chunks, false, shared_touch::any_thread, 0});  // a, b and c: static arrays, one .bss
    p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
  }
  p.work_bytes_per_thread = (3.0 + 10.0 * double(ntimes)) * 8.0 * double(elements) / double(threads);
  w.processes.push_back(std::move(p));
  return w;
}

/// An MPI job like the NAS Parallel Benchmarks' memory-bound kernels (MG's multigrid sweeps):
/// `ranks` processes of one thread each, as mpirun starts them (every rank forked from its
/// launcher, so fork placement sees them arrive one after another from one node), each first
/// touching and then sweeping its own `mib_per_rank` MiB, `sweeps` times, with a barrier after
/// every sweep (workload::barrier_steps): a rank that finishes its part of an iteration waits,
/// spinning, for the slowest. Ranks are separate processes, so they share no memory and NUMA
/// balancing forms no group of them. Not modelled: the messages' own traffic and MPICH's
/// shared-memory queues between the ranks of a node (through which the kernel would group
/// them), and the communication time itself. Elapsed time.
inline workload mpi(std::size_t ranks, std::uint32_t mib_per_rank = 1024, std::uint32_t sweeps = 100) {
  workload w{"mpi", {}, 3600.0, true, 0};
  w.barrier_steps = sweeps;
  const auto chunks = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (std::uint64_t{mib_per_rank} + 1) / 2));
  for (std::size_t r = 0; r < ranks; ++r) {
    process_spec p;
    p.name = "rank" + std::to_string(r);
    p.memory_bound = 0.8;  // assumed: a stencil's sweeps stream, with arithmetic between loads
    p.streaming = 1.0;
    p.regions.push_back({chunks, false});
    p.threads.push_back({{{0, 1.0}}});
    p.work_bytes_per_thread = sweep_bytes(sweeps, chunks);
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// make -jN: `jobs` short compiler runs, N at a time, each with private memory only.
inline workload make_j(std::size_t parallel, std::uint32_t jobs = 400, double job_work_ms = 500) {
  workload w{"make-j" + std::to_string(parallel), {}, 3600.0, true, 0};
  process_spec p;
  p.name = "make";
  p.memory_bound = 0.2;  // compilers work mostly in cache
  p.streaming = 0.3;
  p.jobs = jobs;
  p.job_work_ms = job_work_ms;
  for (std::size_t t = 0; t < parallel; ++t) {
    p.regions.push_back({2, false});
    p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
  }
  w.processes.push_back(std::move(p));
  return w;
}

}  // namespace workloads
}  // namespace numaplace::sim
