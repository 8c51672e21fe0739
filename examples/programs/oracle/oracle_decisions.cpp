// numaplace-oracle-decisions: the guest kernel's decisions, predicted one by one. Reads what
// examples/programs/oracle/oracle-trace recorded in a QEMU guest (trace.txt: every sched_setnuma with the
// task's and its group's faults at that moment, every task_numa_find_cpu with the node
// statistics the kernel computed and every CPU's runqueue, every task_numa_assign, and the
// sched_move/swap/stick_numa outcomes) plus the workload's snapshots, and asks the library:
//
//   placement  every preferred node set by task_numa_placement(): preferred_node() on the
//              faults captured at the set;
//   migrate    every task_numa_migrate() outcome (move to a node, swap, stick) and the
//              preferred node it leaves: the stack's task_migration().decide() on a view of the
//              machine rebuilt from the capture (CPU loads, running tasks) and, for the other
//              tasks, their latest captured or sampled faults;
//   weights    the kernel's taskimp/groupimp of each destination tried, against the library's
//              task_weight()/group_weight() differences.
//
// Controls, scored by the same code: "preferred node = the node the task is on" (for
// migrate: stick), and a uniformly random node with CPUs. A disagreement is "racing" when a
// task changed CPU between the event before the decision and its outcome, a destination CPU
// was in transition (it queued nothing yet was not idle when the kernel looked), or the kernel
// swapped with a task the probe did not see running on that CPU (it switched tasks meanwhile).
//
//   numaplace-oracle-decisions (--machine NAME | --file PATH) [options] DIR...
//     --stack NAME          the library stack to predict with (linux-modern); also
//                           linux-6.12, linux-7.x, linux-4.2, linux-5.9, and two deliberately wrong ones:
//                           no-settling (v3.15's settling) and no-groups (group faults ignored)
//     --min-placement PCT   exit 1 when fewer placement sets are predicted exactly
//     --min-migrate PCT     exit 1 when fewer task_numa_migrate destinations, or fewer of the
//                           preferred nodes they leave, are
//     --margin PTS          exit 1 when a rate is not PTS points above the better control
//     --min-decisions N     exit 1 when a checked kind has fewer than N decisions (10)
//     --show N              print N disagreements of each kind, with what reproduces them (3)
//     --task-h-load         a task's load is task_h_load() rebuilt from the probed h_load, not
//                           its se.avg.load_avg (worse: h_load moves between probe and compare)
//     --explain FILE:LINE   print one decision in full: the task_numa_find_cpu (or setnuma) event
//                           at that line of a trace.txt, the view rebuilt for it, both answers
//
// Exit status: 0; 1 when a check fails; 2 for bad arguments or results that do not parse
// (the message names the file and line).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <numaplace/placement.hpp>
#include <numaplace/policy/check_machine_view.hpp>
#include <numaplace/policy/preferred_settling.hpp>
#include <numaplace/policy/task_migration.hpp>
#include <numaplace/stack.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/qemu_args.hpp>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "guest_records.hpp"
#include "guest_view.hpp"
#include "trace_events.hpp"

