#include "exclusions.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <system_error>

namespace balancer {

exclusion_reason exclusions::by_pid(int pid) const {
  if (pid == 1) return exclusion_reason::init;
  if (self_pid != 0 && pid == self_pid) return exclusion_reason::self;
  if (pids.count(pid) != 0) return exclusion_reason::listed;
  return exclusion_reason::none;
}

exclusion_reason exclusions::by_process(const process_snapshot& p, bool named) const {
  // Any thread will do: PF_KTHREAD is set for the whole of a kernel thread's life.
  if (std::any_of(p.threads.begin(), p.threads.end(), [](const task_stat& t) { return t.kernel_thread(); })) {
    return exclusion_reason::kernel_thread;
  }
  if (names.count(p.status.name) != 0) return exclusion_reason::listed;
  if (!named && p.memory.total_bytes() < min_bytes) return exclusion_reason::small;
  return exclusion_reason::none;
}

std::string describe(exclusion_reason r, const exclusions& e) {
  switch (r) {
    case exclusion_reason::none:
      return {};
    case exclusion_reason::init:
      return "PID 1, the init of its PID namespace, is never moved";
    case exclusion_reason::self:
      return "numaplace-balance itself is never moved";
    case exclusion_reason::kernel_thread:
      return "a kernel thread is never moved";
    case exclusion_reason::listed:
      return "excluded by --exclude";
    case exclusion_reason::small:
      return "under --min-memory (" + std::to_string(e.min_bytes >> 20) + " MiB)";
  }
  return {};
}

int self_in(const std::filesystem::path& proc_root) {
  std::error_code ec;
  const std::string target = std::filesystem::read_symlink(proc_root / "self", ec).string();
  int pid = 0;
  if (ec || std::from_chars(target.data(), target.data() + target.size(), pid).ec != std::errc{}) return 0;
  return pid;
}

void add_exclusion(exclusions& e, std::string_view entry) {
  if (entry.empty()) throw std::invalid_argument("an empty entry; expected a PID or a process name");
  if (entry.find_first_not_of("0123456789") == std::string_view::npos) {
    int pid = 0;
    const auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), pid);
    if (ec != std::errc{} || end != entry.data() + entry.size() || pid < 1 || pid > 0x3fffffff) {
      throw std::invalid_argument("'" + std::string(entry.substr(0, 20)) + "' is not a PID (1 to 1073741823)");
    }
    e.pids.insert(pid);
    return;
  }
  // TASK_COMM_LEN is 16 with its NUL (include/linux/sched.h, 2.6 to 6.12): a longer name
  // would never match, silently.
  if (entry.size() > 15) {
    throw std::invalid_argument("'" + std::string(entry.substr(0, 40)) + (entry.size() > 40 ? "...'" : "'") + " has " +
                                std::to_string(entry.size()) +
                                " characters; the kernel keeps at most 15 of a process's name (see its Name: in "
                                "/proc/PID/status)");
  }
  e.names.insert(std::string(entry));
}

}  // namespace balancer
