// The QEMU-guest oracle's readers of what its guest recorded (guest_records.hpp: the sched
// snapshots, workload.txt, numa_maps) on any bytes. The first byte picks the guest's node count
// (byte % 8 + 1); the rest is written to a per-process file under /tmp, which each reader
// parses. Each either succeeds, with its invariants holding, or throws a parse_error naming the
// file and, where a line is at fault, "PATH:LINE: ". Any other exception escapes and libFuzzer
// reports it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "../../examples/programs/oracle/guest_records.hpp"
#include "check.hpp"

namespace {

const std::string& scratch_path() {
  static const std::string path = "/tmp/numaplace-fuzz_guest_records." + std::to_string(::getpid());
  return path;
}

// "PATH:LINE: ..." with LINE within the file's, or a whole-file error: "PATH: cannot read",
// "PATH: no 'KEY'", "PATH: 'KEY' is not a positive number".
void check_located(const numaplace_oracle::parse_error& e, const std::string& path, std::size_t max_line) {
  const std::string_view what = e.what();
  NUMAPLACE_FUZZ_CHECK(what.substr(0, path.size()) == path);
  const std::string_view rest = what.substr(path.size());
  if (rest.substr(0, 2) == ": ") {
    const std::string_view reason = rest.substr(2);
    NUMAPLACE_FUZZ_CHECK(reason == "cannot read" || reason.substr(0, 4) == "no '" || reason.substr(0, 1) == "'");
    return;
  }
  NUMAPLACE_FUZZ_CHECK(rest.substr(0, 1) == ":");
  std::size_t i = 1;
  std::size_t line = 0;
  while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && line <= max_line) {
    line = line * 10 + static_cast<std::size_t>(rest[i] - '0');
    ++i;
  }
  NUMAPLACE_FUZZ_CHECK(i > 1);
  NUMAPLACE_FUZZ_CHECK(line >= 1 && line <= max_line);
  NUMAPLACE_FUZZ_CHECK(rest.substr(i, 2) == ": ");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  using namespace numaplace_oracle;
  if (size == 0) return 0;
  const std::size_t nodes = data[0] % 8 + 1;
  const std::string_view text = as_text(data + 1, size - 1);
  std::size_t lines = 0;  // what std::getline returns: one per '\n', plus an unterminated last
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  if (!text.empty() && text.back() != '\n') ++lines;
  const std::string& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    NUMAPLACE_FUZZ_CHECK(out.good());
  }

  try {
    const std::vector<record> records = parse_snapshots(path, nodes);
    std::size_t previous = 0;
    for (const record& r : records) {
      NUMAPLACE_FUZZ_CHECK(r.line >= 1 && r.line > previous && r.line <= lines);
      previous = r.line;
      NUMAPLACE_FUZZ_CHECK(r.faults.size() == nodes);
      NUMAPLACE_FUZZ_CHECK(r.current_node >= 0 && r.current_node < static_cast<long>(nodes));
      NUMAPLACE_FUZZ_CHECK(r.preferred >= -1 && r.preferred < static_cast<long>(nodes));
      NUMAPLACE_FUZZ_CHECK(r.scan_seq >= 0 && r.cpu_migrations >= 0 && r.pages_migrated >= 0 && r.load_avg >= 0);
      NUMAPLACE_FUZZ_CHECK(r.same_task_faults(r));
      (void)r.task_sum();
      (void)r.group_sum();
    }
    NUMAPLACE_FUZZ_CHECK(records.empty() == (lines == 0));
  } catch (const parse_error& e) {
    check_located(e, path, lines);
  }

  try {
    const std::map<std::string, std::string> kv = parse_workload_file(path);
    for (const char* key : {"workload", "threads", "mib", "seconds"}) {
      NUMAPLACE_FUZZ_CHECK(kv.count(key) == 1);
      NUMAPLACE_FUZZ_CHECK(!kv.at(key).empty());
    }
    for (const char* key : {"threads", "mib", "seconds"}) {
      try {
        NUMAPLACE_FUZZ_CHECK(number_of(kv, key, path) > 0);
      } catch (const parse_error& e) {
        check_located(e, path, lines);
      }
    }
  } catch (const parse_error& e) {
    check_located(e, path, lines);
  }

  try {
    const std::vector<std::uint64_t> pages = parse_numa_maps(path, nodes);
    NUMAPLACE_FUZZ_CHECK(pages.size() == nodes);
  } catch (const parse_error& e) {
    check_located(e, path, lines);
  }
  return 0;
}
