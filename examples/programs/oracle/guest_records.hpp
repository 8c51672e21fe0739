#pragma once
// What numaplace-oracle-workload records in a guest, parsed strictly: snapshots of every
// thread's /proc/PID/task/TID/sched (Linux 6.1's proc_sched_show_task()), workload.txt and
// numa_maps. Every error names the file and line. Shared by the oracle's host programs.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace numaplace_oracle {

class parse_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail_at(const std::string& file, std::size_t line, const std::string& what) {
  throw parse_error(file + ":" + std::to_string(line) + ": " + what);
}

// ---- strict parsing ---------------------------------------------------------------------------

template <class Int>
inline std::optional<Int> to_int(std::string_view s) {
  Int v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

inline std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw parse_error(p.string() + ": cannot read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw parse_error(path.string() + ": cannot read");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// `key=value`, the key checked; the value as Int.
template <class Int>
Int keyed(std::string_view word, std::string_view key, const std::string& file, std::size_t line) {
  if (word.size() <= key.size() + 1 || word.substr(0, key.size()) != key || word[key.size()] != '=') {
    fail_at(file, line, "expected '" + std::string(key) + "=N', found '" + std::string(word) + "'");
  }
  const auto v = to_int<Int>(word.substr(key.size() + 1));
  if (!v) fail_at(file, line, "'" + std::string(word) + "': not a number");
  return *v;
}

/// One node's line of show_numa_stats(): the task's and its group's decayed NUMA_MEM faults.
struct node_faults {
  std::uint64_t task_private = 0, task_shared = 0, group_private = 0, group_shared = 0;
};

/// One thread at one snapshot.
struct record {
  unsigned seq = 0;
  long ms = 0;
  unsigned process = 0;
  long pid = 0, tid = 0;
  long cpu = -1;  // stat field 39
  long scan_seq = -1;
  long cpu_migrations = 0;  // se.nr_migrations
  long pages_migrated = 0;
  long load_avg = 0;    // se.avg.load_avg: the thread's share of its CPU's load
  long preferred = -1;  // numa_preferred_nid, a guest node id or -1
  std::uint64_t total_faults = 0;
  long current_node = -1;
  long group_id = 0;
  std::vector<node_faults> faults;  // by guest node id
  std::size_t line = 0;

  std::uint64_t task_sum() const {
    std::uint64_t s = 0;
    for (const auto& f : faults) s += f.task_private + f.task_shared;
    return s;
  }
  bool same_task_faults(const record& o) const {
    for (std::size_t g = 0; g < faults.size(); ++g) {
      if (faults[g].task_private != o.faults[g].task_private || faults[g].task_shared != o.faults[g].task_shared)
        return false;
    }
    return true;
  }
  std::uint64_t group_sum() const {
    std::uint64_t s = 0;
    for (const auto& f : faults) s += f.group_private + f.group_shared;
    return s;
  }
};

// One "snapshot ... end" block: the sched file as Linux 6.1's proc_sched_show_task() prints it
// (kernel/sched/debug.c, sched_show_numa() and show_numa_stats() for the NUMA part).
inline record parse_block(const std::vector<std::string>& lines, std::size_t& i, std::size_t nodes, const std::string& file) {
  record r;
  r.line = i + 1;
  const auto head = words(lines[i]);
  if (head.size() != 7 || head[0] != "snapshot") fail_at(file, i + 1, "expected 'snapshot SEQ MS PROCESS PID TID CPU'");
  const auto seq = to_int<unsigned>(head[1]);
  const auto ms = to_int<long>(head[2]);
  const auto process = to_int<unsigned>(head[3]);
  const auto pid = to_int<long>(head[4]);
  const auto tid = to_int<long>(head[5]);
  const auto cpu = to_int<long>(head[6]);
  if (!seq || !ms || !process || !pid || !tid || !cpu) fail_at(file, i + 1, "a snapshot header field is not a number");
  r.seq = *seq, r.ms = *ms, r.process = *process, r.pid = *pid, r.tid = *tid, r.cpu = *cpu;
  ++i;
  // "comm (TID, #threads: N)", then a line of dashes.
  if (i + 1 >= lines.size()) fail_at(file, i, "the snapshot ends before the sched file does");
  const std::string tid_mark = "(" + std::to_string(r.tid) + ", #threads: ";
  if (lines[i].find(tid_mark) == std::string::npos || lines[i].back() != ')') {
    fail_at(file, i + 1, "expected 'COMM " + tid_mark + "N)', found '" + lines[i] + "'");
  }
  ++i;
  if (lines[i].empty() || lines[i].find_first_not_of('-') != std::string::npos)
    fail_at(file, i + 1, "expected a line of dashes");
  ++i;
  std::map<std::string, long> numa_keys{{"mm->numa_scan_seq", -1},
                                        {"numa_pages_migrated", -1},
                                        {"numa_preferred_nid", -2},
                                        {"total_numa_faults", -1},
                                        {"se.nr_migrations", -1},
                                        {"se.avg.load_avg", -1}};
  std::set<std::string> seen;
  bool have_current = false;
  for (; i < lines.size() && lines[i] != "end"; ++i) {
    const std::string& l = lines[i];
    if (l.rfind("current_node=", 0) == 0) {
      // "current_node=%d, numa_group_id=%d"
      const auto w = words(l);
      if (w.size() != 2 || w[0].back() != ',' || have_current)
        fail_at(file, i + 1, "expected one 'current_node=N, numa_group_id=G'");
      r.current_node = keyed<long>(w[0].substr(0, w[0].size() - 1), "current_node", file, i + 1);
      r.group_id = keyed<long>(w[1], "numa_group_id", file, i + 1);
      have_current = true;
      continue;
    }
    if (l.rfind("numa_faults ", 0) == 0) {
      // "numa_faults node=%d task_private=%lu task_shared=%lu group_private=%lu group_shared=%lu"
      const auto w = words(l);
      if (w.size() != 6)
        fail_at(file, i + 1,
                "expected 'numa_faults node=N task_private=.. task_shared=.. group_private=.. group_shared=..'");
      const auto node = keyed<std::size_t>(w[1], "node", file, i + 1);
      if (node != r.faults.size())
        fail_at(file, i + 1, "numa_faults for node " + std::to_string(node) + " out of order");
      node_faults f;
      f.task_private = keyed<std::uint64_t>(w[2], "task_private", file, i + 1);
      f.task_shared = keyed<std::uint64_t>(w[3], "task_shared", file, i + 1);
      f.group_private = keyed<std::uint64_t>(w[4], "group_private", file, i + 1);
      f.group_shared = keyed<std::uint64_t>(w[5], "group_shared", file, i + 1);
      r.faults.push_back(f);
      continue;
    }
    // Every other line is "key<blanks>:<blanks>value" (P(), PN() and __PS() of debug.c); a key
    // may be two words ("effective uclamp.min", printed where CONFIG_UCLAMP_TASK is set).
    const auto colon = l.find(':');
    if (colon == std::string::npos) fail_at(file, i + 1, "expected 'key : value', found '" + l + "'");
    const auto key = words(std::string_view(l).substr(0, colon));
    const auto value = words(std::string_view(l).substr(colon + 1));
    if (key.empty() || key.size() > 2 || value.size() != 1)
      fail_at(file, i + 1, "expected 'key : value', found '" + l + "'");
    if (key.size() != 1) continue;  // no NUMA key has two words
    const auto it = numa_keys.find(std::string(key[0]));
    if (it == numa_keys.end()) continue;
    if (!seen.insert(it->first).second) fail_at(file, i + 1, it->first + " appears twice");
    const auto v = to_int<long>(value[0]);
    if (!v || (*v < 0 && it->first != "numa_preferred_nid") || *v < -1)
      fail_at(file, i + 1, "bad value for " + it->first);
    it->second = *v;
  }
  if (i >= lines.size()) fail_at(file, r.line, "snapshot without 'end'");
  ++i;  // past "end"
  for (const auto& [key, value] : numa_keys) {
    if (!seen.count(key))
      fail_at(file, r.line, "the sched file has no " + key + " (a kernel without NUMA balancing or SCHED_DEBUG?)");
  }
  if (!have_current) fail_at(file, r.line, "the sched file has no current_node line");
  if (r.faults.size() != nodes) {
    fail_at(file, r.line,
            std::to_string(r.faults.size()) + " numa_faults lines for a " + std::to_string(nodes) + "-node guest");
  }
  r.scan_seq = numa_keys["mm->numa_scan_seq"];
  r.cpu_migrations = numa_keys["se.nr_migrations"];
  r.pages_migrated = numa_keys["numa_pages_migrated"];
  r.load_avg = numa_keys["se.avg.load_avg"];
  r.preferred = numa_keys["numa_preferred_nid"];
  r.total_faults = static_cast<std::uint64_t>(numa_keys["total_numa_faults"]);
  if (r.preferred >= static_cast<long>(nodes) || r.current_node < 0 || r.current_node >= static_cast<long>(nodes)) {
    fail_at(file, r.line, "a node id beyond the guest's " + std::to_string(nodes) + " nodes");
  }
  return r;
}

inline std::vector<record> parse_snapshots(const std::filesystem::path& path, std::size_t nodes) {
  const auto lines = read_lines(path);
  std::vector<record> out;
  for (std::size_t i = 0; i < lines.size();) out.push_back(parse_block(lines, i, nodes, path.string()));
  return out;
}

inline std::map<std::string, std::string> parse_workload_file(const std::filesystem::path& path) {
  std::map<std::string, std::string> kv;
  std::size_t n = 0;
  for (const auto& l : read_lines(path)) {
    ++n;
    const auto w = words(l);
    if (w.size() != 2) fail_at(path.string(), n, "expected 'key value'");
    kv[std::string(w[0])] = std::string(w[1]);
  }
  for (const char* key : {"workload", "threads", "mib", "seconds"}) {
    if (!kv.count(key)) throw parse_error(path.string() + ": no '" + key + "'");
  }
  return kv;
}

inline unsigned number_of(const std::map<std::string, std::string>& kv, const std::string& key, const std::string& file) {
  const auto v = to_int<unsigned>(kv.at(key));
  if (!v || *v == 0) throw parse_error(file + ": '" + key + "' is not a positive number");
  return *v;
}

// Pages per guest node in one numa_maps file: the N<node>=<pages> words of every mapping,
// weighted by kernelpagesize_kB (4 KiB units).
inline std::vector<std::uint64_t> parse_numa_maps(const std::filesystem::path& path, std::size_t nodes) {
  std::vector<std::uint64_t> pages(nodes, 0);
  std::size_t n = 0;
  for (const auto& l : read_lines(path)) {
    ++n;
    std::uint64_t page_kb = 4;
    std::vector<std::pair<std::size_t, std::uint64_t>> on;
    for (const auto w : words(l)) {
      if (w.rfind("kernelpagesize_kB=", 0) == 0) {
        const auto v = to_int<std::uint64_t>(w.substr(18));
        if (!v || *v < 4) fail_at(path.string(), n, "bad kernelpagesize_kB");
        page_kb = *v;
      } else if (w.size() > 2 && w[0] == 'N' && w[1] >= '0' && w[1] <= '9') {
        const auto eq = w.find('=');
        const auto node = to_int<std::size_t>(w.substr(1, eq == std::string_view::npos ? 0 : eq - 1));
        const auto count = eq == std::string_view::npos ? std::nullopt : to_int<std::uint64_t>(w.substr(eq + 1));
        if (!node || !count || *node >= nodes) fail_at(path.string(), n, "bad node count '" + std::string(w) + "'");
        on.emplace_back(*node, *count);
      }
    }
    for (const auto& [node, count] : on) pages[node] += count * (page_kb / 4);
  }
  return pages;
}

}  // namespace numaplace_oracle
