// numaplace-oracle-workload: autonuma-benchmark-like workloads for a QEMU guest, and a
// sampler that records what the guest kernel's NUMA balancing thinks of every thread.
// Built static (the guest has no C library); needs nothing of numaplace.
//
//   numaplace-oracle-workload numa01|numa02|jvm [--threads T] [--mib M] [--processes P]
//                             [--private-mib N] [--seconds S] [--interval-ms I] [--out DIR]
//
// numa01: P processes (2), each with T unpinned threads that all sweep the process's M MiB
//         (48; first touched by the process's main thread): memory shared by all its threads.
//         Needs P * M MiB.
// numa02: one process with T unpinned threads, each sweeping its own M MiB (12) slice of one
//         buffer that the main thread first touched: private memory per thread. Needs T * M MiB.
// jvm:    JVM-like. P processes (2), each with T unpinned threads, a shared heap of M MiB (32)
//         first touched by the process's main thread, and per thread N MiB (4) of private
//         memory that the thread itself allocates and first touches. Each thread loops: three
//         sweeps of its private memory, then one sweep of a quarter of the heap (which quarter:
//         a per-thread xorshift64 draw each round). Needs P * (M + T * N) MiB.
// --processes (at most 64) is for numa01 and jvm, --private-mib for jvm only. Thread stacks and
// the program itself add well under 1 MiB per thread to the figures above. The memory is first
// touched after the fork, while the sampler runs, so the first snapshot may see it half touched.
//
// The calling process is the sampler: it forks the workload processes, and every I ms
// (1000) copies /proc/PID/task/TID/sched and the CPU the thread last ran on (stat field 39)
// of every thread of every workload process into DIR/snapshots.txt:
//
//   snapshot SEQ MS PROCESS PID TID CPU
//   <the sched file, verbatim>
//   end
//
// MS is whole milliseconds of CLOCK_MONOTONIC since the sampler's start, taken just before the
// snapshot's files are read (so it is truncated: the snapshot was read at MS to MS + 1 ms).
//
// Every other snapshot it appends each process's /proc/PID/numa_maps to
// DIR/numa_maps_history.txt ("at SEQ MS PROCESS", the file, "end").
// After S seconds (40) it writes DIR/numa_maps.PROCESS (the process's /proc/PID/numa_maps),
// DIR/final.txt ("task PROCESS PID TID CPU" per thread), DIR/cpulist.NODE for every node and
// DIR/workload.txt, then kills the workload. workload.txt has one "key value" line each:
// workload, threads, mib, seconds, interval_ms, processes, private_mib (jvm only) and
// start_mono_ns, the CLOCK_MONOTONIC time in nanoseconds at which MS is 0 (a snapshot's
// monotonic time is start_mono_ns + MS * 1000000, to within 1 ms, the clock tracefs uses with
// trace_clock=mono). Exits 0 when all went to plan, else 1 with a message (a bad argument, a
// workload process that died, an unwritable DIR, no snapshots).
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::string workload;
  unsigned threads = 4;
  std::size_t mib = 0;          // 0: the workload's default
  unsigned processes = 0;       // 0: the workload's default (numa01 and jvm only)
  std::size_t private_mib = 0;  // 0: the workload's default (jvm only)
  unsigned seconds = 40;
  unsigned interval_ms = 1000;
  std::string out = ".";
};

[[noreturn]] void die(const std::string& what) {
  std::cerr << "numaplace-oracle-workload: " << what << '\n';
  std::exit(1);
}

unsigned to_unsigned(const std::string& flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long v = std::strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v == 0 || v > 1000000)
    die(flag + " needs a positive number, not '" + text + "'");
  return static_cast<unsigned>(v);
}

options parse(int argc, char** argv) {
  options o;
  if (argc < 2)
    die("usage: numaplace-oracle-workload numa01|numa02|jvm [--threads T] [--mib M] [--processes P] [--private-mib N] "
        "[--seconds S] [--interval-ms I] [--out DIR]");
  o.workload = argv[1];
  if (o.workload != "numa01" && o.workload != "numa02" && o.workload != "jvm")
    die("unknown workload '" + o.workload + "' (numa01, numa02, jvm)");
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) die(flag + " needs a value");
    const char* value = argv[++i];
    if (flag == "--threads")
      o.threads = to_unsigned(flag, value);
    else if (flag == "--mib")
      o.mib = to_unsigned(flag, value);
    else if (flag == "--processes")
      o.processes = to_unsigned(flag, value);
    else if (flag == "--private-mib")
      o.private_mib = to_unsigned(flag, value);
    else if (flag == "--seconds")
      o.seconds = to_unsigned(flag, value);
    else if (flag == "--interval-ms")
      o.interval_ms = to_unsigned(flag, value);
    else if (flag == "--out")
      o.out = value;
    else
      die("unknown option '" + flag + "'");
  }
  if (o.processes != 0 && o.workload == "numa02") die("--processes is for numa01 and jvm (numa02 is one process)");
  if (o.private_mib != 0 && o.workload != "jvm") die("--private-mib is for jvm only");
  if (o.processes > 64) die("--processes " + std::to_string(o.processes) + " is too many (at most 64)");
  if (o.mib == 0) o.mib = o.workload == "numa01" ? 48 : o.workload == "jvm" ? 32 : 12;
  if (o.processes == 0) o.processes = o.workload == "numa02" ? 1 : 2;
  if (o.workload == "jvm" && o.private_mib == 0) o.private_mib = 4;
  return o;
}

