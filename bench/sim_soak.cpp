// numaplace_sim_soak: the simulator under a long run. One simulation is stepped in small
// increments; after every step the engine's invariants are checked (every live task on exactly
// one CPU, every chunk counted once, every numa_group equal to the sum of its live members, no
// counter wrapped), each group also after every window that changes it (verify_groups), and
// the resident set is sampled (/proc/self/statm). At the
// end the run must have done at least --min-events simulated events (run_result::events:
// task-ticks plus hinting faults) and its memory must be flat: the resident set after warm-up
// and at every later step within --margin-mib of each other.
//
// Usage: numaplace_sim_soak [--seconds S] [--step-ms MS] [--warmup FRACTION] [--margin-mib M]
//                           [--min-events N] [--stack NAME] [--workload specjbb|make] [--seed N]
//                           [--snapshot-s S]
//   defaults: 650 simulated seconds of SPECjbb 2 JVMs x 80 warehouses on seed 000's 8-node
//   machine under linux-modern (about 10.5 million events), steps of 100 ms, warm-up the first 10 %,
//   margin 1 MiB, at least 10 000 000 events.
//   --workload make: make -j8 with endless short jobs (500 per 100 simulated seconds) on the
//   same machine: job turnover.
//   --snapshot-s: seconds between the occupancy snapshots a run keeps for its result (default 1,
//   as every run; each costs about 170 bytes here, which a soak of thousands of simulated
//   seconds sees as growth: a larger interval shows the rest is flat).
// Exit status: 0 when all held, 1 on an invariant violation, 2 on memory growth or too few
// events, 64 on bad arguments. Under AddressSanitizer (whose quarantine holds freed memory)
// the growth is reported but not enforced.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include <numaplace/sim/engine.hpp>
#include <numaplace/sim/experiment.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/presets.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define NUMAPLACE_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NUMAPLACE_SOAK_ASAN 1
#endif
#endif
#ifndef NUMAPLACE_SOAK_ASAN
#define NUMAPLACE_SOAK_ASAN 0
#endif

namespace {

using namespace numaplace;
using namespace numaplace::sim;

struct options {
  double seconds = 650;
  double step_ms = 100;
  double warmup = 0.1;
  double margin_mib = 1.0;
  std::uint64_t min_events = 10'000'000;
  std::string stack{default_stack_name};
  std::string workload = "specjbb";
  std::uint64_t seed = 1;
  double snapshot_s = 1.0;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "numaplace_sim_soak: %s\n", why.c_str());
  std::exit(64);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(std::string(a) + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--seconds") o.seconds = std::stod(value());
      else if (a == "--step-ms") o.step_ms = std::stod(value());
      else if (a == "--warmup") o.warmup = std::stod(value());
      else if (a == "--margin-mib") o.margin_mib = std::stod(value());
      else if (a == "--min-events") o.min_events = std::stoull(value());
      else if (a == "--stack") o.stack = value();
      else if (a == "--workload") o.workload = value();
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--snapshot-s") o.snapshot_s = std::stod(value());
      else usage("unknown argument '" + std::string(a) + "'");
    } catch (const std::logic_error&) {
      usage("bad value for " + std::string(a));
    }
  }
  if (!(o.seconds > 0) || !(o.step_ms > 0) || !(o.warmup >= 0 && o.warmup < 1) || !(o.snapshot_s > 0)) {
    usage("seconds, step and snapshot interval must be positive, warmup in [0, 1)");
  }
  if (o.workload != "specjbb" && o.workload != "make") usage("--workload is specjbb or make");
  return o;
}

// Resident set in bytes (second field of /proc/self/statm, in pages).
std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

