// numaplace-oracle-analysis: the guest kernel as oracle. Reads what numaplace-oracle-workload
// recorded in a QEMU guest (snapshots of every thread's /proc/PID/task/TID/sched, the final
// numa_maps and CPUs), asks linux-modern's placement for each snapshot's preferred node, and
// reports how often it is the kernel's numa_preferred_nid, why not when it is not, and where
// each process converged next to where the simulator (linux-modern, same workload shape, same
// topology, one CPU per node as in the guest) converges.
//
//   numaplace-oracle-analysis (--machine NAME | --file PATH) [options] DIR...
//     DIR                   one workload's results (snapshots.txt, numa_maps.P, final.txt,
//                           cpulist.N, workload.txt)
//     --min-agreement PCT   exit 1 when agreement over snapshots with faults is below PCT
//     --min-ungrouped-agreement PCT
//                           exit 1 when it is below PCT for tasks in no numa_group (whose
//                           preferred node only task_numa_placement sets)
//     --max-unexplained PCT exit 1 when more than PCT of them are (d), unexplained
//     --sim-seeds N         simulator runs per workload (3; 0: no simulation)
//     --sim-first-seed K    the first simulator seed (1): runs use seeds K..K+N-1
//     --sim-stack NAME      the stack the simulator runs (linux-modern; the kernel's era, as
//                           oracle --era-of names it, to compare its scan passes)
//     --show-other          print every unexplained disagreement as `numaplace explain` input
//
// Exit status: 0; 1 when a --min / --max check fails or no snapshot had faults; 2 for bad
// arguments or results that do not parse (the message names the file and line).
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include "guest_records.hpp"

#include <numaplace/placement.hpp>
#include <numaplace/sim/experiment.hpp>
#include <numaplace/sim/workload.hpp>
#include <numaplace/stacks.hpp>
#include <numaplace/stats/fault_view.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/presets.hpp>
#include <numaplace/topology/qemu_args.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace {

using numaplace::decision_input;
using numaplace::dynamic_topology;
using numaplace::fault_view;
using numaplace::no_node;
using numaplace::node_id;
using numaplace::node_index;

using namespace numaplace_oracle;


// ---- the library's answer -------------------------------------------------------------------

struct verdict {
  long ours = -1;  // guest node id, -1 for no answer
};

// linux-modern's preferred node for one record, as a guest node id (-1: no answer).
template <class Placement>
long library_choice(const Placement& pl, const record& r, const std::vector<node_index>& index_of_guest,
                    const std::vector<node_id>& guest_of_index,
                    const std::vector<node_faults>* group_override = nullptr) {
  const std::size_t n = r.faults.size();
  std::vector<std::uint64_t> task(2 * n), group(2 * n);
  std::uint64_t task_total = 0, group_total = 0;
  const auto& gf = group_override ? *group_override : r.faults;
  for (std::size_t g = 0; g < n; ++g) {
    const node_index i = index_of_guest[g];
    task[2 * i] = r.faults[g].task_shared;
    task[2 * i + 1] = r.faults[g].task_private;
    group[2 * i] = gf[g].group_shared;
    group[2 * i + 1] = gf[g].group_private;
    task_total += r.faults[g].task_shared + r.faults[g].task_private;
    group_total += gf[g].group_shared + gf[g].group_private;
  }
  decision_input in;
  // The kernel's total_numa_faults is the task's NUMA_MEM sum; a group's total_faults is not
  // printed, but is the sum of its NUMA_MEM faults too (task_numa_placement, task_numa_group).
  in.task = fault_view{task, {}, task_total};
  if (r.group_id != 0) in.group = fault_view{group, {}, group_total};
  const node_index nid = pl.preferred_node(in);
  return nid == no_node ? -1 : static_cast<long>(guest_of_index[nid]);
}