namespace {

using namespace numaplace;
using namespace numaplace_oracle;

// ---- the deliberately wrong stacks (to show the gate fails) ---------------------------------

/// linux-modern with v3.15's settling: the preferred node changes only after a move.
using no_settling =
    replace<stacks::linux_modern, preferred_settling<settle_rule::v4_19>, preferred_settling<settle_rule::v3_15>>;

/// What is known of a workload thread between probes: its latest faults, preferred node, load.
struct known_task {
  faults_state faults;
  long preferred = -1;  // guest node id
  std::uint64_t load = nice_0_load;
};

// ---- tallies ------------------------------------------------------------------------------------

struct rate {
  std::size_t n = 0, ours = 0, current = 0, random = 0, racing_misses = 0;
  void add(const rate& o) {
    n += o.n, ours += o.ours, current += o.current, random += o.random, racing_misses += o.racing_misses;
  }
  double pct(std::size_t k) const { return n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0; }
  double best_control() const { return std::max(pct(current), pct(random)); }
};

struct exact {
  std::size_t n = 0, same = 0;
  double pct() const { return n ? 100.0 * static_cast<double>(same) / static_cast<double>(n) : 0.0; }
};

struct workload_result {
  std::string name;
  rate placement, placement_grouped, migrate, preferred_left;
  exact weights, node_stats, kind_and_partner;
  std::size_t migrate_sets_by_caller_mismatch = 0, other_curr = 0, stale_candidates = 0, incomplete = 0;
  std::size_t unreadable_curr = 0;  // swap candidates' probe records with a field the kernel could not read
  std::size_t kernel_curr = 0, user_curr = 0;  // of other_curr: kernel threads and user tasks, where probed
  std::size_t moved_between_tries = 0;  // calls during which a task the kernel read ran on two CPUs
  std::uint64_t lost = 0;
  std::vector<std::string> placement_misses, migrate_misses;
  std::vector<std::string> broken_views;  // rebuilt machines that break a machine_view law (not scored)
};

struct options {
  std::string preset, file, stack = "linux-modern";
  std::vector<std::string> dirs;
  double min_placement = -1, min_migrate = -1, margin = -1;
  std::size_t min_decisions = 10, show = 3;
  bool no_groups = false;
  std::string explain;  // FILE:LINE of a decision to print in full
  bool task_h_load = false;
};

// ---- reading one workload's results -----------------------------------------------------------

std::int64_t start_ns_of(const std::map<std::string, std::string>& kv, const std::string& file) {
  const auto it = kv.find("start_mono_ns");
  if (it == kv.end()) throw parse_error(file + ": no 'start_mono_ns' (a workload program from before the trace)");
  const auto v = to_int<std::int64_t>(it->second);
  if (!v || *v < 0) throw parse_error(file + ": 'start_mono_ns' is not a time");
  return *v;
}

// The guest's CPUs per node from cpulist.N (guest node ids), as topology indices per CPU.
std::vector<node_index> cpu_nodes(const std::filesystem::path& dir, const guest_layout& g) {
  std::vector<node_index> out;
  for (std::size_t gnode = 0; gnode < g.t->node_count(); ++gnode) {
    const auto path = dir / ("cpulist." + std::to_string(gnode));
    std::string text = read_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (text.empty()) continue;
    const auto cpus = parse_cpulist(text, path.string(), 1);
    for (const auto c : cpus) {
      if (c >= 4096) throw parse_error(path.string() + ": CPU " + std::to_string(c) + " is beyond 4095");
      if (out.size() <= c) out.resize(c + 1, no_node);
      if (out[c] != no_node) throw parse_error(path.string() + ": CPU " + std::to_string(c) + " is on two nodes");
      out[c] = g.index_of_guest[gnode];
    }
  }
  for (std::size_t c = 0; c < out.size(); ++c)
    if (out[c] == no_node) throw parse_error((dir / "cpulist.N").string() + ": CPU " + std::to_string(c) + " is on no node");
  return out;
}

/// What the probes on one task_numa_find_cpu() call captured (each 0 when missing).
struct try_capture {
  std::size_t findcpu = 0, findfaults = 0, cpus = 0;
  std::map<cpu_index, std::size_t> curr;  // CPU -> its np/currN event
};

/// One task_numa_migrate() call, from its first task_numa_find_cpu to its outcome.
struct migrate_call {
  std::vector<try_capture> tries;  // every destination node tried, in order
  std::optional<std::size_t> set;  // a sched_setnuma inside it
  std::size_t before = 0;          // the event before the call's first probe
};

template <class Placement>
class decision_oracle {
 public:
  decision_oracle(const Placement& pl, const guest_layout& g, const options& o) : pl_(pl), g_(g), o_(o) {
    // The random control draws from the nodes with CPUs, in guest numbering.
    for (std::size_t n = 0; n < g_.t->node_count(); ++n) {
      if (std::ranges::find(g_.node_of_cpu, n) != g_.node_of_cpu.end())
        cpu_nodes_.push_back(guest_of(static_cast<node_index>(n)));
    }
  }

  workload_result run(const std::filesystem::path& dir) {
    workload_result res;
    const auto wfile = (dir / "workload.txt").string();
    const auto kv = parse_workload_file(dir / "workload.txt");
    res.name = kv.at("workload");
    const std::int64_t start = start_ns_of(kv, wfile);
    const auto records = parse_snapshots(dir / "snapshots.txt", g_.t->node_count());
    const trace_log log = parse_trace(read_file(dir / "trace.txt"), (dir / "trace.txt").string());
    res.lost = log.lost;
    read_callers(dir / "callers.txt");
    std::set<long> workload;
    for (const auto& r : records) workload.insert(r.tid);
    std::size_t next_record = 0;
    std::map<long, migrate_call> open;
    std::map<long, try_capture> pending;  // probes of a task_numa_find_cpu call not yet complete
    rng_.seed(12345);

    for (std::size_t k = 0; k < log.events.size(); ++k) {
      const trace_event& e = log.events[k];
      // Snapshots taken before this event update what is known of each thread.
      while (next_record < records.size() && start + records[next_record].ms * 1'000'000 <= e.ns) {
        const record& r = records[next_record++];
        auto& kt = known_[r.tid];
        const std::int64_t ns = start + r.ms * 1'000'000;
        if (kt.faults.ns < ns) kt.faults = sampled_faults(r, g_, ns, o_.no_groups);
        kt.load = static_cast<std::uint64_t>(std::max(0L, r.load_avg));
        if (kt.preferred == -1) kt.preferred = r.preferred;
      }
      if (e.name == "setnuma") {
        const long pid = static_cast<long>(log.get(e, "pid"));
        auto& kt = known_[pid];
        kt.faults = captured_faults(log, e, g_, o_.no_groups);
        const auto it = open.find(pid);
        if (it != open.end()) {
          it->second.set = k;
          if (caller_of(log, e) == "placement") ++res.migrate_sets_by_caller_mismatch;
        } else {
          if (caller_of(log, e) == "migrate") ++res.migrate_sets_by_caller_mismatch;
          score_placement(log, e, kt.faults, res);
        }
        kt.preferred = static_cast<long>(log.get(e, "nid"));
      } else if (e.name == "findcpu") {
        // The other probes on the same call fire first (kprobes on one address run newest first).
        const long pid = static_cast<long>(log.get(e, "pid"));
        try_capture tc = std::move(pending[pid]);
        pending.erase(pid);
        tc.findcpu = k;
        auto [it, fresh] = open.try_emplace(pid);
        if (fresh) {
          std::size_t first = k;
          for (const std::size_t s : {tc.findfaults, tc.cpus}) if (s) first = std::min(first, s);
          for (const auto& [c, s] : tc.curr) first = std::min(first, s);
          it->second.before = first == 0 ? 0 : first - 1;
        }
        it->second.tries.push_back(std::move(tc));
      } else if (e.name == "findfaults" || e.name == "cpus") {
        const long pid = static_cast<long>(log.get(e, "pid"));
        (e.name == "findfaults" ? pending[pid].findfaults : pending[pid].cpus) = k;
        if (e.name == "findfaults") known_[pid].faults = captured_faults(log, e, g_, o_.no_groups);
      } else if (e.name.rfind("curr", 0) == 0) {
        const auto c = to_int<cpu_index>(std::string_view(e.name).substr(4));
        if (!c || *c >= g_.cpus) throw trace_error(log.file + ":" + std::to_string(e.line) + ": " + e.name + ": no such CPU");
        // A record without every field curr_task() reads (seen in a live jvm run: a line with
        // no tf12, a value the probe could not fetch as a number, as when the task changes
        // under it) is left out, and the candidate's last known faults stand in, as for one
        // without a probe of its own. It failed the whole analysis before.
        if (!readable_curr(log, e)) {
          ++res.unreadable_curr;
          continue;
        }
        pending[static_cast<long>(log.get(e, "for"))].curr[*c] = k;
      } else if (e.name == "sched_move_numa" || e.name == "sched_swap_numa" || e.name == "sched_stick_numa") {
        const bool pair = e.name != "sched_move_numa";
        const long pid = static_cast<long>(log.get(e, pair ? "src_pid" : "pid"));
        // A stick with a destination CPU reports a move or swap that failed: already scored.
        if (e.name == "sched_stick_numa" && log.get(e, "dst_cpu") != -1) continue;
        const auto it = open.find(pid);
        if (it == open.end()) continue;  // began before the trace did
        score_migrate(log, it->second, k, workload, res);
        // Whatever the outcome, a capture left pending belongs to no call.
        pending.erase(pid);
        open.erase(it);
      }
    }
    return res;
  }