double mib(std::uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

workload make_workload(const options& o) {
  if (o.workload == "make") {
    // Jobs of 100 ms on 8 at a time: about 80 finish per simulated second; enough for the run.
    workload w = workloads::make_j(8, static_cast<std::uint32_t>(o.seconds * 100) + 8, 100);
    w.seconds = o.seconds;
    return w;
  }
  return workloads::specjbb(2, 80, o.seconds);
}

template <class Engine>
int soak(Engine& e, const options& o, const workload& w) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto steps = static_cast<std::uint64_t>(std::ceil(w.seconds * 1000.0 / o.step_ms));
  const auto warm_steps = static_cast<std::uint64_t>(double(steps) * o.warmup);
  std::uint64_t warm_rss = 0, max_rss = 0, min_rss = ~std::uint64_t{0}, last_rss = 0;
  std::uint64_t worst_step = 0;
  for (std::uint64_t s = 0; s < steps; ++s) {
    e.step(o.step_ms);
    const std::string broken = e.check_invariants();
    if (!broken.empty()) {
      std::printf("FAIL: invariant broken after step %llu (%.1f simulated s): %s\n", static_cast<unsigned long long>(s + 1),
                  double(s + 1) * o.step_ms / 1000.0, broken.c_str());
      return 1;
    }
    last_rss = resident_bytes();
    if (s + 1 == std::max<std::uint64_t>(warm_steps, 1)) warm_rss = last_rss;
    if (s + 1 > warm_steps) {
      if (last_rss > max_rss) {
        max_rss = last_rss;
        worst_step = s + 1;
      }
      min_rss = std::min(min_rss, last_rss);
    }
  }
  const run_result r = e.run();
  const std::string broken = e.check_invariants();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("soak: %s under %s, %.0f simulated s in %llu steps of %g ms, seed %llu\n", w.name.c_str(), o.stack.c_str(),
              r.simulated_seconds, static_cast<unsigned long long>(steps), o.step_ms, static_cast<unsigned long long>(o.seed));
  std::printf("soak: %llu events (%llu ticks) in %.2f s wall: %.3g events/s, invariants checked after every step\n",
              static_cast<unsigned long long>(r.events), static_cast<unsigned long long>(r.ticks), wall, double(r.events) / wall);
  std::printf("soak: resident set after warm-up (step %llu) %.2f MiB; afterwards min %.2f, max %.2f (step %llu), end %.2f MiB\n",
              static_cast<unsigned long long>(std::max<std::uint64_t>(warm_steps, 1)), mib(warm_rss), mib(min_rss), mib(max_rss),
              static_cast<unsigned long long>(worst_step), mib(last_rss));
  if (!broken.empty()) {
    std::printf("FAIL: invariant broken at the end: %s\n", broken.c_str());
    return 1;
  }
  int status = 0;
  const double growth = mib(max_rss) - mib(warm_rss);
  if (growth > o.margin_mib) {
    std::printf("%s: memory grew by %.2f MiB after warm-up (margin %.2f MiB)\n", NUMAPLACE_SOAK_ASAN ? "note (AddressSanitizer, not enforced)" : "FAIL", growth,
                o.margin_mib);
    if (!NUMAPLACE_SOAK_ASAN) status = 2;
  } else {
    std::printf("soak: memory flat: %+.2f MiB after warm-up (margin %.2f MiB)\n", growth, o.margin_mib);
  }
  if (r.events < o.min_events) {
    std::printf("FAIL: %llu events, fewer than the %llu asked for\n", static_cast<unsigned long long>(r.events),
                static_cast<unsigned long long>(o.min_events));
    status = 2;
  }
  if (status == 0) std::printf("soak: OK\n");
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  const dynamic_topology t = presets::find("seed000-8node")->build();
  const workload w = make_workload(o);
  run_options ro;
  ro.seed = o.seed;
  ro.snapshot_interval_s = o.snapshot_s;
  ro.verify_groups = true;
  try {
    if (is_baseline(o.stack)) {
      if (binds_to_nodes(o.stack)) usage(o.stack + " needs bind_nodes; soak a stack, no-balancing or linux-2.5");
      ro.mode = balancing::none;  // linux-modern's kernel with NUMA balancing off
      if (o.stack == o1_scheduler_name) ro.scheduler = cpu_scheduler::o1;  // or the O(1) scheduler
      int status = -1;
      with_named_placement(default_stack_name, t, [&](const auto& pl) {
        engine<std::decay_t<decltype(pl)>> e(t, &pl, w, ro);
        status = soak(e, o, w);
      });
      return status;
    }
    int status = -1;
    const bool found = with_named_placement(o.stack, t, [&](const auto& pl) {
      engine<std::decay_t<decltype(pl)>> e(t, &pl, w, ro);
      status = soak(e, o, w);
    });
    if (!found) usage("unknown stack '" + o.stack + "'");
    return status;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "numaplace_sim_soak: %s\n", ex.what());
    return 1;
  }
}
