#pragma once
// The simulator's assumed constants, by name: the figures its workloads, cost model and machine
// costs take without a source, or derive by a rule of thumb. Each keeps its default where it is
// defined; this scales one in an experiment already built, so that a run can show how far a
// result moves when an assumption is off by a factor (numaplace sim --assume NAME=FACTOR).
//
// How a factor applies: a fraction (memory_bound, streaming, the SMT gain) is clamped to
// [0, 1]; an access share is the part of each thread's access weight that goes to the regions
// it names, clamped to [0, 1], the thread's other accesses rescaled so that its weights keep
// their sum (SPECjbb's split stays summing to 1); a count is rounded, at least 1; a latency
// ratio or loaded-latency factor scales its excess over 1, so local stays 1 and the curve
// keeps rising.

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "experiment.hpp"
#include "machine_costs.hpp"
#include "workload.hpp"

namespace numaplace::sim {

/// The costs a run of `e` charges when it has none of its own: from_slit() over the CPUs the
/// run's machine gives each node (machine.hpp: a node listing none gets default_cpus_per_node).
inline machine_costs derived_costs(const experiment& e) {
  std::vector<std::size_t> cpus;
  for (node_index i = 0; i < e.topology.node_count(); ++i) {
    const std::size_t listed = e.topology.cpus(i).size();
    cpus.push_back(!e.topology.has_cpu(i) ? 0 : listed == 0 ? e.machine.default_cpus_per_node : listed);
  }
  return from_slit(e.topology, cpus);
}

/// An experiment being scaled. Its machine costs are made concrete on first use (derived as a
/// run would derive them, so the results do not change by that alone). They count as derived
/// when it has none or has from_slit()'s, by name (made concrete by an earlier scaling, or
/// written down): the SLIT rules' assumptions hold only there.
class assumption_target {
 public:
  explicit assumption_target(experiment& e)
      : e_(e), derived_(!e.hardware || e.hardware->name == sim::derived_costs(e).name) {}

  experiment& get() const noexcept { return e_; }
  bool derived_costs() const noexcept { return derived_; }
  machine_costs& costs() {
    if (!e_.hardware) e_.hardware = sim::derived_costs(e_);
    return *e_.hardware;
  }