 private:
  // Which call site of sched_setnuma() an event came from, by the function its return address
  // lies in (callers.txt): task_numa_fault, where task_numa_placement is inlined, or
  // task_numa_migrate (whatever suffix the compiler gave it); empty when unknown.
  std::string caller_of(const trace_log& log, const trace_event& e) const {
    const auto it = callers_.find(log.get(e, "ret"));
    if (it == callers_.end()) return {};
    if (it->second == "task_numa_fault") return "placement";
    if (it->second.find("numa_migrate") != std::string::npos) return "migrate";
    return {};
  }

  void read_callers(const std::filesystem::path& path) {
    callers_.clear();
    if (!std::filesystem::exists(path)) return;
    std::size_t n = 0;
    for (const auto& l : read_lines(path)) {
      ++n;
      const auto w = words(l);
      const auto addr = w.size() == 2 ? numaplace_oracle::detail::parse_integer(w[0]) : std::nullopt;
      if (!addr) fail_at(path.string(), n, "expected '0xADDRESS SYMBOL'");
      callers_[*addr] = std::string(w[1]);
    }
  }

  node_index index_of(long guest_node) const {
    return guest_node < 0 || static_cast<std::size_t>(guest_node) >= g_.index_of_guest.size()
               ? no_node
               : g_.index_of_guest[static_cast<std::size_t>(guest_node)];
  }
  long guest_of(node_index n) const { return n == no_node ? -1 : static_cast<long>(g_.guest_of_index[n]); }
  long random_cpu_node() { return cpu_nodes_[rng_() % cpu_nodes_.size()]; }

  // --explain: the machine as the view holds it, the library's answer and the kernel's events.
  void print_view(const guest_view& v, task_index t, const migrate_decision& d, const trace_log& log,
                  const migrate_call& call, std::size_t outcome) const {
    const auto faults = [&](const std::vector<std::uint64_t>& f) {
      std::string out;
      for (std::size_t n = 0; n + 1 < f.size(); n += 2)
        out += (n ? " " : "") + std::to_string(f[n]) + "/" + std::to_string(f[n + 1]);
      return out.empty() ? std::string("-") : out;
    };
    std::printf("task_numa_migrate of pid %ld (view task %u), nodes in topology order, faults shared/private:\n",
                v.at(t).pid, t);
    for (cpu_index c = 0; c < g_.cpus; ++c) {
      std::printf("  cpu %u (node %ld): load %llu runnable %llu util %llu cap %llu, %zu runnable%s, running", c,
                  guest_of(v.node_of_cpu(c)), static_cast<unsigned long long>(v.cpu_load(c)),
                  static_cast<unsigned long long>(v.cpu_runnable(c)), static_cast<unsigned long long>(v.cpu_util(c)),
                  static_cast<unsigned long long>(v.cpu_capacity(c)), v.tasks_on(c).size(),
                  v.numa_migrate_on(c) ? ", a migration to it under way" : "");
      const task_index cur = v.current_task(c);
      if (cur == no_task) {
        std::printf(" nothing\n");
        continue;
      }
      const auto& k = v.at(cur);
      std::printf(" pid %ld%s: preferred %ld, group %ld, load %llu\n    task %s\n    group %s (total %llu)\n", k.pid,
                  k.pinned ? " (no faults, pinned)" : "", guest_of(k.preferred), k.faults.group,
                  static_cast<unsigned long long>(k.load), faults(k.faults.task).c_str(),
                  faults(k.faults.group_mem).c_str(), static_cast<unsigned long long>(k.faults.group_total));
    }
    const char* kinds[] = {"stick", "move", "swap"};
    std::printf("library: %s, cpu %d, with pid %ld, improvement %ld, preferred node after %ld, last tried node %ld\n",
                kinds[static_cast<int>(d.kind)], d.cpu == no_cpu ? -1 : static_cast<int>(d.cpu),
                d.swap_with == no_task ? 0L : v.at(d.swap_with).pid, d.improvement, guest_of(d.preferred_after),
                guest_of(d.last_evaluated));
    std::printf("kernel:\n");
    for (std::size_t k = call.tries.front().findcpu; k <= outcome; ++k) {
      const trace_event& e = log.events[k];
      if (e.name == "findcpu" || e.name == "assign" || e.name == "setnuma" || e.name.rfind("sched_", 0) == 0) {
        std::printf("  line %zu: %s", e.line, e.name.c_str());
        for (const auto& [key, value] : e.fields)
          if (key.size() < 12 && key.find_first_of("0123456789") == std::string::npos)
            std::printf(" %s=%lld", key.c_str(), static_cast<long long>(value));
        std::printf("\n");
      }
    }
  }

