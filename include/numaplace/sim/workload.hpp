#pragma once
// Workloads as data: processes, their threads, and the memory regions each thread touches.
// Generators build the seeds' benchmarks; users can build their own the same way.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace numaplace::sim {

/// A memory region of a process, in 2 MiB chunks.
struct region {
  std::uint32_t chunks = 1;
  /// Whether chunks start out spread over the nodes of the threads that touch it (a shared
  /// heap first touched by everybody) or on the node of its first thread (private data).
  bool first_touch_by_all = false;
};

/// One thread's accesses: which regions, with what share of its memory accesses.
struct access {
  std::uint32_t region = 0;  ///< index into the process's regions
  double weight = 1.0;
};

struct thread_spec {
  std::vector<access> accesses;
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
  /// For short-lived jobs (make -j): total jobs to run, each `job_work` ms of CPU, at most
  /// `threads.size()` at once. 0 jobs: threads run for the whole simulation.
  std::uint32_t jobs = 0;
  double job_work_ms = 0;
  /// Hard binding (numactl --cpunodebind --membind): node indices; empty = unbound.
  std::vector<std::uint32_t> bind_nodes;
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
};

namespace workloads {

/// SPECjbb2005-like: `jvms` JVMs of `warehouses` threads, each thread working mostly on its
/// JVM's shared heap plus a little private data. Throughput in ops ("bops"). Java object graphs
/// are walked by dependent loads: mostly latency-bound (assumed: a third of the time on
/// memory, a fifth of it streaming).
inline workload specjbb(std::size_t jvms, std::size_t warehouses, double seconds = 60.0,
                        std::uint32_t heap_chunks_per_warehouse = 32) {
  workload w{"specjbb", {}, seconds, false, 0};
  for (std::size_t j = 0; j < jvms; ++j) {
    process_spec p;
    p.name = "jvm" + std::to_string(j + 1);
    p.memory_bound = 0.35;
    p.streaming = 0.2;
    p.regions.push_back({static_cast<std::uint32_t>(heap_chunks_per_warehouse * warehouses), true});
    for (std::size_t t = 0; t < warehouses; ++t) {
      p.regions.push_back({4, false});
      p.threads.push_back({{{0, 0.85}, {static_cast<std::uint32_t>(t + 1), 0.15}}});
    }
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// autonuma-benchmark numa01: two processes, each with `threads` threads (half the CPUs) that
/// all bzero() the whole of their process's 3 GB, once to fault it in and fifty more times (a
/// worst case: memory shared by many threads). Nothing but stores to memory: bandwidth-bound.
/// Elapsed time.
inline workload numa01(std::size_t threads_per_process, std::uint32_t chunks_per_process = 1536,
                       double work_per_thread_ms = 20000) {
  workload w{"numa01", {}, 600.0, true, work_per_thread_ms};
  for (int i = 0; i < 2; ++i) {
    process_spec p;
    p.name = "numa01-" + std::to_string(i + 1);
    p.memory_bound = 0.95;
    p.streaming = 1.0;
    p.regions.push_back({chunks_per_process, true});
    for (std::size_t t = 0; t < threads_per_process; ++t) p.threads.push_back({{{0, 1.0}}});
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// numa01_THREAD_ALLOC: as numa01, but each thread allocates and sweeps its own part.
inline workload numa01_thread_alloc(std::size_t threads_per_process, std::uint32_t chunks_per_process = 1536,
                                    double work_per_thread_ms = 20000) {
  workload w{"numa01_THREAD_ALLOC", {}, 600.0, true, work_per_thread_ms};
  for (int i = 0; i < 2; ++i) {
    process_spec p;
    p.name = "numa01ta-" + std::to_string(i + 1);
    p.memory_bound = 0.95;
    p.streaming = 1.0;
    for (std::size_t t = 0; t < threads_per_process; ++t) {
      p.regions.push_back({static_cast<std::uint32_t>(chunks_per_process / threads_per_process), false});
      p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
    }
    w.processes.push_back(std::move(p));
  }
  return w;
}

/// numa02: one process, one thread per CPU, each bzero()ing its own part of 1 GB 800 times.
/// The main thread writes all of it first, before it starts the threads, so it all starts on
/// the main thread's node. Bandwidth-bound, like numa01. Elapsed time.
inline workload numa02(std::size_t threads, std::uint32_t chunks_per_thread = 16, double work_per_thread_ms = 2000) {
  workload w{"numa02", {}, 600.0, true, work_per_thread_ms};
  process_spec p;
  p.name = "numa02";
  p.memory_bound = 0.95;
  p.streaming = 1.0;
  p.main_thread_touches_first = true;
  for (std::size_t t = 0; t < threads; ++t) {
    p.regions.push_back({chunks_per_thread, false});
    p.threads.push_back({{{static_cast<std::uint32_t>(t), 1.0}}});
  }
  w.processes.push_back(std::move(p));
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