// ---- the workload processes ---------------------------------------------------------------

// One sweep over [begin, end): per 4 KiB page, reads eight words and writes one, so every page
// is touched (a NUMA hinting fault whenever the kernel has unmapped it). Relaxed atomics: plain
// loads and stores on x86, and no data race between threads that sweep the same memory.
std::uint64_t sweep(std::uint64_t* begin, std::uint64_t* end, std::uint64_t stamp) {
  constexpr std::size_t words_per_page = 4096 / sizeof(std::uint64_t);
  std::uint64_t sum = 0;
  for (std::uint64_t* page = begin; page + 8 <= end; page += words_per_page) {
    for (std::size_t w = 0; w < 8; ++w) sum += std::atomic_ref<std::uint64_t>(page[w]).load(std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(page[stamp % 8]).store(sum + stamp, std::memory_order_relaxed);
  }
  return sum;
}

// First touch: every page on the node of the calling thread's CPU.
std::uint64_t* allocate_and_touch(std::size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap of " + std::to_string(bytes >> 20) + " MiB failed: " + std::strerror(errno));
  std::memset(p, 1, bytes);
  return static_cast<std::uint64_t*>(p);
}

// Runs in a forked child until the sampler kills it. Each thread sweeps [slice * t, ...).
[[noreturn]] void run_process(unsigned threads, std::size_t bytes, bool private_slices) {
  std::uint64_t* memory = allocate_and_touch(bytes);
  const std::size_t words = bytes / sizeof(std::uint64_t);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      std::uint64_t* begin = private_slices ? memory + words / threads * t : memory;
      std::uint64_t* end = private_slices ? begin + words / threads : memory + words;
      std::uint64_t stamp = t;
      for (;;) stamp += sweep(begin, end, stamp) | 1;
    });
  }
  for (auto& th : pool) th.join();  // never: the threads sweep until SIGKILL
  std::_Exit(0);
}

// jvm: runs in a forked child until the sampler kills it. The main thread first touches the
// heap; each thread allocates and first touches its own private memory, then loops: three
// sweeps of the private memory, one sweep of the heap quarter that an xorshift64 draw picks.
[[noreturn]] void run_jvm_process(unsigned threads, std::size_t heap_bytes, std::size_t private_bytes) {
  std::uint64_t* heap = allocate_and_touch(heap_bytes);
  const std::size_t quarter = heap_bytes / sizeof(std::uint64_t) / 4;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      std::uint64_t* mine = allocate_and_touch(private_bytes);
      std::uint64_t* mine_end = mine + private_bytes / sizeof(std::uint64_t);
      std::uint64_t draw = 0x9e3779b97f4a7c15ULL * (t + 1);
      std::uint64_t stamp = t;
      for (;;) {
        for (int i = 0; i < 3; ++i) stamp += sweep(mine, mine_end, stamp) | 1;
        draw ^= draw << 13;
        draw ^= draw >> 7;
        draw ^= draw << 17;
        std::uint64_t* begin = heap + quarter * (draw % 4);
        stamp += sweep(begin, begin + quarter, stamp) | 1;
      }
    });
  }
  for (auto& th : pool) th.join();  // never: the threads sweep until SIGKILL
  std::_Exit(0);
}

// ---- the sampler ------------------------------------------------------------------------------

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream in(path);
  if (!in) {
    ok = false;
    return {};
  }
  std::ostringstream s;
  s << in.rdbuf();
  ok = static_cast<bool>(in) || in.eof();
  return s.str();
}

std::vector<long> tids_of(pid_t pid) {
  std::vector<long> tids;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return tids;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long tid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0') tids.push_back(tid);
  }
  closedir(d);
  std::sort(tids.begin(), tids.end());
  return tids;
}

// Field 39 of /proc/PID/task/TID/stat, the CPU the thread last ran on; -1 if unreadable.
long last_cpu(pid_t pid, long tid) {
  bool ok = true;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat", ok);
  const auto paren = stat.rfind(')');
  if (!ok || paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 1));
  std::string f;
  for (int field = 3; field <= 39; ++field) {
    if (!(fields >> f)) return -1;
  }
  return std::strtol(f.c_str(), nullptr, 10);
}

struct worker {
  unsigned index;
  pid_t pid;
};