  void score_placement(const trace_log& log, const trace_event& e, const faults_state& f, workload_result& res) {
    const long kernel = static_cast<long>(log.get(e, "nid"));
    const long ours = guest_of(pl_.preferred_node(input_of_faults(f)));
    const long cpu = static_cast<long>(log.get(e, "cpu"));
    const long here = cpu >= 0 && static_cast<std::size_t>(cpu) < g_.cpus ? guest_of(g_.node_of_cpu[static_cast<std::size_t>(cpu)]) : -1;
    if (o_.explain == log.file + ":" + std::to_string(e.line)) {
      std::printf("placement set of pid %lld on node %ld: kernel %ld, library %ld; numaplace explain %s\n",
                  static_cast<long long>(log.get(e, "pid")), here, kernel, ours, explain_json(f).c_str());
    }
    const long guess = random_cpu_node();
    for (rate* r : {&res.placement, f.group != 0 ? &res.placement_grouped : nullptr}) {
      if (!r) continue;
      ++r->n;
      r->ours += ours == kernel;
      r->current += here == kernel;
      r->random += guess == kernel;
    }
    if (ours != kernel && res.placement_misses.size() < o_.show) {
      std::ostringstream s;
      s << log.file << ':' << e.line << ": pid " << log.get(e, "pid") << (f.group ? " (grouped)" : "")
        << ": kernel set node " << kernel << ", library says " << ours << "; reproduce with `numaplace explain "
        << explain_json(f) << "`";
      res.placement_misses.push_back(s.str());
    }
  }

  std::string explain_json(const faults_state& f) const {
    const std::size_t n = g_.t->node_count();
    std::ostringstream s;
    s << "'{\"distances\": [";
    for (node_index a = 0; a < n; ++a) {
      s << (a ? ", " : "") << '[';
      for (node_index b = 0; b < n; ++b) s << (b ? ", " : "") << g_.t->distance(a, b);
      s << ']';
    }
    const auto list = [&](const std::vector<std::uint64_t>& v, std::size_t priv) {
      std::string out = "[";
      for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(v[2 * i + priv]);
      return out + "]";
    };
    s << "], \"private\": " << list(f.task, 1) << ", \"shared\": " << list(f.task, 0);
    if (f.group != 0)
      s << ", \"group_private\": " << list(f.group_mem, 1) << ", \"group_shared\": " << list(f.group_mem, 0);
    s << "}'";
    return s.str();
  }

  // A task's load as task_h_load() gives it (numaplace::task_h_load), from the probed h_load and
  // its refresh jiffy. Only with --task-h-load (and traces with the h_load fields); else load_avg.
  std::uint64_t h_load(const trace_log& log, const trace_event& cpus, cpu_index c, std::uint64_t load_avg) const {
    const std::string p = "c" + std::to_string(c);
    const auto hload = cpus.find(p + "hload");
    const auto updated = cpus.find(p + "hupdate");
    const auto jiffies = cpus.find("jiffies");
    if (!hload || !updated || !jiffies || !o_.task_h_load) return load_avg;
    const auto cfs = static_cast<std::uint64_t>(log.get(cpus, p + "load"));
    return numaplace::task_h_load(load_avg, cfs, static_cast<std::uint64_t>(*hload), *updated == *jiffies);
  }

  // A CPU's running task as the view's task: the mover itself, a workload thread with the
  // faults the np/currN probe read at this try (else its last known ones), or a kernel thread
  // or the sampler, which has no faults and is taken as pinned.
  // Whether a swap candidate's probe record holds every field curr_task() reads.
  bool readable_curr(const trace_log& log, const trace_event& e) const {
    try {
      for (const char* key : {"for", "pid", "pref", "tload"}) log.get(e, key);
      captured_faults(log, e, g_, o_.no_groups);
      return true;
    } catch (const trace_error&) {
      return false;
    }
  }

