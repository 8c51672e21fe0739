// numaplace-oracle-tiering: the kernel's hot-page promotions in NUMA balancing's tiering mode,
// predicted by the library. Reads what examples/programs/oracle/tiering-trace saved in a guest
// (a kprobe on should_numa_migrate_memory's call and return, with the fast node's promotion
// state at the call) and, for every call on a page in a lower tier, asks
// numaplace::should_promote() (policy/tier_promotion.hpp) with the state the kernel had; then
// scores the answers against the kernel's, beside the control "promote every hinted page".
//
//   numaplace-oracle-tiering [options] DIR...
//     --rule kernel|static-threshold  the rule that predicts: the kernel's (default), or a
//                           deliberately wrong one whose threshold never adjusts
//     --min-predicted PCT   exit 1 when fewer decisions are predicted
//     --margin PTS          exit 1 when the rate is not PTS points above the control that
//                           promotes every hinted page (keeping every page is printed too)
//     --show N              print the first N misses (5)
//
// What a decision needs from the recording: the page's access time before the call (the scan's
// stamp) and the time of the call (jiffies, in ms by the kernel's HZ, which the pairs of
// jiffies and the access time the kernel wrote at return tell); the fast node's threshold,
// threshold window and rate window, and its candidate count; the sysctls (tiering-layout.txt).
// A call the kernel answered by the free-space shortcut (PGPROMOTE_CANDIDATE_NRL rose, 6.13+)
// is predicted like any other: that shortcut needs a fast node with 1 GiB free, which the
// guests' nodes never have, and a miss there says so.
//
// Exit status: 0; 1 when a gate fails; 2 for bad usage or a recording that does not parse.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <numaplace/policy/tier_promotion.hpp>

#include "guest_records.hpp"
#include "trace_events.hpp"

namespace {

using numaplace_oracle::trace_error;
using numaplace_oracle::trace_event;
using numaplace_oracle::trace_log;

struct options {
  bool static_threshold = false;
  double min_predicted = -1, margin = -1;
  std::size_t show = 5;
  std::vector<std::string> dirs;
};

// tiering-layout.txt: "key value" lines, "cpu C node N" lines and "nodes_with_cpus A B ...".
struct layout {
  std::map<std::string, std::int64_t> values;
  std::map<std::int64_t, std::int64_t> node_of_cpu;
  std::vector<std::int64_t> top_tier;  // nodes with CPUs: the fast tier in these guests
  std::string file;

