// numaplace-balance's /proc parsers and reader, on text and on fixture trees recorded in an
// 8-node guest (test/data/proc/seed000-guest).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <cstdint>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "proc_files.hpp"

namespace {

const std::filesystem::path guest = std::filesystem::path(NUMAPLACE_TEST_DATA) / "proc" / "seed000-guest";

std::string error_of(auto f) {
  try {
    f();
  } catch (const balancer::proc_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("numa_maps: pages per node, anonymous or not, huge pages in their own size") {
  const auto m = balancer::parse_numa_maps(
      "00400000 default file=/bin/x mapped=2 mapmax=3 N0=2 kernelpagesize_kB=4\n"
      "7f0000000000 bind:5 anon=4096 dirty=4096 N5=4096 kernelpagesize_kB=4\n"
      "7f1000000000 interleave:2-3 heap anon=10 dirty=10 N2=5 N3=5 kernelpagesize_kB=4\n"
      "7f2000000000 default file=/dev/hugepages/a\\040b huge dirty=2 N1=2 kernelpagesize_kB=2048\n"
      "7ffd00000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n"
      "7ffd10000000 default\n",
      "numa_maps");
  CHECK(m.bytes.at(0) == 5 * 4096);
  CHECK(m.bytes.at(5) == 4096ull * 4096);
  CHECK(m.bytes.at(1) == 2ull * 2048 * 1024);
  CHECK(m.anon_bytes.at(0) == 3 * 4096);
  CHECK(m.anon_bytes.count(1) == 0);
  CHECK(m.anon_bytes.at(2) == 5 * 4096);
  CHECK(m.total_bytes() == (5 + 4096 + 10) * 4096ull + 4ull * 1024 * 1024);
}

TEST_CASE("numa_maps: errors name the file and line") {
  CHECK(error_of([] { balancer::parse_numa_maps("00400000 default N0=1\nzz default N0=1\n", "maps"); }) ==
        "maps:2: 'zz' is not a hexadecimal address");
  CHECK(error_of([] { balancer::parse_numa_maps("00400000 default N0=x\n", "maps"); }) ==
        "maps:1: 'N0=x': the page count is not a number");
  CHECK(error_of([] { balancer::parse_numa_maps("00400000 default dirty=-1\n", "maps"); }) ==
        "maps:1: 'dirty=-1': expected KEY=NUMBER");
  CHECK(error_of([] { balancer::parse_numa_maps("00400000 default weird\n", "maps"); }) ==
        "maps:1: unexpected word 'weird'");
  CHECK(error_of([] { balancer::parse_numa_maps("00400000\n", "maps"); }).starts_with("maps:1: expected 'ADDRESS"));
  CHECK(error_of([] { balancer::parse_numa_maps("1 default N0=1 kernelpagesize_kB=0\n", "maps"); }) ==
        "maps:1: 'kernelpagesize_kB=0' is not a page size");
}

TEST_CASE("task stat: the CPU is field 39, after a command that may hold spaces and parentheses") {
  std::string fields;
  for (int f = 4; f <= 52; ++f) fields += ' ' + std::to_string(f == 39 ? 7 : f);
  const auto t = balancer::parse_task_stat("123 (a) (b c) S" + fields + "\n", "stat");
  CHECK(t.tid == 123);
  CHECK(t.comm == "a) (b c");
  CHECK(t.state == 'S');
  CHECK(t.processor == 7);
  CHECK(error_of([] { balancer::parse_task_stat("123 (a) S 1 2 3\n", "stat"); }) ==
        "stat:1: has 6 fields; the CPU is field 39");
  CHECK(error_of([] { balancer::parse_task_stat("x (a) S 1\n", "stat"); }) == "stat:1: 'x' is not a thread id");
  CHECK(error_of([] { balancer::parse_task_stat("no parentheses\n", "stat"); }) ==
        "stat:1: expected 'TID (COMM) STATE ...'");
}

TEST_CASE("read_process: a process recorded in the guest") {
  const auto p = balancer::read_process(guest / "proc", 170);
  REQUIRE(p);
  CHECK(p->status.name == "numaplace-balan");
  CHECK(p->threads.size() == 4);
  CHECK(p->status.threads == 4);
  CHECK(p->threads_gone == 0);
  CHECK(p->memory.bytes.at(2) >= 12u << 20);
  CHECK(p->memory.bytes.at(3) >= 11u << 20);
  for (const auto& t : p->threads) CHECK(t.processor >= 0);
}

TEST_CASE("read_process: a process that is not there, or whose threads or maps vanish, is not an error") {
  std::string why;
  CHECK_FALSE(balancer::read_process(guest / "proc", 99999, &why));
  CHECK(why == "no such process");

  // A copy of 169 whose numa_maps is gone (the process exited between two reads), and one whose
  // listed thread has no stat any more.
  const auto root = std::filesystem::temp_directory_path() / ("numaplace-balance-vanish-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::filesystem::copy(guest / "proc" / "169", root / "169", std::filesystem::copy_options::recursive);
  std::filesystem::copy(guest / "proc" / "170", root / "170", std::filesystem::copy_options::recursive);
  std::filesystem::remove(root / "169" / "numa_maps");
  CHECK_FALSE(balancer::read_process(root, 169, &why));
  CHECK(why.starts_with("exited while being read"));
  std::filesystem::remove(root / "170" / "task" / "176" / "stat");
  const auto p = balancer::read_process(root, 170);
  REQUIRE(p);
  CHECK(p->threads.size() == 3);
  CHECK(p->threads_gone == 1);
  std::filesystem::remove_all(root);
}

TEST_CASE("read_process: a malformed file is reported with its path") {
  const auto root = std::filesystem::temp_directory_path() / ("numaplace-balance-bad-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::filesystem::copy(guest / "proc" / "169", root / "169", std::filesystem::copy_options::recursive);
  std::ofstream(root / "169" / "numa_maps") << "00400000 default N0=1\n00401000 default N1=two\n";
  CHECK(error_of([&] { balancer::read_process(root, 169); }) ==
        (root / "169" / "numa_maps").string() + ":2: 'N1=two': the page count is not a number");
  // The status parser is the library's (numaplace::os::parse_status); its errors arrive as
  // proc_error with the same file and line.
  std::ofstream(root / "169" / "status") << "Name:\tx\nPid:\t169\nThreads:\t1\nCpus_allowed_list:\t0-\n";
  CHECK(error_of([&] { balancer::read_process(root, 169); }) ==
        (root / "169" / "status").string() + ":4: '0-' is not a number or a range such as 0-3");
  std::filesystem::remove_all(root);
}

TEST_CASE("numa_maps: pages that add up past 2^64 bytes are an error, not a wrapped total") {
  // Before: two mappings of 2^51 pages on node 0 wrapped to a few KiB, less than another
  // node's, and the balancer put the process there.
  const std::string near_half = "2251799813685248";  // 2^51 pages of 4 KiB: 2^63 bytes
  const auto one = balancer::parse_numa_maps("1000 default N0=" + near_half + " kernelpagesize_kB=4\n", "maps");
  CHECK(one.total_bytes() == std::uint64_t{1} << 63);
  CHECK(error_of([&] {
          balancer::parse_numa_maps("1000 default N0=" + near_half + " kernelpagesize_kB=4\n2000 default N0=" + near_half +
                                        " kernelpagesize_kB=4\n",
                                    "maps");
        }) == "maps:2: the pages up to here add up to more than 2^64 bytes, more than a machine has");
  // Across nodes too, so that total_bytes() cannot wrap either.
  CHECK(error_of([&] {
          balancer::parse_numa_maps("1000 default N0=" + near_half + " N1=" + near_half + " N2=" + near_half +
                                        " kernelpagesize_kB=4\n",
                                    "maps");
        }).starts_with("maps:1: the pages up to here add up to more than 2^64 bytes"));
}

TEST_CASE("task stat: field 9 holds the flags; PF_KTHREAD marks a kernel thread") {
  // Fields 11 to 38 zero, 39 (the CPU) 3, 40 zero.
  std::string rest;
  for (int field = 11; field <= 38; ++field) rest += " 0";
  rest += " 3 0\n";
  const auto kthreadd = balancer::parse_task_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0" + rest, "stat");
  CHECK(kthreadd.flags == 2129984);
  CHECK(kthreadd.kernel_thread());
  const auto user = balancer::parse_task_stat("9 (sh) S 1 9 9 0 -1 4194560 0" + rest, "stat");
  CHECK_FALSE(user.kernel_thread());
  CHECK(user.processor == 3);
  CHECK(error_of([&] { balancer::parse_task_stat("9 (sh) S 1 9 9 0 -1 x 0" + rest, "stat"); }) ==
        "stat:1: field 9 (flags) 'x' is not a number");
}

TEST_CASE("read_process: a recorded tree's file that is a FIFO or /dev/zero is refused, not read forever") {
  // Before: numa_maps as a link to /dev/zero was read without bound, a FIFO waited forever.
  const auto root = std::filesystem::temp_directory_path() / ("numaplace-balance-special-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::filesystem::copy(guest / "proc" / "169", root / "169", std::filesystem::copy_options::recursive);
  const auto maps = root / "169" / "numa_maps";
  std::filesystem::remove(maps);
  std::filesystem::create_symlink("/dev/zero", maps);
  CHECK(error_of([&] { balancer::read_process(root, 169); }) ==
        maps.string() + ": is a character device, not a file as the kernel's are");
  std::filesystem::remove(maps);
  REQUIRE(::mkfifo(maps.c_str(), 0600) == 0);
  CHECK(error_of([&] { balancer::read_process(root, 169); }) == maps.string() + ": is a FIFO, not a file as the kernel's are");
  std::filesystem::remove(maps);
  // A regular file past the bound: a status of 2 MiB.
  std::ofstream(root / "169" / "status") << std::string(2u << 20, 'x');
  CHECK(error_of([&] { balancer::read_process(root, 169); }) ==
        (root / "169" / "status").string() + ": is larger than 1 MiB, more than the kernel writes");
  std::filesystem::remove_all(root);
}