  task_index curr_task(guest_view& v, std::map<long, task_index>& by_pid, const trace_log& log, const try_capture& tc,
                       cpu_index c, long curr, const faults_state& mover, const std::set<long>& workload,
                       workload_result& res) {
    if (curr == 0) return no_task;  // the idle task
    if (const auto it = by_pid.find(curr); it != by_pid.end()) {
      if (v.at(it->second).cpu != c) moved_between_tries_ = true;
      return it->second;
    }
    guest_view::task t;
    t.pid = curr;
    t.cpu = c;
    // The np/currN record of this try, when it read this very task.
    const trace_event* probed = nullptr;
    if (const auto it = tc.curr.find(c); it != tc.curr.end() && log.get(log.events[it->second], "pid") == curr)
      probed = &log.events[it->second];
    if (workload.count(curr)) {
      if (probed) {
        const trace_event& e = *probed;
        t.faults = captured_faults(log, e, g_, o_.no_groups);
        t.captured_now = true;
        t.preferred = index_of(log.get(e, "pref"));
        t.load = static_cast<std::uint64_t>(log.get(e, "tload"));
        if (tc.cpus) t.load = h_load(log, log.events[tc.cpus], c, t.load);
      } else {
        const auto& kt = known_[curr];
        t.faults = kt.faults;
        if (t.faults.task.empty()) t.faults.task.assign(2 * g_.t->node_count(), 0);
        t.preferred = index_of(kt.preferred);
        t.load = kt.load;
        ++res.stale_candidates;
      }
      // The same group as the mover: its faults as just captured.
      if (t.faults.group != 0 && t.faults.group == mover.group) {
        t.faults.group_mem = mover.group_mem;
        t.faults.group_cpu = mover.group_cpu;
        t.faults.group_total = mover.group_total;
      }
    } else {
      t.pinned = true;
      t.faults.task.assign(2 * g_.t->node_count(), 0);
      ++res.other_curr;
      // PF_KTHREAD, or no mm: what 6.17+'s task_numa_compare skips (recordings since np/currN
      // carried kflags and kmm; older ones leave every such task a user thread).
      constexpr std::int64_t pf_kthread = 0x00200000;
      const auto flags = probed ? probed->find("kflags") : std::nullopt;
      const auto mm = probed ? probed->find("kmm") : std::nullopt;
      if (flags && mm) {
        t.kernel = (*flags & pf_kthread) != 0 || *mm == 0;
        ++(t.kernel ? res.kernel_curr : res.user_curr);
      }
    }
    const task_index id = v.add(std::move(t));
    by_pid[curr] = id;
    return id;
  }