 private:
  experiment& e_;
  bool derived_;
};

/// One assumed constant: its name, what it is and why it is assumed, and how to scale it.
struct assumption {
  std::string_view name;
  std::string_view description;
  /// Scales the constant by `factor` in the target; false when the experiment has no such
  /// constant (a SPECjbb figure in a make run), and then nothing changed.
  bool (*apply)(assumption_target&, double factor);
};

namespace assumption_detail {

inline double fraction(double v) { return std::clamp(v, 0.0, 1.0); }

inline std::uint32_t count(std::uint32_t n, double factor) {
  const double scaled = std::round(double(n) * factor);
  return static_cast<std::uint32_t>(std::clamp(scaled, 1.0, double(std::numeric_limits<std::uint32_t>::max())));
}

// The latency or queueing excess over 1 times `factor`, at most `cap`.
inline double excess(double v, double factor, double cap = std::numeric_limits<double>::infinity()) {
  return std::min(1.0 + (v - 1.0) * factor, std::max(v, cap));
}

// Workloads by the name their generator (workload.hpp) gives them.
inline bool is_specjbb(const workload& w) { return w.name == "specjbb"; }
inline bool is_autonuma(const workload& w) {
  return w.name == "numa01" || w.name == "numa01_THREAD_ALLOC" || w.name == "numa02";
}
inline bool is_make(const workload& w) { return w.name.starts_with("make-j"); }
inline bool is_stream(const workload& w) { return w.name == "stream"; }
inline bool is_mpi(const workload& w) { return w.name == "mpi"; }

// `fn` on every process of the target's workload when `kind` accepts the workload.
template <class Fn>
bool each_process(assumption_target& t, bool (*kind)(const workload&), Fn fn) {
  workload& w = t.get().load;
  if (!kind(w) || w.processes.empty()) return false;
  for (auto& p : w.processes) fn(p);
  return true;
}

// SPECjbb's regions (workloads::specjbb): the young generation is the collector's, the shared
// part the one region its first thread builds, the rest warehouses.
inline bool is_young(const process_spec& p, std::uint32_t r) { return r == p.gc.young_region; }
inline bool is_shared(const process_spec& p, std::uint32_t r) {
  return r < p.regions.size() && p.regions[r].touch == shared_touch::first_thread;
}

// Scales the share of each thread's access weight that goes to the regions `picked` accepts,
// clamped to all of it; the thread's other accesses share the rest as they did.
inline void scale_share(process_spec& p, double factor, bool (*picked)(const process_spec&, std::uint32_t)) {
  for (auto& t : p.threads) {
    double total = 0, in = 0;
    for (const auto& a : t.accesses) {
      total += a.weight;
      if (picked(p, a.region)) in += a.weight;
    }
    const double rest = total - in;
    if (in <= 0 || rest <= 0) continue;  // nothing to scale, or nothing to take it from
    const double scaled = fraction(in / total * factor) * total;
    for (auto& a : t.accesses) a.weight *= picked(p, a.region) ? scaled / in : (total - scaled) / rest;
  }
}

// The regions `picked` accepts, their chunk counts scaled.
inline void scale_chunks(process_spec& p, double factor, bool (*picked)(const process_spec&, std::uint32_t)) {
  for (std::uint32_t r = 0; r < p.regions.size(); ++r) {
    if (picked(p, r)) p.regions[r].chunks = count(p.regions[r].chunks, factor);
  }
}

inline bool specjbb(assumption_target& t, void (*fn)(process_spec&, double), double factor) {
  return each_process(t, is_specjbb, [&](process_spec& p) { fn(p, factor); });
}

// "specjbb.memory_bound x2", the factor as short as it reads back.
inline std::string scaling_text(std::string_view name, double factor) {
  std::array<char, 32> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), factor).ptr;
  return std::string(name) + " x" + std::string(digits.data(), end);
}

}  // namespace assumption_detail