std::string explain_json(const dynamic_topology& t, const record& r, const std::vector<node_index>& index_of_guest) {
  const std::size_t n = t.node_count();
  std::vector<const node_faults*> by_index(n);
  for (std::size_t g = 0; g < n; ++g) by_index[index_of_guest[g]] = &r.faults[g];
  std::ostringstream s;
  s << "{\"distances\": [";
  for (node_index a = 0; a < n; ++a) {
    s << (a ? ", " : "") << '[';
    for (node_index b = 0; b < n; ++b) s << (b ? ", " : "") << t.distance(a, b);
    s << ']';
  }
  s << "], \"task_faults\": [";
  for (std::size_t i = 0; i < n; ++i)
    s << (i ? ", " : "") << '[' << by_index[i]->task_shared << ", " << by_index[i]->task_private << ']';
  s << ']';
  if (r.group_id != 0) {
    s << ", \"group_faults\": [";
    for (std::size_t i = 0; i < n; ++i)
      s << (i ? ", " : "") << '[' << by_index[i]->group_shared << ", " << by_index[i]->group_private << ']';
    s << ']';
  }
  s << '}';
  return s.str();
}

// ---- reporting --------------------------------------------------------------------------------

// agree; (a) reset to the node it moved to; (b) no faults of its own; (c) racing; (d) other.
enum class outcome { agree, reset_to_current, no_faults, racing, other };

struct tally {
  std::size_t count[5] = {};
  std::size_t with_faults() const { return count[0] + count[1] + count[3] + count[4]; }
  double agreement() const { return with_faults() ? 100.0 * double(count[0]) / double(with_faults()) : 0.0; }
  void add(outcome o) { ++count[static_cast<int>(o)]; }
  void add(const tally& t) {
    for (int k = 0; k < 5; ++k) count[k] += t.count[k];
  }
};

std::string pct(std::size_t part, std::size_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", whole ? 100.0 * double(part) / double(whole) : 0.0);
  return buf;
}

void print_tally(const std::string& label, const tally& t) {
  std::printf("  %-22s %5zu with faults, agree %5zu (%s); (a) %zu, (c) %zu, (d) %zu; no faults %zu\n", label.c_str(),
              t.with_faults(), t.count[0], pct(t.count[0], t.with_faults()).c_str(), t.count[1], t.count[3], t.count[4],
              t.count[2]);
}

std::string node_set(const std::vector<long>& nodes) {
  if (nodes.empty()) return "{}";
  std::string s = "{";
  for (std::size_t k = 0; k < nodes.size(); ++k) s += (k ? "," : "") + std::to_string(nodes[k]);
  return s + "}";
}

struct convergence_row {
  std::string workload, process, guest_memory, guest_threads, sim_memory, sim_threads;
  long guest_passes = -1;  // mm->numa_scan_seq in the process's last snapshot
  std::string sim_passes;
};

struct options {
  std::string preset, file;
  double min_agreement = -1, min_ungrouped_agreement = -1, max_unexplained = -1;
  unsigned sim_seeds = 3;
  unsigned sim_first_seed = 1;
  std::string sim_stack = "linux-modern";
  bool show_other = false;
  std::vector<std::string> dirs;
};

// The simulator's numa01 / numa02 of the same shape on `t` with one CPU per CPU node, as the
// guest has (qemu_numa_args with one vCPU per node).
dynamic_topology one_cpu_per_node(const dynamic_topology& t) {
  std::vector<std::vector<long long>> rows(t.node_count(), std::vector<long long>(t.node_count()));
  std::vector<numaplace::node_attributes> nodes(t.node_count());
  const auto guest = numaplace::qemu_guest_node_ids(t);
  for (node_index a = 0; a < t.node_count(); ++a) {
    for (node_index b = 0; b < t.node_count(); ++b) rows[a][b] = t.distance(a, b);
    nodes[a] = t.node(a);
    nodes[a].id = guest[a];  // report in the guest's numbering
    nodes[a].cpus.clear();
    if (t.has_cpu(a)) nodes[a].cpus.push_back(static_cast<unsigned>(guest[a]));
  }
  return dynamic_topology(rows, std::move(nodes));
}