  void score_migrate(const trace_log& log, const migrate_call& call, std::size_t outcome, const std::set<long>& workload,
                     workload_result& res) {
    const try_capture& first = call.tries.front();
    if (first.findfaults == 0 || first.cpus == 0) {  // the trace began mid-call, or the probes fired otherwise
      ++res.incomplete;
      return;
    }
    moved_between_tries_ = false;
    const trace_event& fc = log.events[first.findcpu];
    const trace_event& out = log.events[outcome];
    const trace_event& ff = log.events[first.findfaults];
    const long pid = static_cast<long>(log.get(fc, "pid"));

    // The machine as the kernel read it: every CPU as at the first try, then each destination
    // tried as at its own try, a one-CPU node from the statistics the kernel computed for it.
    guest_view v(g_, static_cast<int>(log.get(fc, "imb_numa_nr")));
    std::map<long, task_index> by_pid;
    guest_view::task me;
    me.pid = pid;
    me.cpu = static_cast<cpu_index>(log.get(fc, "src_cpu"));
    me.preferred = index_of(log.get(fc, "pref"));
    me.faults = captured_faults(log, ff, g_, o_.no_groups);
    me.captured_now = true;
    me.load = h_load(log, log.events[first.cpus], me.cpu, static_cast<std::uint64_t>(log.get(fc, "tload")));
    by_pid[pid] = v.add(me);
    const auto set_from_cpus = [&](const try_capture& tc, cpu_index c) {
      const trace_event& cp = log.events[tc.cpus];
      const std::string p = "c" + std::to_string(c);
      const task_index ct = curr_task(v, by_pid, log, tc, c, static_cast<long>(log.get(cp, p + "curr")), me.faults,
                                      workload, res);
      const auto util = std::max(log.get(cp, p + "util"), log.get(cp, p + "utilest"));
      v.set_migrate_on(c, log.get(cp, p + "migon") != 0);
      v.set_idle(c, ct == no_task && log.get(cp, p + "nr") == 0);
      v.set_cpu(c, ct, static_cast<unsigned>(log.get(cp, p + "nr")), static_cast<std::uint64_t>(log.get(cp, p + "load")),
                static_cast<std::uint64_t>(log.get(cp, p + "runnable")),
                static_cast<std::uint64_t>(std::min<std::int64_t>(util, 1024)),
                static_cast<std::uint64_t>(log.get(cp, p + "cap")));
    };
    const auto set_from_stats = [&](const try_capture& tc, const trace_event& fe, const std::string& side, node_index n) {
      const auto cpus = v.cpus_of(n);
      if (cpus.size() != 1) {
        for (const cpu_index c : cpus) set_from_cpus(tc, c);
        return;
      }
      const cpu_index c = cpus.front();
      const trace_event& cp = log.events[tc.cpus];
      const bool idle = side == "d" && log.get(fe, "didle") >= 0;
      const long curr = idle ? 0 : static_cast<long>(log.get(cp, "c" + std::to_string(c) + "curr"));
      v.set_migrate_on(c, log.get(cp, "c" + std::to_string(c) + "migon") != 0);
      // idle_cpu() as update_numa_stats() found it: a CPU queueing nothing may still not be idle.
      v.set_idle(c, idle);
      const task_index ct = curr_task(v, by_pid, log, tc, c, curr, me.faults, workload, res);
      v.set_cpu(c, ct, idle ? 0u : static_cast<unsigned>(log.get(fe, side + "nr")),
                static_cast<std::uint64_t>(log.get(fe, side + "load")),
                static_cast<std::uint64_t>(log.get(fe, side + "runnable")),
                static_cast<std::uint64_t>(log.get(fe, side + "util")), static_cast<std::uint64_t>(log.get(fe, side + "cap")));
    };
    for (cpu_index c = 0; c < g_.cpus; ++c) set_from_cpus(first, c);
    set_from_stats(first, fc, "s", index_of(log.get(fc, "src_nid")));
    for (const auto& tc : call.tries) {
      if (tc.cpus == 0) continue;
      const trace_event& fe = log.events[tc.findcpu];
      if (const node_index dst = index_of(log.get(fe, "dst_nid")); dst != no_node) set_from_stats(tc, fe, "d", dst);
    }
    // A task seen on two CPUs moved between the kernel's tries: no one machine to decide on.
    if (moved_between_tries_) {
      ++res.moved_between_tries;
      return;
    }
    v.share_group_faults();
    // Any other machine that cannot exist is the rebuild's fault, not a prediction to score.
    if (const view_problem problem = check_machine_view(v)) {
      res.broken_views.push_back(log.file + ":" + std::to_string(fc.line) + ": " + problem.message);
      return;
    }
    const task_index t = by_pid[pid];
    const migrate_decision d = pl_.task_migration().decide(v, pl_, t);
    if (o_.explain == log.file + ":" + std::to_string(fc.line)) print_view(v, t, d, log, call, outcome);

    // The kernel's outcome.
    const long src_nid = static_cast<long>(log.get(fc, "src_nid"));
    long kernel_dst = src_nid, kernel_partner = 0;
    std::string kernel_kind = "stick";
    if (out.name == "sched_move_numa") {
      kernel_dst = static_cast<long>(log.get(out, "dst_nid"));
      kernel_kind = "move";
    } else if (out.name == "sched_swap_numa") {
      kernel_dst = static_cast<long>(log.get(out, "dst_nid"));
      kernel_partner = static_cast<long>(log.get(out, "dst_pid"));
      kernel_kind = "swap";
    }
    const long ours_dst = d.kind == migrate_kind::stick ? src_nid : guest_of(g_.node_of_cpu[d.cpu]);
    const long ours_partner = d.kind == migrate_kind::swap ? v.at(d.swap_with).pid : 0;
    const std::string ours_kind = d.kind == migrate_kind::stick ? "stick" : d.kind == migrate_kind::move ? "move" : "swap";

    // Racing: a task changed CPU between the event before the call and the outcome, or another
    // task's task_numa_migrate moved or swapped on a CPU this decision involves (its own, the
    // kernel's or the library's destination) or swapped with this task meanwhile.
    bool racing = false;
    const long kernel_cpu = out.name == "sched_stick_numa" ? -1 : static_cast<long>(log.get(out, "dst_cpu"));
    const long ours_cpu = d.cpu == no_cpu ? -1 : static_cast<long>(d.cpu);
    const long own_cpu = static_cast<long>(me.cpu);
    const auto involved = [&](long c) { return c >= 0 && (c == own_cpu || c == kernel_cpu || c == ours_cpu); };
    for (std::size_t k = call.before; k < outcome && !racing; ++k) {
      const trace_event& e = log.events[k];
      if (e.name == "sched_migrate_task") racing = true;
      if (e.name == "sched_move_numa" || e.name == "sched_swap_numa") {
        racing = involved(static_cast<long>(log.get(e, "src_cpu"))) || involved(static_cast<long>(log.get(e, "dst_cpu"))) ||
                 (e.name == "sched_swap_numa" && log.get(e, "dst_pid") == pid);
      }
    }
    // Or the kernel swapped with a task other than the one the probe saw running on that CPU:
    // the CPU switched tasks between task_numa_find_cpu()'s entry and task_numa_compare().
    if (out.name == "sched_swap_numa" && kernel_cpu >= 0 && static_cast<std::size_t>(kernel_cpu) < g_.cpus) {
      const task_index seen = v.current_task(static_cast<cpu_index>(kernel_cpu));
      if (seen == no_task || v.at(seen).pid != kernel_partner) racing = true;
    }
    // Or a destination CPU in transition: queueing nothing, yet not idle when update_numa_stats()
    // looked (a wakeup pending); by task_numa_compare() it may run nothing or another task.
    for (const auto& tc : call.tries) {
      const trace_event& e = log.events[tc.findcpu];
      if (log.get(e, "dnr") == 0 && log.get(e, "didle") < 0) racing = true;
    }
    // A migration to the chosen CPU under way (rq->numa_migrate_on) at some try: the view
    // holds one reading per CPU, the flag may have changed between tries.
    bool parallel = false;
    if (d.kind != migrate_kind::stick) {
      for (const auto& tc : call.tries)
        if (tc.cpus && log.get(log.events[tc.cpus], "c" + std::to_string(d.cpu) + "migon") != 0) parallel = true;
    }

    auto& r = res.migrate;
    ++r.n;
    const bool hit = ours_dst == kernel_dst;
    r.ours += hit;
    r.current += kernel_dst == src_nid;
    r.random += random_cpu_node() == kernel_dst;
    if (!hit && racing) ++r.racing_misses;
    ++res.kind_and_partner.n;
    res.kind_and_partner.same += hit && ours_kind == kernel_kind && ours_partner == kernel_partner;

    // The preferred node it leaves.
    const long pref_before = static_cast<long>(log.get(fc, "pref"));
    const long kernel_left = call.set ? static_cast<long>(log.get(log.events[*call.set], "nid")) : pref_before;
    auto& p = res.preferred_left;
    ++p.n;
    p.ours += guest_of(d.preferred_after) == kernel_left;
    p.current += kernel_left == src_nid;
    p.random += random_cpu_node() == kernel_left;

    // The kernel's weights and node statistics for each destination it tried.
    for (const auto& tc : call.tries) {
      const std::size_t k = tc.findcpu;
      const trace_event& tr = log.events[k];
      const node_index dst = index_of(log.get(tr, "dst_nid"));
      const node_index src = index_of(src_nid);
      const auto dist = static_cast<distance_t>(log.get(tr, "dist"));
      const decision_input in = input_of_faults(me.faults);
      if (k == first.findcpu && dst != no_node) {
        const long taskimp = static_cast<long>(pl_.task_weight(in, dst, dist)) - static_cast<long>(pl_.task_weight(in, src, dist));
        const long groupimp =
            static_cast<long>(pl_.group_weight(in, dst, dist)) - static_cast<long>(pl_.group_weight(in, src, dist));
        ++res.weights.n;
        res.weights.same += taskimp == log.get(tr, "taskimp") && groupimp == log.get(tr, "groupimp");
        const numa_stats ns = update_numa_stats(v, static_cast<unsigned>(log.get(tr, "imbalance_pct")), dst, t);
        ++res.node_stats.n;
        res.node_stats.same += static_cast<std::int64_t>(ns.load) == log.get(tr, "dload") &&
                               static_cast<std::int64_t>(ns.nr_running) == log.get(tr, "dnr") &&
                               static_cast<std::int64_t>(ns.node_type) == log.get(tr, "dtype") &&
                               (ns.idle_cpu == no_cpu ? -1 : static_cast<std::int64_t>(ns.idle_cpu)) == log.get(tr, "didle");
      }
    }

    if (!hit && res.migrate_misses.size() < o_.show) {
      std::ostringstream s;
      s << log.file << ':' << fc.line << ": pid " << pid << " on node " << src_nid << " prefers "
        << log.get(fc, "pref") << ": kernel " << kernel_kind << " to node " << kernel_dst;
      if (kernel_partner) s << " with pid " << kernel_partner;
      s << " (line " << out.line << "), library " << ours_kind << " to node " << ours_dst;
      if (ours_partner) s << " with pid " << ours_partner;
      s << (racing ? " [racing]" : "") << (parallel ? " [a migration to that CPU was under way]" : "") << "; tried:";
      for (const auto& tc : call.tries) {
        const trace_event& tr = log.events[tc.findcpu];
        s << " node " << log.get(tr, "dst_nid") << " (taskimp " << log.get(tr, "taskimp") << ", groupimp "
          << log.get(tr, "groupimp") << ", dst load " << log.get(tr, "dload") << " nr " << log.get(tr, "dnr")
          << " type " << log.get(tr, "dtype") << " idle " << log.get(tr, "didle") << ")";
      }
      res.migrate_misses.push_back(s.str());
    }
  }

