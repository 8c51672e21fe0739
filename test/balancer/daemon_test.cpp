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
#include <sstream>
#include <string>
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
  const auto run = [](const std::string& args, bool with_stderr) {
    const std::string command =
        std::string(NUMAPLACE_BALANCE) + ' ' + args + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
    const int s = pclose(p);
    return std::make_pair(WIFEXITED(s) ? WEXITSTATUS(s) : -1, out);
  };
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

TEST_CASE("--all: every process with resident pages; one without is passed over quietly") {
  fixture f;
  // A process whose one mapping has no page in memory (kernel threads, with an empty
  // numa_maps, read as gone and are passed over too).
  const fs::path kthread = f.proc() / "2";
  fs::create_directories(kthread / "task" / "2");
  write_file(kthread / "status", "Name:\tkthreadd\nPid:\t2\nThreads:\t1\nCpus_allowed_list:\t0-7\nMems_allowed_list:\t0-7\n");
  write_file(kthread / "numa_maps", "00400000 default file=/usr/bin/sleep\n");
  fs::copy_file(f.proc() / "169" / "task" / "169" / "stat", kthread / "task" / "2" / "stat");
  std::string stat;
  {
    std::ifstream in(kthread / "task" / "2" / "stat");
    std::getline(in, stat);
  }
  write_file(kthread / "task" / "2" / "stat", "2 (kthreadd)" + stat.substr(stat.find(") ") + 1) + "\n");

  daemon_process d(balance(f, {"--all", "--interval", "0.2", "--count", "2"}));
  const int status = d.finish();
  INFO(d.out());
  CHECK(status == 0);
  for (const char* advice : {"recommend nodes 5 (CPUs 5)", "recommend nodes 0-3 (CPUs 0-3)", "recommend nodes 6-7"}) {
    CHECK(occurrences(d.out(), advice) == 2);
  }
  CHECK(d.out().find("pid 2") == std::string::npos);
  CHECK(last_line(d.out()) == "numaplace-balance: stopped after 2 scans (--count)");
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
    CHECK(d.out().find("needs root or CAP_SYS_NICE); reported once, still watched") != std::string::npos);
    CHECK(occurrences(d.out(), "recommend nodes") == 3);  // still advised every scan
    CHECK(d.out().find("applied:") == std::string::npos);
  } else {
    MESSAGE("the not-permitted case skipped: it needs root and setpriv");
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}
