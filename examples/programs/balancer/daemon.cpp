#include "daemon.hpp"

#include <numaplace/topology/error.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <map>
#include <iostream>
#include <optional>
#include <set>
#include <string>

namespace balancer {

namespace {

// The signals that stop the daemon (each would kill it, by default, mid-scan) and SIGHUP,
// which does not. They stay blocked, so that they are only ever taken in wait_or_stop: a scan
// in progress always finishes.
struct named_signal {
  int number;
  const char* name;
};
constexpr named_signal stopping_signals[] = {{SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
                                             {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGALRM, "SIGALRM"},
                                             {SIGXCPU, "SIGXCPU"}, {SIGPWR, "SIGPWR"}};

const char* signal_name(int s) {
  for (const auto& n : stopping_signals) {
    if (n.number == s) return n.name;
  }
  return "a signal";
}

sigset_t handled_signals() {
  sigset_t s;
  sigemptyset(&s);
  for (const auto& n : stopping_signals) sigaddset(&s, n.number);
  sigaddset(&s, SIGHUP);
  return s;
}

double now_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void say_hup_ignored() {
  std::cout << "numaplace-balance: SIGHUP ignored: there is no configuration to read again (all of it is on the "
               "command line)\n"
            << std::flush;
}

// Waits `seconds` (0: only takes what is pending); returns the stop signal that arrived
// meanwhile, or 0. SIGHUP is said and the wait goes on.
int wait_or_stop(const sigset_t& signals, double seconds) {
  const double deadline = now_seconds() + seconds;
  for (;;) {
    const double left_s = std::max(0.0, deadline - now_seconds());
    double whole = 0;
    const double fraction = std::modf(left_s, &whole);
    const timespec left{static_cast<std::time_t>(whole), static_cast<long>(fraction * 1e9)};
    const int s = sigtimedwait(&signals, nullptr, &left);
    if (s == SIGHUP) {
      say_hup_ignored();
      continue;
    }
    if (s > 0) return s;
    if (errno == EAGAIN) return 0;
    // EINTR: another signal (SIGCHLD, SIGWINCH): wait for what is left.
  }
}

std::set<int> node_ids(const numaplace::dynamic_topology& t) {
  std::set<int> ids;
  for (numaplace::node_index i = 0; i < t.node_count(); ++i) ids.insert(t.id_of(i));
  return ids;
}

// Every numeric folder of the /proc tree: the processes there now.
std::set<int> every_process(const std::filesystem::path& proc) {
  std::set<int> pids;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(proc, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) continue;
    pids.insert(std::stoi(name));
  }
  return pids;
}

class watcher {
 public:
  explicit watcher(const daemon_options& o) : o_(o), watched_(o.pids.begin(), o.pids.end()) {}

  bool anything_to_watch() const { return o_.all || !watched_.empty(); }

  void scan(unsigned number) {
    std::cout << "== scan " << number << '\n';
    std::optional<numaplace::dynamic_topology> t;
    try {
      t = numaplace::load::sysfs(o_.sys);
    } catch (const numaplace::topology_error& e) {
      std::cout << "scan " << number << ": cannot read the topology (" << e.what() << "); scan skipped\n";
    }
    if (t) {
      report_node_changes(*t);
      look_at_processes(*t);
    }
    std::cout << std::flush;
  }

 private:
  void report_node_changes(const numaplace::dynamic_topology& t) {
    const std::set<int> now = node_ids(t);
    if (nodes_) {
      for (const int id : *nodes_) {
        if (now.count(id) == 0) std::cout << "node " << id << " went offline; advising on the nodes still online\n";
      }
      for (const int id : now) {
        if (nodes_->count(id) == 0) std::cout << "node " << id << " came online\n";
      }
    }
    nodes_ = now;
  }

  void look_at_processes(const numaplace::dynamic_topology& t) {
    std::set<int> pids = watched_;
    if (o_.all) pids.merge(every_process(o_.examine.proc));
    std::map<exclusion_reason, unsigned> passed_over;
    for (const int pid : pids) {
      const bool named = watched_.count(pid) != 0;
      examine_options eo = o_.examine;
      eo.named = named;
      const examined e = examine(t, pid, eo, std::cout);
      switch (e.what) {
        case outcome::advised:
        case outcome::no_memory:
          break;
        case outcome::excluded:
          if (named) {
            std::cout << "pid " << pid << ": " << e.message << "; dropped\n";
            watched_.erase(pid);
          } else {
            ++passed_over[e.excluded_for];
          }
          break;
        case outcome::gone:
          // --all lists whatever is there; only processes asked for by name are news when gone.
          if (named) {
            std::cout << "pid " << pid << ": " << e.message << "; dropped\n";
            watched_.erase(pid);
          }
          break;
        case outcome::not_permitted:
        case outcome::bad_file:
        case outcome::move_failed:
          // Once per process: a daemon that repeats the same complaint every scan buries the news.
          if (complained_.insert(pid).second) {
            std::cout << "pid " << pid << ": " << e.message << "; reported once, still watched\n";
          }
          break;
      }
    }
    report_passed_over(passed_over);
  }

  // "passed over: PID 1, itself, 57 kernel threads, 12 under --min-memory (300 MiB)", when the
  // counts differ from the last scan's.
  void report_passed_over(const std::map<exclusion_reason, unsigned>& counts) {
    if (counts == last_passed_over_) return;
    last_passed_over_ = counts;
    if (counts.empty()) return;
    std::cout << "passed over:";
    const char* separator = " ";
    for (const auto& [reason, n] : counts) {
      std::cout << separator;
      separator = ", ";
      switch (reason) {
        case exclusion_reason::init: std::cout << "PID 1"; break;
        case exclusion_reason::self: std::cout << "numaplace-balance itself"; break;
        case exclusion_reason::kernel_thread: std::cout << n << " kernel thread" << (n == 1 ? "" : "s"); break;
        case exclusion_reason::listed: std::cout << n << " by --exclude"; break;
        case exclusion_reason::small: std::cout << n << " " << describe(reason, o_.examine.skip); break;
        case exclusion_reason::none: break;
      }
    }
    std::cout << " (never advised on or moved)\n";
  }

  const daemon_options& o_;
  std::map<exclusion_reason, unsigned> last_passed_over_;
  std::set<int> watched_;
  std::set<int> complained_;
  std::optional<std::set<int>> nodes_;
};

}  // namespace

int run_daemon(const daemon_options& o) {
  const sigset_t signals = handled_signals();
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  watcher w(o);
  unsigned done = 0;
  int stop = 0;
  while (stop == 0) {
    w.scan(++done);
    stop = wait_or_stop(signals, 0);
    if (stop != 0) break;
    if (o.scans && done >= *o.scans) {
      std::cout << "numaplace-balance: stopped after " << done << " scan" << (done == 1 ? "" : "s") << " (--count)\n";
      return 0;
    }
    if (!w.anything_to_watch()) {
      std::cout << "numaplace-balance: no process left to watch; stopped after " << done << " scan"
                << (done == 1 ? "" : "s") << '\n';
      return 0;
    }
    stop = wait_or_stop(signals, o.interval_seconds);
  }
  std::cout << "numaplace-balance: stopped by " << signal_name(stop) << " after " << done
            << " scan" << (done == 1 ? "" : "s") << '\n';
  return 0;
}

}  // namespace balancer
