// numaplace-tiering-workload: memory on a slow (CPU-less, lower tier) node, part of it hot, part
// cold, so that a guest kernel in NUMA balancing's memory tiering mode (numa_balancing=2) shows
// what it promotes. Built static: a guest's initramfs has no C library.
//
//   numaplace-tiering-workload --slow-node N [--cpu C] [--hot-mib H] [--cold-mib M] [--seconds S]
//
// Pins itself to CPU C (0), allocates H (8) + M (8) MiB bound to node N (mbind MPOL_BIND, every
// page written once), then drops the binding (MPOL_DEFAULT: the kernel's default policy lets NUMA
// balancing move the pages) and for S (20) seconds writes one byte of every hot page per pass;
// the cold pages are never touched again. Prints "key value" lines: the /proc/vmstat counters of
// tiering before and after (their differences), where the hot and cold pages are, page by page
// (move_pages with no target nodes), once a second and at the end. Exits 1 naming what failed.
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

// <linux/mempolicy.h>'s values, stable ABI; the guest build has no libnuma.
constexpr int mpol_default = 0;
constexpr int mpol_bind = 2;

[[noreturn]] void fail(const std::string& what) {
  std::cerr << "numaplace-tiering-workload: " << what << '\n';
  std::exit(1);
}

std::string errno_text() { return std::strerror(errno); }

// The counters NUMA balancing's tiering mode moves (mm/vmstat.c's names).
constexpr std::array<std::string_view, 9> counters{
    "pgpromote_success",  "pgpromote_candidate", "pgpromote_candidate_nrl",
    "pgdemote_kswapd",    "pgdemote_direct",     "pgdemote_khugepaged",
    "numa_hint_faults",   "numa_hint_faults_local", "numa_pages_migrated"};

std::map<std::string, long long> read_vmstat() {
  std::ifstream in("/proc/vmstat");
  if (!in) fail("cannot read /proc/vmstat");
  std::map<std::string, long long> values;
  std::string name;
  long long value = 0;
  while (in >> name >> value) values[name] = value;
  return values;
}

// The node of each page of [base, base + pages * page_size), -errno where it has none.
std::vector<int> nodes_of(char* base, std::size_t pages, std::size_t page_size) {
  std::vector<void*> addresses(pages);
  for (std::size_t i = 0; i < pages; ++i) addresses[i] = base + i * page_size;
  std::vector<int> status(pages, 0);
  if (syscall(SYS_move_pages, 0, pages, addresses.data(), nullptr, status.data(), 0) != 0)
    fail("move_pages (querying nodes): " + errno_text());
  return status;
}

// "node:pages node:pages ..." for the pages of one part.
std::string histogram(const std::vector<int>& nodes) {
  std::map<int, std::size_t> count;
  for (int n : nodes) ++count[n];
  std::ostringstream out;
  const char* sep = "";
  for (auto [node, pages] : count) {
    out << sep << node << ':' << pages;
    sep = " ";
  }
  return out.str();
}

std::size_t on_node(const std::vector<int>& nodes, int node) {
  std::size_t n = 0;
  for (int x : nodes) n += x == node ? 1 : 0;
  return n;
}

long parse_number(std::string_view option, const char* text, long low, long high) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < low || value > high)
    fail(std::string(option) + ": '" + text + "' is not a whole number in " + std::to_string(low) +
         ".." + std::to_string(high));
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  long slow_node = -1, cpu = 0, hot_mib = 8, cold_mib = 8, seconds = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string_view option = argv[i];
    if (i + 1 >= argc) fail("option '" + std::string(option) + "' needs a value");
    const char* value = argv[++i];
    if (option == "--slow-node") slow_node = parse_number(option, value, 0, 63);
    else if (option == "--cpu") cpu = parse_number(option, value, 0, 1023);
    else if (option == "--hot-mib") hot_mib = parse_number(option, value, 1, 4096);
    else if (option == "--cold-mib") cold_mib = parse_number(option, value, 0, 4096);
    else if (option == "--seconds") seconds = parse_number(option, value, 1, 3600);
    else fail("unknown option '" + std::string(option) + "'");
  }
  if (slow_node < 0) fail("give --slow-node N (the CPU-less node to allocate on)");

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(static_cast<std::size_t>(cpu), &cpus);
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) fail("cannot pin to CPU " + std::to_string(cpu) + ": " + errno_text());

  const auto page_size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t hot_pages = static_cast<std::size_t>(hot_mib) * (1 << 20) / page_size;
  const std::size_t cold_pages = static_cast<std::size_t>(cold_mib) * (1 << 20) / page_size;
  const std::size_t bytes = (hot_pages + cold_pages) * page_size;
  auto* base = static_cast<char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (base == MAP_FAILED) fail("mmap " + std::to_string(bytes) + " bytes: " + errno_text());
  // No transparent huge pages: the kernel promotes and counts base pages here.
  madvise(base, bytes, MADV_NOHUGEPAGE);

  unsigned long mask = 1UL << slow_node;
  if (syscall(SYS_mbind, base, bytes, mpol_bind, &mask, sizeof mask * 8, 0) != 0)
    fail("mbind MPOL_BIND to node " + std::to_string(slow_node) + ": " + errno_text());
  for (std::size_t i = 0; i < hot_pages + cold_pages; ++i) base[i * page_size] = 1;
  if (syscall(SYS_mbind, base, bytes, mpol_default, nullptr, 0, 0) != 0) fail("mbind MPOL_DEFAULT: " + errno_text());

  char* const hot = base;
  char* const cold = base + hot_pages * page_size;
  const auto allocated = nodes_of(base, hot_pages + cold_pages, page_size);
  if (on_node(allocated, static_cast<int>(slow_node)) != allocated.size())
    fail("not every page is on node " + std::to_string(slow_node) + " after MPOL_BIND: " + histogram(allocated));

  std::cout << "cpu " << cpu << "\nslow_node " << slow_node << "\nhot_pages " << hot_pages << "\ncold_pages "
            << cold_pages << '\n';
  const auto before = read_vmstat();

  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto next_report = start;
  unsigned long long passes = 0;
  for (;;) {
    const auto now = clock::now();
    if (now >= next_report) {
      const auto t = std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count();
      std::cout << "at_ms " << t << " passes " << passes << " hot " << histogram(nodes_of(hot, hot_pages, page_size))
                << " cold " << histogram(nodes_of(cold, cold_pages, page_size)) << std::endl;
      if (now - start >= std::chrono::seconds(seconds)) break;
      next_report += std::chrono::seconds(1);
    }
    for (std::size_t i = 0; i < hot_pages; ++i) ++hot[i * page_size];
    ++passes;
  }

  const auto after = read_vmstat();
  for (auto name : counters) {
    const std::string key(name);
    const auto b = before.find(key), a = after.find(key);
    if (b == before.end() || a == after.end()) {
      std::cout << "vmstat " << key << " absent\n";
      continue;
    }
    std::cout << "vmstat " << key << ' ' << a->second - b->second << '\n';
  }
  const auto hot_end = nodes_of(hot, hot_pages, page_size);
  const auto cold_end = nodes_of(cold, cold_pages, page_size);
  std::cout << "passes " << passes << "\nhot_end " << histogram(hot_end) << "\ncold_end " << histogram(cold_end)
            << "\nhot_promoted " << hot_pages - on_node(hot_end, static_cast<int>(slow_node)) << "\ncold_promoted "
            << cold_pages - on_node(cold_end, static_cast<int>(slow_node)) << '\n';
  munmap(base, bytes);
  return 0;
}