// The guest's jvm workload in the simulator: per process a shared heap first touched by its
// main thread and per-thread private data; a worker sweeps its private data three times per
// sweep of a quarter of the heap, so by bytes 3 * private : heap / 4.
numaplace::sim::workload jvm_like(const std::map<std::string, std::string>& kv, unsigned processes, unsigned threads,
                                  std::uint32_t heap_chunks, const std::string& file) {
  const unsigned private_mib = number_of(kv, "private_mib", file);
  const auto private_chunks = std::max(1u, private_mib / 2);
  const double heap_bytes = heap_chunks / 4.0, private_bytes = 3.0 * private_chunks;
  const double heap_weight = heap_bytes / (heap_bytes + private_bytes);
  numaplace::sim::workload w{"jvm", {}, 60.0, false, 0};
  for (unsigned j = 0; j < processes; ++j) {
    numaplace::sim::process_spec p;
    p.name = "jvm" + std::to_string(j + 1);
    p.regions.push_back({heap_chunks, false});
    for (unsigned t = 0; t < threads; ++t) {
      p.regions.push_back({private_chunks, false});
      p.threads.push_back({{{0, heap_weight}, {t + 1, 1.0 - heap_weight}}});
    }
    w.processes.push_back(std::move(p));
  }
  return w;
}

