// numaplace-balance --interval: the daemon on a copy of the 8-node guest's recorded /proc and
// sysfs trees, changed by the test between scans: a process that exits, one it may not read,
// a node that goes offline, a topology that cannot be read, and SIGTERM/SIGINT during the wait;
// and --apply on the live machine, moves done and refused.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

const fs::path guest = fs::path(NUMAPLACE_TEST_DATA) / "proc" / "seed000-guest";

// A scratch copy of the guest's trees that the test may change, removed at the end.
struct fixture {
  fs::path root;
  fixture() {
    std::string dir = (fs::temp_directory_path() / "numaplace-daemon-XXXXXX").string();
    REQUIRE(mkdtemp(dir.data()) != nullptr);
    root = dir;
    fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);  // readable by nobody too
    fs::copy(guest, root, fs::copy_options::recursive);
  }
  ~fixture() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path proc() const { return root / "proc"; }
  fs::path sys() const { return root / "sys"; }
  std::vector<std::string> roots() const { return {"--proc", proc().string(), "--sys", sys().string()}; }
};

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::trunc) << text;
}

// The daemon as a child process, its stdout and stderr on one pipe.
class daemon_process {
 public:
  explicit daemon_process(std::vector<std::string> argv) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  daemon_process(const daemon_process&) = delete;
  daemon_process& operator=(const daemon_process&) = delete;
  ~daemon_process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }

  /// Reads until the output holds `text`; false after `seconds` or at the end of the output.
  bool wait_for(const std::string& text, double seconds = 10) {
    const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                  std::chrono::duration<double>(seconds));
    while (out_.find(text) == std::string::npos) {
      if (!read_some(deadline)) return false;
    }
    return true;
  }

  /// Reads to the end and reaps the child: its exit status, -1 if killed or still running
  /// after `seconds`.
  int finish(double seconds = 10) {
    const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                  std::chrono::duration<double>(seconds));
    while (read_some(deadline)) {
    }
    int status = 0;
    while (clock_type::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      usleep(10000);
    }
    return -1;
  }

  void signal(int s) const { kill(pid_, s); }
  const std::string& out() const { return out_; }

 private:
  bool read_some(clock_type::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
    if (left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
    std::array<char, 4096> buf{};
    const ssize_t n = read(fd_, buf.data(), buf.size());
    if (n <= 0) return false;
    out_.append(buf.data(), static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string out_;
};

// numaplace-balance ARGS through the shell, to its end: its exit status and its stdout (with
// its stderr when asked).
std::pair<int, std::string> run_balance(const std::string& args, bool with_stderr) {
  const std::string command = std::string(NUMAPLACE_BALANCE) + ' ' + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
  const int s = pclose(p);
  return std::make_pair(WIFEXITED(s) ? WEXITSTATUS(s) : -1, out);
}

std::vector<std::string> balance(const fixture& f, std::vector<std::string> more) {
  std::vector<std::string> argv{NUMAPLACE_BALANCE};
  for (const auto& r : f.roots()) argv.push_back(r);
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  if (end == std::string::npos) return {};
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

}  // namespace

TEST_CASE("daemon: a process that exits between scans, or while read, is reported once and dropped") {
  fixture f;
  daemon_process d(balance(f, {"--interval", "0.3", "--count", "3", "169", "170", "171"}));
  REQUIRE(d.wait_for("recommend nodes 6-7"));  // scan 1 has seen all three
  fs::remove_all(f.proc() / "170");            // gone altogether
  fs::remove(f.proc() / "171" / "numa_maps");  // status still there: it exits while being read
  const int status = d.finish();
  INFO(d.out());
  CHECK(status == 0);
  CHECK(occurrences(d.out(), "pid 170: no such process; dropped") == 1);
  CHECK(occurrences(d.out(), "pid 171: exited while being read") == 1);
  CHECK(occurrences(d.out(), "recommend nodes 5 (CPUs 5)") == 3);  // 169 in every scan
  CHECK(occurrences(d.out(), "recommend nodes 0-3 (CPUs 0-3)") == 1);
  CHECK(last_line(d.out()) == "numaplace-balance: stopped after 3 scans (--count)");
}

TEST_CASE("daemon: with every named process gone it stops, exit 0") {
  fixture f;
  daemon_process d(balance(f, {"--interval", "0.2", "169"}));
  REQUIRE(d.wait_for("recommend nodes 5"));
  fs::remove_all(f.proc() / "169");
  CHECK(d.finish() == 0);
  CHECK(last_line(d.out()) == "numaplace-balance: no process left to watch; stopped after 2 scans");
}

TEST_CASE("daemon: a process it may not read is reported once, and the daemon goes on") {
  fixture f;
  fs::permissions(f.proc() / "170" / "numa_maps", fs::perms::none);
  // root reads a mode-000 file anyway: run as nobody then, as numad would meet another user.
  std::vector<std::string> argv = balance(f, {"--interval", "0.2", "--count", "3", "169", "170"});
  if (geteuid() == 0) {
    if (std::system("command -v setpriv >/dev/null") != 0) {
      MESSAGE("skipped: root without setpriv cannot be refused a read");
      return;
    }
    argv.insert(argv.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }
  daemon_process d(argv);
  const int status = d.finish();
  INFO(d.out());
  CHECK(status == 0);
  CHECK(occurrences(d.out(), "pid 170: ") == 1);
  CHECK(d.out().find("numa_maps: Permission denied") != std::string::npos);
  CHECK(d.out().find("reported once, still watched") != std::string::npos);
  CHECK(occurrences(d.out(), "recommend nodes 5 (CPUs 5)") == 3);
}

TEST_CASE("daemon: a node going offline between scans is reported; an unreadable topology skips one scan") {
  fixture f;
  daemon_process d(balance(f, {"--interval", "0.3", "--count", "3", "171"}));
  REQUIRE(d.wait_for("recommend nodes 6-7 (CPUs 6-7)"));
  // Node 7 offline, as the kernel shows it: out of `online`, no folder, no column in the rows.
  write_file(f.sys() / "online", "0-6\n");
  fs::remove_all(f.sys() / "node7");
  for (int n = 0; n < 7; ++n) {
    const fs::path file = f.sys() / ("node" + std::to_string(n)) / "distance";
    std::ifstream in(file);
    std::stringstream row;
    row << in.rdbuf();
    std::string text = row.str();
    text = text.substr(0, text.find_last_of(' ')) + "\n";  // drop the last distance
    write_file(file, text);
  }
  // A scan's lines come out together when it ends: scan 2 is over once they show.
  REQUIRE(d.wait_for("went offline", 5));
  write_file(f.sys() / "node0" / "distance", "10 x\n");
  const int status = d.finish();
  INFO(d.out());
  CHECK(status == 0);
  CHECK(occurrences(d.out(), "node 7 went offline; advising on the nodes still online") == 1);
  // Two threads: node 6, its pair gone, widens to the distance-17 circle.
  CHECK(d.out().find("recommend nodes 4-6 (CPUs 4-6)") != std::string::npos);
  CHECK(d.out().find("ignored 0.1 MiB on node 7, which the topology does not have") != std::string::npos);
  CHECK(d.out().find("scan 3: cannot read the topology (") != std::string::npos);
  CHECK(d.out().find("node0/distance") != std::string::npos);
  CHECK(last_line(d.out()) == "numaplace-balance: stopped after 3 scans (--count)");
}

TEST_CASE("daemon: SIGTERM or SIGINT during the wait stops it at once, cleanly") {
  for (const int sig : {SIGTERM, SIGINT}) {
    fixture f;
    daemon_process d(balance(f, {"--interval", "60", "169"}));
    REQUIRE(d.wait_for("recommend nodes 5"));
    const auto sent = clock_type::now();
    d.signal(sig);
    const int status = d.finish(5);
    const double took = std::chrono::duration<double>(clock_type::now() - sent).count();
    INFO(d.out());
    CHECK(status == 0);
    CHECK(took < 0.5);
    CHECK(last_line(d.out()) ==
          std::string("numaplace-balance: stopped by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + " after 1 scan");
  }
}

TEST_CASE("numaplace-balance: --help on stdout with exit 0; usage errors name the argument, exit 2") {
  const auto run = run_balance;
  const auto [help_status, help] = run("--help", false);
  CHECK(help_status == 0);
  CHECK(help.find("--interval S") != std::string::npos);
  CHECK(help.find("--count N") != std::string::npos);
  const auto [a, bad_interval] = run("--interval 0 169", true);
  CHECK(a == 2);
  CHECK(bad_interval.find("--interval") != std::string::npos);
  const auto [b, count_alone] = run("--count 2 169", true);
  CHECK(b == 2);
  CHECK(count_alone.find("--count requires --interval") != std::string::npos);
  const auto [c, no_pid] = run("", true);
  CHECK(c == 2);
  CHECK(no_pid.find("name at least one PID, or --all") != std::string::npos);
  const auto [e, not_pid] = run("12x", true);
  CHECK(e == 2);
  CHECK(not_pid.find("12x") != std::string::npos);
}

// A process in the fixture tree made from 169's files: `name` in its status and stat, the
// stat's flags (field 9) replaced by `flags`, and `numa_maps` as given.
void add_process(const fixture& f, int pid, const std::string& name, unsigned long flags, const std::string& numa_maps) {
  const fs::path dir = f.proc() / std::to_string(pid);
  const std::string id = std::to_string(pid);
  fs::create_directories(dir / "task" / id);
  write_file(dir / "status", "Name:\t" + name + "\nPid:\t" + id + "\nThreads:\t1\nCpus_allowed_list:\t0-7\nMems_allowed_list:\t0-7\n");
  write_file(dir / "numa_maps", numa_maps);
  std::string stat;
  {
    std::ifstream in(f.proc() / "169" / "task" / "169" / "stat");
    std::getline(in, stat);
  }
  std::istringstream fields(stat.substr(stat.find(") ") + 2));
  std::vector<std::string> rest{std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()};
  rest[6] = std::to_string(flags);  // field 9
  std::string line = id + " (" + name + ")";
  for (const auto& r : rest) line += " " + r;
  write_file(dir / "task" / id / "stat", line + "\n");
}

constexpr unsigned long pf_kthread = 0x00200000;

TEST_CASE("--all: every process with resident pages; kernel threads, small processes and --exclude are passed over") {
  fixture f;
  // kthreadd, as the kernel shows it: PF_KTHREAD in its flags, nothing mapped.
  add_process(f, 2, "kthreadd", pf_kthread | 0x8040, "");
  // A user process with a mapping but no page in memory.
  add_process(f, 300, "idle", 0x400000, "00400000 default file=/usr/bin/sleep\n");
  {
    daemon_process d(balance(f, {"--all", "--min-memory", "0", "--interval", "0.2", "--count", "2"}));
    const int status = d.finish();
    INFO(d.out());
    CHECK(status == 0);
    for (const char* advice : {"recommend nodes 5 (CPUs 5)", "recommend nodes 0-3 (CPUs 0-3)", "recommend nodes 6-7"}) {
      CHECK(occurrences(d.out(), advice) == 2);
    }
    CHECK(d.out().find("pid 2 ") == std::string::npos);
    CHECK(d.out().find("pid 300") == std::string::npos);
    // Said once: the second scan passes over the same.
    CHECK(occurrences(d.out(), "passed over: 1 kernel thread (never advised on or moved)") == 1);
    CHECK(last_line(d.out()) == "numaplace-balance: stopped after 2 scans (--count)");
  }
  {
    // numad's 300 MB threshold by default: the guest's processes are a few MiB each.
    daemon_process d(balance(f, {"--all", "--exclude", "171", "--interval", "0.2", "--count", "1"}));
    CHECK(d.finish() == 0);
    INFO(d.out());
    CHECK(d.out().find("recommend") == std::string::npos);
    CHECK(d.out().find("passed over: 1 kernel thread, 1 by --exclude, 3 under --min-memory (300 MiB) (never advised on or moved)") !=
          std::string::npos);
  }
  {
    // Named processes are the user's choice, whatever their size; an excluded name still wins.
    daemon_process d(balance(f, {"--exclude", "numaplace-balan", "--interval", "0.2", "--count", "2", "169", "2", "1"}));
    CHECK(d.finish() == 0);
    INFO(d.out());
    CHECK(d.out().find("recommend") == std::string::npos);
    CHECK(occurrences(d.out(), "pid 169: excluded by --exclude; dropped") == 1);
    CHECK(occurrences(d.out(), "pid 2: a kernel thread is never moved; dropped") == 1);
    CHECK(occurrences(d.out(), "pid 1: PID 1, the init of its PID namespace, is never moved; dropped") == 1);
    CHECK(last_line(d.out()) == "numaplace-balance: no process left to watch; stopped after 1 scan");
  }
}

TEST_CASE("--exclude: PIDs and names, each checked; a name the kernel would cut is refused") {
  const auto run = [](const std::string& args) { return run_balance(args, true); };
  const auto [a, long_name] = run("--exclude numaplace-balance 169");
  CHECK(a == 2);
  CHECK(long_name.find("'numaplace-balance' has 17 characters; the kernel keeps at most 15") != std::string::npos);
  const auto [b, zero] = run("--exclude 0 169");
  CHECK(b == 2);
  CHECK(zero.find("'0' is not a PID") != std::string::npos);
  const auto [c, empty] = run("--exclude '' 169");
  CHECK(c == 2);
  CHECK(empty.find("an empty entry") != std::string::npos);
  const auto [d, huge] = run("--exclude 99999999999999999999 169");
  CHECK(d == 2);
  CHECK(huge.find("is not a PID") != std::string::npos);
}

TEST_CASE("daemon: SIGHUP is ignored with a line; SIGQUIT, SIGUSR1, SIGUSR2 stop it cleanly, named") {
  // Before: SIGHUP and SIGUSR1 killed it mid-wait (exit 129, 138) with no last line.
  fixture f;
  daemon_process d(balance(f, {"--interval", "60", "169"}));
  REQUIRE(d.wait_for("recommend nodes 5"));
  d.signal(SIGHUP);
  REQUIRE(d.wait_for("SIGHUP ignored", 5));
  for (const int sig : {SIGQUIT, SIGUSR1, SIGUSR2}) {
    fixture g;
    daemon_process e(balance(g, {"--interval", "60", "169"}));
    REQUIRE(e.wait_for("recommend nodes 5"));
    e.signal(sig);
    const int status = e.finish(5);
    INFO(e.out());
    CHECK(status == 0);
    const char* name = sig == SIGQUIT ? "SIGQUIT" : sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2";
    CHECK(last_line(e.out()) == std::string("numaplace-balance: stopped by ") + name + " after 1 scan");
  }
  d.signal(SIGTERM);
  CHECK(d.finish(5) == 0);
  INFO(d.out());
  CHECK(last_line(d.out()) == "numaplace-balance: stopped by SIGTERM after 1 scan");
}

TEST_CASE("in a PID namespace, --all --apply touches neither PID 1 nor itself") {
  // unshare(1) makes a PID namespace with its own /proc, where PID 1 is a shell. Before the
  // exclusions, --all --apply moved that PID 1 and the balancer itself; each move is a line.
  if (std::system("unshare --user --map-root-user --pid --fork --mount-proc true >/dev/null 2>&1") != 0 ||
      sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    MESSAGE("skipped: needs unshare with user and PID namespaces, and two CPUs");
    return;
  }
  const std::string script = "sleep 5 & " + std::string(NUMAPLACE_BALANCE) +
                             " --all --apply --min-memory 0 --interval 0.05 --count 2; kill $! 2>/dev/null; true";
  daemon_process d({"unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "sh", "-c", script});
  const int status = d.finish(20);
  INFO(d.out());
  CHECK(status == 0);
  CHECK(d.out().find("pid 1 ") == std::string::npos);
  CHECK(d.out().find("passed over: PID 1, numaplace-balance itself (never advised on or moved)") != std::string::npos);
  // The one other process there, sleep, is moved: --apply did run.
  CHECK(occurrences(d.out(), "applied: affinity of 1 thread set to CPUs") == 2);
}

TEST_CASE("daemon --apply on the live machine: a process is moved every scan; a move not permitted is reported once") {
  // --apply works on the live /proc and /sys only. One node here, so the set is the whole
  // machine, but each scan goes through the same calls (sched_setaffinity per thread). Run by
  // root, the child is nobody's, so that a daemon without CAP_SYS_NICE may read it but not move it.
  const bool as_root = geteuid() == 0;
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (as_root && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(1);
    sleep(20);
    _exit(0);
  }
  const std::string pid = std::to_string(child);
  {
    daemon_process d({NUMAPLACE_BALANCE, "--interval", "0.1", "--count", "3", "--apply", pid});
    const int status = d.finish();
    INFO(d.out());
    CHECK(status == 0);
    CHECK(occurrences(d.out(), "applied: affinity of 1 thread set to CPUs") == 3);
    CHECK(occurrences(d.out(), "memory already within the set") == 3);
  }
  if (as_root && std::system("command -v setpriv >/dev/null") == 0) {
    daemon_process d({"setpriv", "--bounding-set", "-sys_nice", NUMAPLACE_BALANCE, "--interval", "0.1", "--count", "3",
                      "--apply", pid});
    const int status = d.finish();
    INFO(d.out());
    CHECK(status == 0);  // the daemon goes on; the one-shot program would exit 3
    CHECK(occurrences(d.out(), "pid " + pid + ": not permitted: sched_setaffinity") == 1);
    CHECK(d.out().find("needs CAP_SYS_NICE, which root has unless a container or a capability bounding set took it away); reported once, still watched") != std::string::npos);
    CHECK(occurrences(d.out(), "recommend nodes") == 3);  // still advised every scan
    CHECK(d.out().find("applied:") == std::string::npos);
  } else {
    MESSAGE("the not-permitted case skipped: it needs root and setpriv");
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}