/// Every assumed constant, workloads first, then the cost model, then the machine's costs.
inline std::span<const assumption> assumptions() {
  using namespace assumption_detail;
  using target = assumption_target;
  static constexpr std::array table{
      // SPECjbb2005 (workloads::specjbb): every figure its documents do not give.
      assumption{"specjbb.memory_bound", "share of a warehouse thread's time on memory, 0.35 (assumed)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { p.memory_bound = fraction(p.memory_bound * x); }, f);
                 }},
      assumption{"specjbb.streaming", "share of that memory time streaming, 0.2 (assumed: object graphs are walked)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { p.streaming = fraction(p.streaming * x); }, f);
                 }},
      assumption{"specjbb.shared_share", "share of a thread's accesses on the shared part, 0.15 (assumed; the rest rescaled)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { scale_share(p, x, is_shared); }, f);
                 }},
      assumption{"specjbb.young_share", "share of a thread's accesses on the young generation, 0.25 (assumed; the rest rescaled)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { scale_share(p, x, is_young); }, f);
                 }},
      assumption{"specjbb.shared_chunks", "size of the shared part, 8 chunks (assumed)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { scale_chunks(p, x, is_shared); }, f);
                 }},
      assumption{"specjbb.young_chunks", "young generation, 16 chunks per warehouse (assumed: heap sizing is the tester's)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { scale_chunks(p, x, is_young); }, f);
                 }},
      assumption{"specjbb.alloc_rate", "chunks a warehouse thread allocates per second of work, 32 (assumed)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { p.gc.alloc_chunks_per_s *= x; }, f);
                 }},
      assumption{"specjbb.gc_work", "young collection work per chunk, 0.5 ms (assumed: few survivors)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { p.gc.work_ms_per_chunk *= x; }, f);
                 }},
      assumption{"specjbb.start_gap", "time between one JVM's start and the next's, 2 s (assumed)",
                 [](target& t, double f) {
                   return specjbb(t, [](process_spec& p, double x) { p.start_ms *= x; }, f);
                 }},
      // autonuma-benchmark numa01 and numa02 (their sources give what they do and how long;
      // not how memory-bound a bzero() is).
      assumption{"autonuma.memory_bound", "share of a numa01/numa02 thread's time on memory, 0.95 (assumed: bzero only)",
                 [](target& t, double f) {
                   return each_process(t, is_autonuma, [f](process_spec& p) { p.memory_bound = fraction(p.memory_bound * f); });
                 }},
      // STREAM (its source gives what it moves; not how memory-bound a kernel's loop is).
      assumption{"stream.memory_bound", "share of a STREAM thread's time on memory, 0.95 (assumed: a loop over memory only)",
                 [](target& t, double f) {
                   return each_process(t, is_stream, [f](process_spec& p) { p.memory_bound = fraction(p.memory_bound * f); });
                 }},
      // The MPI job (NAS-like ranks sweeping their own part of a grid).
      assumption{"mpi.memory_bound", "share of an MPI rank's time on memory, 0.8 (assumed: stencil sweeps with arithmetic between loads)",
                 [](target& t, double f) {
                   return each_process(t, is_mpi, [f](process_spec& p) { p.memory_bound = fraction(p.memory_bound * f); });
                 }},
      // make -jN.
      assumption{"make.memory_bound", "share of a compiler job's time on memory, 0.2 (assumed: mostly in cache)",
                 [](target& t, double f) {
                   return each_process(t, is_make, [f](process_spec& p) { p.memory_bound = fraction(p.memory_bound * f); });
                 }},
      assumption{"make.streaming", "share of that memory time streaming, 0.3 (assumed)",
                 [](target& t, double f) {
                   return each_process(t, is_make, [f](process_spec& p) { p.streaming = fraction(p.streaming * f); });
                 }},
      assumption{"make.job_work", "CPU work per compiler job, 500 ms (assumed)",
                 [](target& t, double f) { return each_process(t, is_make, [f](process_spec& p) { p.job_work_ms *= f; }); }},
      // The cost model (cost_model.hpp).
      assumption{"smt.gain", "throughput each busy SMT sibling adds to its core, 0.25 (Intel's for 2; assumed for 4)",
                 [](target& t, double f) {
                   double& gain = t.get().costs.smt_gain_per_sibling;
                   gain = fraction(gain * f);
                   return true;
                 }},
      assumption{"task_move_cost", "work a task loses moving to another node, 2 ms (derived: an LLC refilled)",
                 [](target& t, double f) {
                   t.get().costs.task_move_cost_ms *= f;
                   return true;
                 }},
      assumption{"page_migrate_cost", "cost of migrating one 2 MiB chunk, 0.5 ms (derived: copied at ~4 GB/s)",
                 [](target& t, double f) {
                   t.get().costs.page_migrate_cost_ms *= f;
                   return true;
                 }},
      assumption{"hinting_fault_cost", "system time of one NUMA hinting fault, 2 us (assumed)",
                 [](target& t, double f) {
                   t.get().costs.hinting_fault_cost_ms *= f;
                   return true;
                 }},
      assumption{"interleave_chunks", "chunks an interleave policy moves per second, 256 (assumed: a bounded copy)",
                 [](target& t, double f) {
                   unsigned& chunks = t.get().costs.interleave_chunks;
                   chunks = count(chunks, f);
                   return true;
                 }},
      // Costs derived from SLIT (from_slit), for machines without costs of their own.
      assumption{"slit.latency_share", "derived costs: share of SLIT's remote excess taken as latency, 1/2 (at most all)",
                 [](target& t, double f) {
                   if (!t.derived_costs()) return false;
                   const auto& topo = t.get().topology;
                   machine_costs& c = t.costs();
                   const std::size_t n = c.node_count();
                   for (node_index a = 0; a < n; ++a) {
                     for (node_index b = 0; b < n; ++b) {
                       const double slit = double(topo.distance(a, b)) / double(topo.local_distance());
                       c.latency_ratio[a * n + b] = excess(c.latency_ratio[a * n + b], f, slit);
                     }
                   }
                   return true;
                 }},
      assumption{"slit.node_bandwidth", "derived costs: a node's memory bandwidth, CPUs/2 x core_stream (assumed)",
                 [](target& t, double f) {
                   if (!t.derived_costs()) return false;
                   for (double& gbs : t.costs().node_bandwidth_gbs) gbs *= f;
                   return true;
                 }},
      assumption{"slit.link_bandwidth", "derived costs: each link's bandwidth, half the smaller node's (assumed)",
                 [](target& t, double f) {
                   if (!t.derived_costs() || t.costs().links.empty()) return false;
                   for (auto& link : t.costs().links) link.gb_per_s *= f;
                   return true;
                 }},
      // A machine's costs: the presets' and --costs files' (many derived: each preset's
      // `assumption` says which); the last three also hold for derived costs.
      assumption{"machine.remote_latency", "given costs: each remote ratio's excess over local (derived or assumed on seed000, seed001, seed003)",
                 [](target& t, double f) {
                   if (t.derived_costs()) return false;
                   for (double& r : t.costs().latency_ratio) r = excess(r, f);
                   return true;
                 }},
      assumption{"machine.node_bandwidth", "given costs: each node's memory bandwidth (several presets' a share of a peak, assumed)",
                 [](target& t, double f) {
                   if (t.derived_costs()) return false;
                   for (double& gbs : t.costs().node_bandwidth_gbs) gbs *= f;
                   return true;
                 }},
      assumption{"machine.link_bandwidth", "each interconnect link's bandwidth (assumed: DL980 node controllers, Opteron links)",
                 [](target& t, double f) {
                   if (t.derived_costs() || t.costs().links.empty()) return false;
                   for (auto& link : t.costs().links) link.gb_per_s *= f;
                   return true;
                 }},
      assumption{"machine.core_stream", "what one core streams alone (assumed on several presets; derived: 10 GB/s)",
                 [](target& t, double f) {
                   t.costs().core_stream_gbs *= f;
                   return true;
                 }},
      assumption{"machine.local_latency", "unloaded local latency (assumed on several presets; derived: 100 ns)",
                 [](target& t, double f) {
                   t.costs().local_latency_ns *= f;
                   return true;
                 }},
      assumption{"machine.loaded_latency", "the loaded-latency curve's rise (one Skylake-SP's, assumed for all)",
                 [](target& t, double f) {
                   for (auto& point : t.costs().loaded.points) point.second = excess(point.second, f);
                   return true;
                 }},
  };
  return table;
}