int run(const options& o) {
  const dynamic_topology t = !o.preset.empty() ? [&] {
    const auto* p = numaplace::presets::find(o.preset);
    if (!p) throw std::invalid_argument("no preset '" + o.preset + "'");
    return p->build();
  }()
                                               : numaplace::load::file(o.file);
  const std::size_t n = t.node_count();
  const std::vector<node_id> guest_of_index = numaplace::qemu_guest_node_ids(t);
  std::vector<node_index> index_of_guest(n);
  for (node_index i = 0; i < n; ++i) index_of_guest[static_cast<std::size_t>(guest_of_index[i])] = i;
  const dynamic_topology sim_topology = one_cpu_per_node(t);

  tally overall, overall_ungrouped;
  std::vector<convergence_row> rows;
  std::vector<std::string> others;
  std::size_t a_also_c = 0;
  std::size_t a_kind[3] = {};  // seen there, changed without placement, moved through
  int status = 0;

  numaplace::with_placement<numaplace::stacks::linux_modern>(t, [&](const auto& pl) {
    std::printf("topology: %zu nodes, %s (linux-modern's view); guest node g is our node index %s\n", n,
                std::string(numaplace::to_string(pl.kind)).c_str(),
                [&] {
                  std::string s;
                  for (std::size_t g = 0; g < n; ++g) s += (g ? "," : "") + std::to_string(index_of_guest[g]);
                  return s;
                }()
                    .c_str());
    for (const auto& dir_name : o.dirs) {
      const std::filesystem::path dir(dir_name);
      const auto kv = parse_workload_file(dir / "workload.txt");
      const std::string name = kv.at("workload");
      if (name != "numa01" && name != "numa02" && name != "jvm")
        throw parse_error((dir / "workload.txt").string() + ": unknown workload " + name);
      const unsigned threads = number_of(kv, "threads", (dir / "workload.txt").string());
      const unsigned mib = number_of(kv, "mib", (dir / "workload.txt").string());
      const unsigned seconds = number_of(kv, "seconds", (dir / "workload.txt").string());
      const auto records = parse_snapshots(dir / "snapshots.txt", n);
      if (records.empty()) throw parse_error((dir / "snapshots.txt").string() + ": no snapshots");

      // Each thread's records in time order, to look one snapshot back and ahead.
      std::map<long, std::vector<std::size_t>> by_tid;
      for (std::size_t k = 0; k < records.size(); ++k) by_tid[records[k].tid].push_back(k);
      // A group's faults by snapshot: the same for every member, at the time it was read.
      std::map<std::pair<unsigned, long>, std::size_t> group_at;  // (seq, group id) -> a record
      for (std::size_t k = 0; k < records.size(); ++k) {
        if (records[k].group_id != 0) group_at.emplace(std::make_pair(records[k].seq, records[k].group_id), k);
      }
      std::vector<long> ours(records.size());
      for (std::size_t k = 0; k < records.size(); ++k)
        ours[k] = library_choice(pl, records[k], index_of_guest, guest_of_index);

      tally grouped, ungrouped, early, late, fresh;
      for (const auto& [tid, ks] : by_tid) {
        for (std::size_t j = 0; j < ks.size(); ++j) {
          const record& r = records[ks[j]];
          const long mine = ours[ks[j]];
          outcome oc;
          if (r.task_sum() == 0) {
            oc = outcome::no_faults;
          } else if (mine == r.preferred) {
            oc = outcome::agree;
          } else {
            // The kernel's value was set at snapshot j0 (the first of the run of equal values
            // ending here), by task_numa_placement or, for a grouped task, task_numa_migrate.
            std::size_t j0 = j;
            while (j0 > 0 && records[ks[j0 - 1]].preferred == r.preferred) --j0;
            std::size_t j1 = j;  // the last snapshot with that value
            while (j1 + 1 < ks.size() && records[ks[j1 + 1]].preferred == r.preferred) ++j1;
            const std::size_t from = j0 > 0 ? j0 - 1 : 0, to = std::min(j1 + 1, ks.size() - 1);
            // (c): our answer on the faults of some snapshot since then (a group's faults change
            // whenever any member's placement runs) is the kernel's, or the kernel is about to
            // take ours (the next snapshot has it).
            bool racing = j + 1 < ks.size() && records[ks[j + 1]].preferred == mine;
            for (std::size_t s2 = from; s2 <= j && !racing; ++s2) {
              const record& then = records[ks[s2]];
              if (r.group_id == 0) {
                racing = library_choice(pl, then, index_of_guest, guest_of_index) == r.preferred;
              } else if (const auto g = group_at.find({then.seq, r.group_id}); g != group_at.end()) {
                racing =
                    library_choice(pl, r, index_of_guest, guest_of_index, &records[g->second].faults) == r.preferred;
              }
            }
            // (a): a grouped task's preferred node is the node of the CPU task_numa_migrate chose
            // (set before the move, which may fail and be retried), or the node it stayed on when
            // nothing better was found (Linux 4.19+): a node it was seen on while the value held
            // (or just before), or the value changed while its own faults did not (so no
            // task_numa_placement ran), or it moved twice or more in that second (through a
            // node no snapshot saw).
            bool seen_there = false;
            for (std::size_t s2 = from; s2 <= to; ++s2)
              seen_there = seen_there || records[ks[s2]].current_node == r.preferred;
            const bool changed_without_placement = j0 > 0 && records[ks[j0]].same_task_faults(records[ks[j0 - 1]]);
            const bool moved_through =
                j0 > 0 && records[ks[j0]].cpu_migrations - records[ks[j0 - 1]].cpu_migrations >= 2;
            const bool reset = r.group_id != 0 && (seen_there || changed_without_placement || moved_through);
            if (reset) {
              oc = outcome::reset_to_current;
              a_also_c += racing ? 1 : 0;
              a_kind[seen_there ? 0 : changed_without_placement ? 1 : 2] += 1;
            } else if (racing) {
              oc = outcome::racing;
            } else {
              oc = outcome::other;
              if (o.show_other) {
                others.push_back(name + " seq " + std::to_string(r.seq) + " tid " + std::to_string(r.tid) + " (" +
                                 (dir / "snapshots.txt").string() + ":" + std::to_string(r.line) + "): kernel " +
                                 std::to_string(r.preferred) + ", linux-modern " + std::to_string(mine) +
                                 ", current node " + std::to_string(r.current_node) + ", group " +
                                 std::to_string(r.group_id) + "\n    " + explain_json(t, r, index_of_guest));
              }
            }
          }
          if (r.task_sum() != 0 && j > 0 && !r.same_task_faults(records[ks[j - 1]])) fresh.add(oc);
          (r.group_id != 0 ? grouped : ungrouped).add(oc);
          (r.ms * 2 < long(seconds) * 1000 ? early : late).add(oc);
        }
      }
      tally all = grouped;
      all.add(ungrouped);
      overall.add(all);
      overall_ungrouped.add(ungrouped);
      std::printf("\n%s: %u thread%s x %u MiB%s, %u s, %zu thread snapshots\n", name.c_str(), threads,
                  threads == 1 ? "" : "s", mib, name == "numa02" ? " each" : " per process", seconds, records.size());
      print_tally("all", all);
      print_tally("in a numa_group", grouped);
      print_tally("not in a group", ungrouped);
      print_tally("first half", early);
      print_tally("second half", late);
      print_tally("faults just changed", fresh);

      // Convergence in the guest: nodes with >= 10 % of each process's memory, and the nodes
      // its worker threads (not the main thread, which waits) last ran on.
      std::map<long, long> node_of_cpu;
      for (std::size_t g = 0; g < n; ++g) {
        const auto path = dir / ("cpulist." + std::to_string(g));
        if (!std::filesystem::exists(path)) continue;
        std::ifstream in(path);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (unsigned cpu : numaplace::parse_cpulist(text, path.string(), 1)) node_of_cpu[cpu] = static_cast<long>(g);
      }
      const unsigned processes =
          kv.count("processes") ? number_of(kv, "processes", (dir / "workload.txt").string()) : name == "numa01" ? 2 : 1;
      std::vector<std::set<long>> thread_nodes(processes);
      {
        std::size_t line = 0;
        for (const auto& l : read_lines(dir / "final.txt")) {
          ++line;
          const auto w = words(l);
          const auto p = w.size() == 5 && w[0] == "task" ? to_int<unsigned>(w[1]) : std::nullopt;
          const auto pid = p ? to_int<long>(w[2]) : std::nullopt;
          const auto tid = p ? to_int<long>(w[3]) : std::nullopt;
          const auto cpu = p ? to_int<long>(w[4]) : std::nullopt;
          if (!p || !pid || !tid || !cpu || *p >= processes)
            fail_at((dir / "final.txt").string(), line, "expected 'task PROCESS PID TID CPU'");
          if (*tid == *pid) continue;
          const auto it = node_of_cpu.find(*cpu);
          if (it == node_of_cpu.end())
            fail_at((dir / "final.txt").string(), line, "CPU " + std::to_string(*cpu) + " is on no node's cpulist");
          thread_nodes[*p].insert(it->second);
        }
      }
      std::vector<numaplace::sim::run_result> sims;
      if (o.sim_seeds > 0) {
        // Same shape: 2 MiB chunks, runs as long as the guest's; work that does not end first.
        const auto chunks = std::max(1u, mib / 2);
        auto w = name == "numa01" ? numaplace::sim::workloads::numa01(threads, chunks, 1e12)
                 : name == "numa02" ? numaplace::sim::workloads::numa02(threads, chunks, 1e12)
                                    : jvm_like(kv, processes, threads, chunks, (dir / "workload.txt").string());
        if (name == "numa01") w.processes.resize(processes, w.processes.front());
        w.seconds = seconds;
        for (unsigned s = 1; s <= o.sim_seeds; ++s) {
          numaplace::sim::run_options ro;
          ro.seed = o.sim_first_seed + s - 1;
          sims.push_back(numaplace::sim::run_stack(sim_topology, w, o.sim_stack, ro));
        }
      }
      for (unsigned p = 0; p < processes; ++p) {
        const auto pages = parse_numa_maps(dir / ("numa_maps." + std::to_string(p)), n);
        std::uint64_t total = 0;
        for (auto v : pages) total += v;
        std::vector<long> memory_nodes;
        for (std::size_t g = 0; g < n; ++g) {
          if (total > 0 && pages[g] * 10 >= total) memory_nodes.push_back(static_cast<long>(g));
        }
        convergence_row row{name,
                            processes > 1 ? "process " + std::to_string(p + 1) : "process",
                            node_set(memory_nodes),
                            node_set({thread_nodes[p].begin(), thread_nodes[p].end()}),
                            "",
                            "",
                            -1,
                            ""};
        for (const record& r : records) {
          if (r.process == p) row.guest_passes = std::max(row.guest_passes, r.scan_seq);
        }
        for (const auto& res : sims) {
          const auto& g = res.groups.at(p);
          std::vector<long> mem(g.memory_nodes.begin(), g.memory_nodes.end());
          std::vector<long> on;
          if (!g.tasks_over_time.empty()) {
            const auto& last = g.tasks_over_time.back().tasks_per_node;
            for (std::size_t m = 0; m < last.size(); ++m) {
              if (last[m] > 0) on.push_back(static_cast<long>(sim_topology.id_of(static_cast<node_index>(m))));
            }
          }
          row.sim_memory += (row.sim_memory.empty() ? "" : " ") + node_set(mem);
          row.sim_threads += (row.sim_threads.empty() ? "" : " ") + node_set(on);
          row.sim_passes += (row.sim_passes.empty() ? "" : " ") + std::to_string(g.scan_passes);
        }
        rows.push_back(std::move(row));
      }
    }
  });

  std::printf("\nagreement (kernel numa_preferred_nid = linux-modern preferred_node), all workloads:\n");
  print_tally("total", overall);
  print_tally("not in a group", overall_ungrouped);
  std::printf(
      "  of the disagreements: (a) %zu (seen on that node %zu, changed without a placement %zu, moved through it %zu;\n"
      "  %zu also fit (c)), (c) %zu, (d) %zu\n",
      overall.count[1], a_kind[0], a_kind[1], a_kind[2], a_also_c, overall.count[3], overall.count[4]);
  for (const auto& s : others) std::printf("  (d) %s\n", s.c_str());

  std::printf(
      "\nconvergence at the end (guest node ids; memory: nodes with >= 10 %% of the process's pages;\n"
      "threads: nodes its threads last ran on; scan passes: mm->numa_scan_seq at the end;\n"
      "simulator: %s, seeds %u..%u, one CPU per node):\n",
      o.sim_stack.c_str(), o.sim_first_seed, o.sim_first_seed + o.sim_seeds - 1);
  std::printf("  %-8s %-10s | %-18s %-18s %-6s | %-s\n", "workload", "process", "guest memory", "guest threads",
              "passes", "sim memory / threads / passes");
  for (const auto& r : rows) {
    std::printf("  %-8s %-10s | %-18s %-18s %-6ld | %s / %s / %s\n", r.workload.c_str(), r.process.c_str(),
                r.guest_memory.c_str(), r.guest_threads.c_str(), r.guest_passes, r.sim_memory.c_str(),
                r.sim_threads.c_str(), r.sim_passes.c_str());
  }
  const auto check = [&](bool failed, const std::string& what) {
    if (!failed) return;
    std::fprintf(stderr, "numaplace-oracle-analysis: %s\n", what.c_str());
    status = 1;
  };
  char buf[200];
  if (overall.with_faults() == 0) {
    check(true, "no snapshot had NUMA faults: NUMA balancing did not run");
  } else {
    std::snprintf(buf, sizeof buf, "agreement %.1f %% is below --min-agreement %.1f %%", overall.agreement(),
                  o.min_agreement);
    check(o.min_agreement >= 0 && overall.agreement() < o.min_agreement, buf);
    std::snprintf(buf, sizeof buf, "agreement for tasks in no group %.1f %% is below --min-ungrouped-agreement %.1f %%",
                  overall_ungrouped.agreement(), o.min_ungrouped_agreement);
    check(o.min_ungrouped_agreement >= 0 && overall_ungrouped.with_faults() > 0 &&
              overall_ungrouped.agreement() < o.min_ungrouped_agreement,
          buf);
    const double unexplained = 100.0 * double(overall.count[4]) / double(overall.with_faults());
    std::snprintf(buf, sizeof buf,
                  "%.1f %% of the snapshots with faults are unexplained (d), above --max-unexplained %.1f %%",
                  unexplained, o.max_unexplained);
    check(o.max_unexplained >= 0 && unexplained > o.max_unexplained, buf);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
        return argv[++i];
      };
      if (a == "--machine" || a == "--preset")  // --preset: the old spelling
        o.preset = value();
      else if (a == "--file")
        o.file = value();
      else if (a == "--min-agreement")
        o.min_agreement = std::stod(value());
      else if (a == "--min-ungrouped-agreement")
        o.min_ungrouped_agreement = std::stod(value());
      else if (a == "--max-unexplained")
        o.max_unexplained = std::stod(value());
      else if (a == "--sim-seeds")
        o.sim_seeds = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--sim-first-seed")
        o.sim_first_seed = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--sim-stack")
        o.sim_stack = value();
      else if (a == "--show-other")
        o.show_other = true;
      else if (!a.empty() && a[0] == '-')
        throw std::invalid_argument("unknown option '" + a + "'");
      else
        o.dirs.push_back(a);
    }
    if (o.preset.empty() == o.file.empty()) throw std::invalid_argument("give one of --machine NAME or --file PATH");
    if (o.dirs.empty()) throw std::invalid_argument("no result folders");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "numaplace-oracle-analysis: %s\n", e.what());
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "numaplace-oracle-analysis: %s\n", e.what());
    return 2;
  }
}