  std::int64_t get(const std::string& key) const {
    const auto it = values.find(key);
    if (it == values.end()) throw trace_error(file + ": no '" + key + "' (written by an older tiering-trace?)");
    return it->second;
  }
};

layout read_layout(const std::filesystem::path& p) {
  layout l;
  l.file = p.string();
  const std::vector<std::string> lines = numaplace_oracle::read_lines(p);
  for (std::size_t number = 1; number <= lines.size(); ++number) {
    const std::string& line = lines[number - 1];
    std::istringstream words(line);
    std::string key;
    if (!(words >> key)) continue;
    const auto bad = [&] { return trace_error(l.file + ":" + std::to_string(number) + ": cannot read '" + line + "'"); };
    if (key == "cpu") {
      std::int64_t cpu = 0, node = 0;
      std::string word;
      if (!(words >> cpu >> word >> node) || word != "node") throw bad();
      l.node_of_cpu[cpu] = node;
    } else if (key == "nodes_with_cpus") {
      for (std::int64_t n = 0; words >> n;) l.top_tier.push_back(n);
    } else {
      std::int64_t v = 0;
      if (!(words >> v)) throw bad();
      l.values[key] = v;
    }
  }
  return l;
}

struct decision {
  const trace_event* call = nullptr;
  const trace_event* ret = nullptr;
};

// The kernel's jiffies_to_msecs() factor (1000 / HZ): the one that turns every call's jiffies
// (or its return's) into the access time the kernel stamped (lower-tier pages keep a time there).
unsigned ms_per_jiffy(const trace_log& log, const std::vector<decision>& ds, unsigned mask) {
  for (const unsigned k : {1u, 2u, 4u, 10u}) {
    bool all = true, any = false;
    for (const decision& d : ds) {
      const auto atime = d.ret->find("atime");
      if (!atime) continue;
      any = true;
      // The kernel read jiffies between the call's probe and the return's (a tick may fall between).
      const auto stamped = [&](const trace_event& e) {
        const auto now = static_cast<unsigned>(static_cast<std::uint64_t>(log.get(e, "jiffies")) * k);
        return (now & mask) == (static_cast<unsigned>(*atime) & mask);
      };
      all = all && (stamped(*d.call) || stamped(*d.ret));
    }
    if (any && all) return k;
  }
  throw trace_error(log.file + ": the access times the kernel wrote match no HZ of 1000, 500, 250 or 100");
}

struct tally {
  std::size_t decisions = 0, predicted = 0, promoted = 0, not_tiering = 0;
  std::vector<std::string> misses;
};

void score(const std::filesystem::path& dir, const options& o, tally& t) {
  const layout lay = read_layout(dir / "tiering-layout.txt");
  const trace_log log =
      numaplace_oracle::parse_trace(numaplace_oracle::read_file(dir / "tiering-trace.txt"), (dir / "tiering-trace.txt").string());
  const auto width = lay.get("lastcpupid_width");
  if (width < 1 || width > 32) throw trace_error(lay.file + ": lastcpupid_width " + std::to_string(width) + " is not 1..32");
  // PAGE_ACCESS_TIME_BUCKETS: fewer than 12 bits keep the time in coarser buckets.
  const unsigned buckets = width < 12 ? static_cast<unsigned>(12 - width) : 0;
  const unsigned mask = width == 32 ? ~0u : ((1u << width) - 1) << buckets;
  numaplace::promotion_tunables tun;
  tun.hot_threshold_ms = static_cast<unsigned>(lay.get("hot_threshold_ms"));
  tun.rate_limit_mbps = static_cast<unsigned>(lay.get("rate_limit_mbps"));
  tun.threshold_period_ms = static_cast<unsigned>(lay.get("scan_period_max_ms"));
  if (o.static_threshold) tun.threshold_period_ms = ~0u;  // never a period's end: never adjusted...
  const unsigned page_shift = static_cast<unsigned>(std::countr_zero(static_cast<std::uint64_t>(lay.get("page_size"))));

  // Pair each call with its return: on the CPU that took the fault, the next return.
  std::vector<decision> ds;
  std::map<unsigned, const trace_event*> open;
  for (const trace_event& e : log.events) {
    if (e.name == "decide") {
      open[e.cpu] = &e;
    } else if (e.name == "decided") {
      const auto it = open.find(e.cpu);
      if (it == open.end() || it->second == nullptr)
        throw trace_error(log.file + ":" + std::to_string(e.line) + ": a return without its call");
      if (const auto f = e.find("folio"); f && *f != log.get(*it->second, "folio"))
        throw trace_error(log.file + ":" + std::to_string(e.line) + ": the return is for another page than its call");
      ds.push_back({it->second, &e});
      it->second = nullptr;
    }
  }
  // A page on the fast tier goes through the cpupid filter, not the heat: not scored.
  const auto on_fast_tier = [&](const decision& d) {
    const std::int64_t src = log.get(*d.call, "src_nid");
    return std::find(lay.top_tier.begin(), lay.top_tier.end(), src) != lay.top_tier.end();
  };
  const auto fast = std::partition(ds.begin(), ds.end(), [&](const decision& d) { return !on_fast_tier(d); });
  t.not_tiering += static_cast<std::size_t>(ds.end() - fast);
  ds.erase(fast, ds.end());
  const unsigned k = ms_per_jiffy(log, ds, mask);
  for (const decision& d : ds) {
    const auto cpu = log.get(*d.call, "dst_cpu");
    const auto node = lay.node_of_cpu.find(cpu);
    if (node == lay.node_of_cpu.end()) throw trace_error(lay.file + ": CPU " + std::to_string(cpu) + " is on no node");
    const std::string n = std::to_string(node->second);
    numaplace::promotion_node_state state;
    state.threshold_ms = o.static_threshold ? 0 : static_cast<unsigned>(log.get(*d.call, "th" + n));  // ...so the default
    state.threshold_start_ms = static_cast<unsigned>(log.get(*d.call, "ths" + n));
    state.threshold_candidates = static_cast<std::uint64_t>(log.get(*d.call, "thc" + n));
    state.rate_start_ms = static_cast<unsigned>(log.get(*d.call, "rls" + n));
    state.rate_candidates = static_cast<std::uint64_t>(log.get(*d.call, "rlc" + n));
    state.candidates = static_cast<std::uint64_t>(log.get(*d.call, "cand" + n));
    numaplace::promotion_fault f;
    f.now_ms = static_cast<unsigned>(static_cast<std::uint64_t>(log.get(*d.call, "jiffies")) * k);
    f.scanned_ms = static_cast<unsigned>(log.get(*d.call, "atime")) << buckets;
    const auto verdict = numaplace::should_promote(state, f, tun, page_shift);
    const bool kernel = log.get(*d.ret, "ret") != 0;
    ++t.decisions;
    t.promoted += kernel;
    if (numaplace::promotes(verdict) == kernel) {
      ++t.predicted;
    } else if (t.misses.size() < o.show) {
      const bool room = d.ret->find("nrl" + n).value_or(0) > d.call->find("nrl" + n).value_or(0);
      t.misses.push_back(log.file + ":" + std::to_string(d.call->line) + ": the kernel " +
                         (kernel ? "promoted" : "kept") + " the page, the library " +
                         (numaplace::promotes(verdict) ? "promotes" : "keeps") + " it (latency " +
                         std::to_string(numaplace::hint_fault_latency(f.now_ms, f.scanned_ms)) + " ms, threshold " +
                         std::to_string(state.threshold_ms != 0 ? state.threshold_ms : tun.hot_threshold_ms) + " ms" +
                         (room ? "; the kernel took the free-space shortcut" : "") + ")");
    }
  }
}

double pct(std::size_t a, std::size_t b) { return b == 0 ? 0.0 : 100.0 * double(a) / double(b); }

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--rule") {
      const std::string r = value();
      if (r != "kernel" && r != "static-threshold") throw std::invalid_argument("--rule: kernel or static-threshold, not '" + r + "'");
      o.static_threshold = r == "static-threshold";
    } else if (a == "--min-predicted") {
      o.min_predicted = std::stod(value());
    } else if (a == "--margin") {
      o.margin = std::stod(value());
    } else if (a == "--show") {
      o.show = std::stoul(value());
    } else if (a == "-h" || a == "--help") {
      std::printf("usage: numaplace-oracle-tiering [--rule kernel|static-threshold] [--min-predicted PCT] [--margin PTS] [--show N] DIR...\n");
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      throw std::invalid_argument("unknown option '" + a + "'");
    } else {
      o.dirs.push_back(a);
    }
  }
  if (o.dirs.empty()) throw std::invalid_argument("no folder of tiering-trace's records");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  tally t;
  try {
    o = parse(argc, argv);
    for (const std::string& d : o.dirs) score(d, o, t);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "numaplace-oracle-tiering: %s\n", e.what());
    return 2;
  }
  const double rate = pct(t.predicted, t.decisions);
  const double control = pct(t.promoted, t.decisions);  // "promote every hinted page"
  std::printf("promotion decisions on a lower tier: %zu (%zu promoted; %zu calls on the fast tier not scored)\n",
              t.decisions, t.promoted, t.not_tiering);
  std::printf("predicted by %s: %.1f %%\n",
              o.static_threshold ? "a static threshold (deliberately wrong)" : "the library (policy/tier_promotion.hpp)", rate);
  std::printf("controls: promote every hinted page %.1f %% (the gate's); keep every page %.1f %%\n", control,
              100.0 - control);
  for (const std::string& m : t.misses) std::printf("  miss: %s\n", m.c_str());
  int status = 0;
  if (t.decisions == 0) {
    std::fprintf(stderr, "numaplace-oracle-tiering: no promotion decision on a lower tier was recorded\n");
    return 1;
  }
  if (o.min_predicted >= 0 && rate < o.min_predicted) {
    std::fprintf(stderr, "numaplace-oracle-tiering: %.1f %% predicted, below --min-predicted %.1f\n", rate, o.min_predicted);
    status = 1;
  }
  if (o.margin >= 0 && rate - control < o.margin) {
    std::fprintf(stderr, "numaplace-oracle-tiering: %.1f %% is not %.1f points above the control's %.1f %%\n", rate, o.margin,
                 control);
    status = 1;
  }
  return status;
}