void check_alive(const std::vector<worker>& workers) {
  for (const auto& w : workers) {
    int status = 0;
    const pid_t r = waitpid(w.pid, &status, WNOHANG);
    if (r == w.pid) {
      die("workload process " + std::to_string(w.index) + " (pid " + std::to_string(w.pid) + ") ended early, status " +
          std::to_string(status));
    }
  }
}

// CLOCK_MONOTONIC in nanoseconds: the clock of tracefs's trace_clock=mono.
std::int64_t mono_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) die(std::string("clock_gettime failed: ") + std::strerror(errno));
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) die("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const std::size_t bytes = o.mib << 20;

  std::vector<worker> workers;
  const auto kill_all = [&] {
    for (const auto& w : workers) kill(w.pid, SIGKILL);
    for (const auto& w : workers) waitpid(w.pid, nullptr, 0);
  };
  for (unsigned p = 0; p < o.processes; ++p) {
    const pid_t pid = fork();
    if (pid < 0) {
      const std::string why = std::strerror(errno);
      kill_all();
      die("fork failed: " + why);
    }
    if (pid == 0) {
      if (o.workload == "jvm") run_jvm_process(o.threads, bytes, o.private_mib << 20);
      if (o.workload == "numa01") run_process(o.threads, bytes, false);
      run_process(o.threads, bytes * o.threads, true);
    }
    workers.push_back({p, pid});
  }

  std::ofstream snapshots(o.out + "/snapshots.txt");
  std::ofstream maps_history(o.out + "/numa_maps_history.txt");
  if (!snapshots) {
    kill_all();
    die("cannot write " + o.out + "/snapshots.txt");
  }
  const auto start = clock_type::now();
  const std::int64_t start_mono_ns = mono_ns();
  const auto deadline = start + std::chrono::seconds(o.seconds);
  unsigned seq = 0;
  std::size_t records = 0;
  for (auto next = start + std::chrono::milliseconds(o.interval_ms); next <= deadline;
       next += std::chrono::milliseconds(o.interval_ms)) {
    std::this_thread::sleep_until(next);
    check_alive(workers);
    const std::int64_t ms = (mono_ns() - start_mono_ns) / 1000000;
    ++seq;
    for (const auto& w : workers) {
      for (const long tid : tids_of(w.pid)) {
        bool ok = true;
        const std::string base = "/proc/" + std::to_string(w.pid) + "/task/" + std::to_string(tid);
        const std::string sched = read_file(base + "/sched", ok);
        if (!ok || sched.empty()) continue;  // the thread just ended
        snapshots << "snapshot " << seq << ' ' << ms << ' ' << w.index << ' ' << w.pid << ' ' << tid << ' '
                  << last_cpu(w.pid, tid) << '\n'
                  << sched << (sched.back() == '\n' ? "" : "\n") << "end\n";
        ++records;
      }
      // Where the process's memory is, every other snapshot: "at SEQ MS", the numa_maps, "end".
      if (seq % 2 == 0) {
        bool ok = true;
        const std::string maps = read_file("/proc/" + std::to_string(w.pid) + "/numa_maps", ok);
        if (ok) maps_history << "at " << seq << ' ' << ms << ' ' << w.index << '\n' << maps << "end\n";
      }
    }
    snapshots.flush();
    maps_history.flush();
  }
  check_alive(workers);

  std::string final_text;
  for (const auto& w : workers) {
    bool ok = true;
    const std::string maps = read_file("/proc/" + std::to_string(w.pid) + "/numa_maps", ok);
    if (!ok) die("cannot read /proc/" + std::to_string(w.pid) + "/numa_maps");
    write_file(o.out + "/numa_maps." + std::to_string(w.index), maps);
    for (const long tid : tids_of(w.pid)) {
      final_text += "task " + std::to_string(w.index) + ' ' + std::to_string(w.pid) + ' ' + std::to_string(tid) + ' ' +
                    std::to_string(last_cpu(w.pid, tid)) + '\n';
    }
  }
  kill_all();
  write_file(o.out + "/final.txt", final_text);
  std::string workload_text = "workload " + o.workload + "\nthreads " + std::to_string(o.threads) + "\nmib " +
                              std::to_string(o.mib) + "\nseconds " + std::to_string(o.seconds) + "\ninterval_ms " +
                              std::to_string(o.interval_ms) + "\nprocesses " + std::to_string(o.processes) + "\n";
  if (o.workload == "jvm") workload_text += "private_mib " + std::to_string(o.private_mib) + "\n";
  workload_text += "start_mono_ns " + std::to_string(start_mono_ns) + "\n";
  write_file(o.out + "/workload.txt", workload_text);
  for (unsigned node = 0;; ++node) {
    bool ok = true;
    const std::string list = read_file("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist", ok);
    if (!ok) break;
    write_file(o.out + "/cpulist." + std::to_string(node), list);
  }
  if (!snapshots || records == 0) die("no snapshots were written");
  std::cout << o.workload << ": " << seq << " snapshots, " << records << " thread records in " << o.out << '\n';
  return 0;
}
