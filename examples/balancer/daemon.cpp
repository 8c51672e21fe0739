#include "daemon.hpp"

#include <numaplace/topology/error.hpp>
#include <numaplace/topology/load_sysfs.hpp>

#include <signal.h>

#include <cerrno>
#include <cmath>
#include <ctime>
#include <iostream>
#include <optional>
#include <set>
#include <string>

namespace balancer {

namespace {

// SIGTERM and SIGINT stay blocked, so that they are only ever taken in wait_or_stop: a scan
// in progress always finishes.
sigset_t stop_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGINT);
  return s;
}

// Waits `seconds`; returns the stop signal that arrived meanwhile, or 0.
int wait_or_stop(const sigset_t& signals, double seconds) {
  double whole = 0;
  const double fraction = std::modf(seconds, &whole);
  timespec left{static_cast<std::time_t>(whole), static_cast<long>(fraction * 1e9)};
  for (;;) {
    const int s = sigtimedwait(&signals, nullptr, &left);
    if (s > 0) return s;
    if (errno == EAGAIN) return 0;
    // EINTR: another signal (SIGCHLD, SIGWINCH): wait again, a little longer than asked at most.
  }
}

// A signal that is already pending, without waiting.
int pending_stop(const sigset_t& signals) {
  timespec none{0, 0};
  const int s = sigtimedwait(&signals, nullptr, &none);
  return s > 0 ? s : 0;
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
    for (const int pid : pids) {
      const bool named = watched_.count(pid) != 0;
      examine_options eo = o_.examine;
      eo.skip_without_memory = !named;
      const examined e = examine(t, pid, eo, std::cout);
      switch (e.what) {
        case outcome::advised:
        case outcome::no_memory:
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
  }

  const daemon_options& o_;
  std::set<int> watched_;
  std::set<int> complained_;
  std::optional<std::set<int>> nodes_;
};

}  // namespace

int run_daemon(const daemon_options& o) {
  const sigset_t signals = stop_signals();
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  watcher w(o);
  unsigned done = 0;
  int stop = 0;
  while (stop == 0) {
    w.scan(++done);
    stop = pending_stop(signals);
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
  std::cout << "numaplace-balance: stopped by " << (stop == SIGTERM ? "SIGTERM" : "SIGINT") << " after " << done
            << " scan" << (done == 1 ? "" : "s") << '\n';
  return 0;
}

}  // namespace balancer