/// The assumption called `name`, or nullptr.
inline const assumption* find_assumption(std::string_view name) {
  for (const auto& a : assumptions()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

/// The factors a scaling takes: off by up to a thousand either way.
inline constexpr double min_assumption_factor = 1e-3;
inline constexpr double max_assumption_factor = 1e3;

/// One assumption scaled by a factor.
struct assumption_scaling {
  std::string name;
  double factor = 1.0;
};

/// Scales each assumption in `e`, in order; for each, whether `e` holds it. Throws
/// std::invalid_argument naming the scaling for an unknown name, a factor out of range, or
/// machine costs scaled past what validate() accepts.
inline std::vector<bool> scale_assumptions(experiment& e, std::span<const assumption_scaling> scalings) {
  assumption_target target(e);
  std::vector<bool> held;
  for (const auto& s : scalings) {
    const assumption* a = find_assumption(s.name);
    if (a == nullptr) throw std::invalid_argument("unknown assumption '" + s.name + "'");
    if (!(s.factor >= min_assumption_factor && s.factor <= max_assumption_factor)) {
      throw std::invalid_argument(assumption_detail::scaling_text(s.name, s.factor) +
                                  ": the factor is not in [0.001, 1000]");
    }
    held.push_back(a->apply(target, s.factor));
    if (e.hardware) {
      complete_routes(*e.hardware);
      if (auto bad = validate(*e.hardware, e.topology.node_count())) {
        throw std::invalid_argument(assumption_detail::scaling_text(s.name, s.factor) + ": machine costs '" +
                                    e.hardware->name + "': " + *bad);
      }
    }
  }
  return held;
}

/// One assumption scaled in `e`: whether `e` holds it.
inline bool scale_assumption(experiment& e, std::string_view name, double factor) {
  const assumption_scaling s{std::string(name), factor};
  return scale_assumptions(e, std::span(&s, 1)).front();
}

}  // namespace numaplace::sim