  const Placement& pl_;
  const guest_layout& g_;
  const options& o_;
  std::map<long, known_task> known_;
  std::map<std::int64_t, std::string> callers_;
  std::vector<long> cpu_nodes_;  // guest ids of the nodes with CPUs
  std::mt19937 rng_;
  bool moved_between_tries_ = false;  // this call saw one task on two CPUs
};

void print_rate(const char* label, const rate& r) {
  std::printf("  %-15s %5zu  library %5.1f %%  current node %5.1f %%  random %5.1f %%", label, r.n, r.pct(r.ours),
              r.pct(r.current), r.pct(r.random));
  if (r.racing_misses) std::printf("  (%zu misses racing)", r.racing_misses);
  std::printf("\n");
}

template <class Stack>
int run_with(const options& o, const guest_layout& g) {
  int status = 0;
  with_placement<Stack>(*g.t, [&](const auto& pl) {
    workload_result all;
    all.name = "all";
    const auto check = [&](const std::string& where, const char* what, const rate& r, double min) {
      if (min < 0) return;
      if (r.n < o.min_decisions) {
        std::printf("FAILED: %s: %zu %s decisions, fewer than %zu\n", where.c_str(), r.n, what, o.min_decisions);
        status = 1;
        return;
      }
      if (r.pct(r.ours) < min) {
        std::printf("FAILED: %s: %s predicted %.1f %%, under %.1f %%\n", where.c_str(), what, r.pct(r.ours), min);
        status = 1;
      }
      if (o.margin >= 0 && r.pct(r.ours) - r.best_control() < o.margin) {
        std::printf("FAILED: %s: %s predicted %.1f %%, not %.0f points above the better control (%.1f %%)\n",
                    where.c_str(), what, r.pct(r.ours), o.margin, r.best_control());
        status = 1;
      }
    };
    std::map<std::string, workload_result> by_workload;
    for (const auto& dir : o.dirs) {
      decision_oracle<std::decay_t<decltype(pl)>> oracle(pl, g, o);
      const workload_result r = oracle.run(dir);
      std::printf("%s (%s, stack %s)%s\n", r.name.c_str(), dir.c_str(), o.stack.c_str(),
                  r.lost ? (" - the kernel lost " + std::to_string(r.lost) + " events").c_str() : "");
      print_rate("placement sets", r.placement);
      print_rate("  of grouped", r.placement_grouped);
      print_rate("migrate dest.", r.migrate);
      print_rate("preferred left", r.preferred_left);
      std::printf("  exact: kind and partner %.1f %% of %zu; taskimp/groupimp %.1f %% of %zu; node type and idle CPU %.1f %% of %zu\n",
                  r.kind_and_partner.pct(), r.kind_and_partner.n, r.weights.pct(), r.weights.n, r.node_stats.pct(),
                  r.node_stats.n);
      if (r.other_curr) {
        std::printf("  %zu swap candidates were not workload threads (taken as pinned", r.other_curr);
        if (r.kernel_curr + r.user_curr)
          std::printf("; %zu of them kernel threads or without mm, %zu user tasks", r.kernel_curr, r.user_curr);
        std::printf(")\n");
      }
      if (r.stale_candidates)
        std::printf("  %zu swap candidates without a probe of their own (their last known faults)\n", r.stale_candidates);
      if (r.moved_between_tries)
        std::printf("  %zu task_numa_migrate calls saw a task on two CPUs (it moved between tries; not scored)\n",
                    r.moved_between_tries);
      if (r.incomplete) std::printf("  %zu task_numa_migrate calls captured incompletely (not scored)\n", r.incomplete);
      if (r.unreadable_curr)
        std::printf("  %zu swap candidates' probe records had a field the kernel could not read (left out)\n",
                    r.unreadable_curr);
      if (r.migrate_sets_by_caller_mismatch)
        std::printf("  %zu sched_setnuma calls whose return address disagrees with the event order\n",
                    r.migrate_sets_by_caller_mismatch);
      for (const auto& m : r.placement_misses) std::printf("  placement miss: %s\n", m.c_str());
      for (const auto& m : r.migrate_misses) std::printf("  migrate miss: %s\n", m.c_str());
      for (const auto& m : r.broken_views) std::printf("  rebuilt machine breaks a law: %s\n", m.c_str());
      if (!r.broken_views.empty()) status = 1;
      for (auto* sum : {&all, &by_workload[r.name]}) {
        sum->placement.add(r.placement);
        sum->placement_grouped.add(r.placement_grouped);
        sum->migrate.add(r.migrate);
        sum->preferred_left.add(r.preferred_left);
      }
    }
    if (o.dirs.size() > 1) {
      for (const auto& [name, r] : by_workload) {
        std::printf("%s, all runs\n", name.c_str());
        print_rate("placement sets", r.placement);
        print_rate("  of grouped", r.placement_grouped);
        print_rate("migrate dest.", r.migrate);
        print_rate("preferred left", r.preferred_left);
      }
    }
    std::printf("all workloads\n");
    print_rate("placement sets", all.placement);
    print_rate("  of grouped", all.placement_grouped);
    print_rate("migrate dest.", all.migrate);
    print_rate("preferred left", all.preferred_left);
    check("all workloads", "placement sets", all.placement, o.min_placement);
    check("all workloads", "migrate destinations", all.migrate, o.min_migrate);
    check("all workloads", "preferred nodes left by migrate", all.preferred_left, o.min_migrate);
  });
  return status;
}

int run(const options& o) {
  const dynamic_topology t = !o.preset.empty() ? [&] {
    const auto* p = presets::find(o.preset);
    if (!p) throw std::invalid_argument("no preset '" + o.preset + "'");
    return p->build();
  }()
                                               : load::file(o.file);
  guest_layout g;
  g.t = &t;
  g.guest_of_index = qemu_guest_node_ids(t);
  g.index_of_guest.resize(t.node_count());
  for (node_index i = 0; i < t.node_count(); ++i) g.index_of_guest[static_cast<std::size_t>(g.guest_of_index[i])] = i;
  g.node_of_cpu = cpu_nodes(o.dirs.front(), g);
  g.cpus = g.node_of_cpu.size();
  if (o.stack == "linux-modern" || o.stack == "no-groups") return run_with<stacks::linux_modern>(o, g);
  if (o.stack == "linux-6.12") return run_with<stacks::linux_6_12>(o, g);
  if (o.stack == "linux-7.x") return run_with<stacks::linux_7_x>(o, g);
  if (o.stack == "linux-4.2") return run_with<stacks::linux_4_2>(o, g);
  if (o.stack == "linux-5.9") return run_with<stacks::linux_5_9>(o, g);
  if (o.stack == "no-settling") return run_with<no_settling>(o, g);
  throw std::invalid_argument("--stack: no stack '" + o.stack + "' (linux-modern, linux-6.12, linux-7.x, linux-4.2, linux-5.9, no-settling, no-groups)");
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto number = [&](std::size_t& i) {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      const std::string& v = args[++i];
      std::size_t used = 0;
      const double d = std::stod(v, &used);
      if (used != v.size() || d < 0) throw std::invalid_argument(args[i - 1] + ": '" + v + "' is not a number >= 0");
      return d;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&]() -> const std::string& {
        if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        return args[++i];
      };
      if (a == "--machine" || a == "--preset") o.preset = value();  // --preset: the old spelling
      else if (a == "--file") o.file = value();
      else if (a == "--stack") o.stack = value();
      else if (a == "--min-placement") o.min_placement = number(i);
      else if (a == "--min-migrate") o.min_migrate = number(i);
      else if (a == "--margin") o.margin = number(i);
      else if (a == "--min-decisions") o.min_decisions = static_cast<std::size_t>(number(i));
      else if (a == "--show") o.show = static_cast<std::size_t>(number(i));
      else if (a == "--explain") o.explain = value();
      else if (a == "--task-h-load") o.task_h_load = true;
      else if (a == "-h" || a == "--help") {
        std::printf("usage: numaplace-oracle-decisions (--machine NAME | --file PATH) [--stack NAME] [--min-placement PCT]\n"
                    "       [--min-migrate PCT] [--margin PTS] [--min-decisions N] [--show N] [--explain FILE:LINE] DIR...\n");
        return 0;
      } else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else o.dirs.push_back(a);
    }
    if (o.preset.empty() == o.file.empty()) throw std::invalid_argument("give one of --machine and --file");
    if (o.dirs.empty()) throw std::invalid_argument("no result folders");
    o.no_groups = o.stack == "no-groups";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "numaplace-oracle-decisions: %s (try --help)\n", e.what());
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "numaplace-oracle-decisions: %s\n", e.what());
    return 2;
  }
}
