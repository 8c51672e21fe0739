// The plain matrix loader and the cpulist parser: good input, and bad input that must fail
// with an error naming the source, the line and the problem.
#include <doctest/doctest.h>

#include "../support/topology_errors.hpp"

#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/load_file.hpp>
#include <numaplace/topology/load_matrix.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#if defined(__unix__)
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace numaplace;
using numaplace::test::error_of;
using numaplace::test::mentions;

namespace {


std::vector<distance_t> row_of(const dynamic_topology& t, node_index r) {
  std::vector<distance_t> out;
  for (node_index c = 0; c < t.node_count(); ++c) out.push_back(t.distance(r, c));
  return out;
}

}  // namespace

TEST_CASE("a plain matrix with comments, blank lines and odd spacing") {
  const auto t = load::matrix_text(
      "# a 3-node box\n"
      "\n"
      "10 20 30   # node 0\n"
      "\t20  10 20\r\n"
      "   30 20 10\n"
      "# trailing comment\n");
  REQUIRE(t.node_count() == 3);
  CHECK(row_of(t, 0) == std::vector<distance_t>{10, 20, 30});
  CHECK(row_of(t, 1) == std::vector<distance_t>{20, 10, 20});
  CHECK(row_of(t, 2) == std::vector<distance_t>{30, 20, 10});
  CHECK(t.id_of(2) == 2);
  CHECK(t.has_cpu(1));
  CHECK(t.has_memory(1));
  CHECK(t.cpus(1).empty());
  CHECK(t.kind() == numa_kind::glueless_mesh);
  CHECK(t.max_distance() == 30);
}

TEST_CASE("the node ids comment gives OS ids with holes") {
  const auto t = load::matrix_text(
      "# node ids (OS numbering, row/column order): 0 4 9\n"
      "10 20 20\n20 10 20\n20 20 10\n");
  REQUIRE(t.node_count() == 3);
  CHECK(t.id_of(0) == 0);
  CHECK(t.id_of(1) == 4);
  CHECK(t.id_of(2) == 9);
  CHECK(t.index_of(9) == node_index{2});
  CHECK_FALSE(t.index_of(1).has_value());
  // Other comments that merely mention node ids are not the ids comment.
  const auto plain = load::matrix_text("# nodes: 2\n# note: sparse ids\n10 20\n20 10\n");
  CHECK(plain.id_of(1) == 1);
}

TEST_CASE("asymmetric matrices are accepted and reported") {
  const auto t = load::matrix_text("10 20\n30 10\n");
  REQUIRE(t.asymmetries().size() == 1);
  CHECK(t.asymmetries()[0].forward == 20);
  CHECK(t.asymmetries()[0].backward == 30);
}

TEST_CASE("a single node loads") {
  const auto t = load::matrix_text("10\n");
  CHECK(t.node_count() == 1);
  CHECK(t.kind() == numa_kind::direct);
}

TEST_CASE("bad matrices name the source, the line and the problem") {
  SUBCASE("empty input") {
    const auto m = error_of([] { load::matrix_text("", "empty.txt"); });
    CHECK(m.find("empty.txt") != std::string::npos);
    CHECK(m.find("empty") != std::string::npos);
    CHECK(error_of([] { load::matrix_text("# only\n\n  # comments\n"); }).find("no matrix rows") != std::string::npos);
  }
  SUBCASE("an unreadable number") {
    const auto m = error_of([] { load::matrix_text("10 20\n20 1O\n", "typo.txt"); });
    CHECK(m.find("typo.txt:2:") != std::string::npos);
    CHECK(m.find("row 1, column 1") != std::string::npos);
    CHECK(m.find("'1O' is not a whole number") != std::string::npos);
    for (const char* bad : {"10 2e1\n2e1 10\n", "10 +20\n20 10\n", "10 0x14\n20 10\n", "10 20.0\n20 10\n"}) {
      const std::string input = bad;
      CAPTURE(input);
      CHECK(error_of([&] { load::matrix_text(bad); }).find("not a whole number") != std::string::npos);
    }
  }
  SUBCASE("a negative number") {
    const auto m = error_of([] { load::matrix_text("10 -20\n20 10\n", "neg.txt"); });
    CHECK(m.find("neg.txt:1:") != std::string::npos);
    CHECK(m.find("row 0, column 1") != std::string::npos);
    CHECK(m.find("-20 is not positive") != std::string::npos);
  }
  SUBCASE("a number that overflows is an error, not a wrapped value") {
    const auto m = error_of([] { load::matrix_text("10 18446744073709551636\n20 10\n", "big.txt"); });
    CHECK(m.find("big.txt:1:") != std::string::npos);
    CHECK(m.find("too large") != std::string::npos);
  }
  SUBCASE("out of 10..255") {
    const auto high = error_of([] { load::matrix_text("# header\n10 20\n256 10\n", "range.txt"); });
    CHECK(high.find("range.txt:3:") != std::string::npos);
    CHECK(high.find("row 1, column 0") != std::string::npos);
    CHECK(high.find("256 is outside 10..255") != std::string::npos);
    const auto low = error_of([] { load::matrix_text("5 20\n20 5\n", "low.txt"); });
    CHECK(low.find("low.txt:1:") != std::string::npos);
    CHECK(low.find("5 is outside 10..255") != std::string::npos);
  }
  SUBCASE("not square / wrong row length") {
    const auto m = error_of([] { load::matrix_text("10 20 30\n20 10 30\n", "wide.txt"); });
    CHECK(m.find("wide.txt:1:") != std::string::npos);
    CHECK(m.find("square") != std::string::npos);
    const auto short_row = error_of([] { load::matrix_text("10 20 30\n20 10\n30 20 10\n", "short.txt"); });
    CHECK(short_row.find("short.txt:2:") != std::string::npos);
    CHECK(short_row.find("row 1") != std::string::npos);
    CHECK(short_row.find("2 entries") != std::string::npos);
  }
  SUBCASE("a bad diagonal") {
    const auto m = error_of([] { load::matrix_text("10 20\n20 11\n", "diag.txt"); });
    CHECK(m.find("diag.txt:2:") != std::string::npos);
    CHECK(m.find("local distance 11") != std::string::npos);
  }
  SUBCASE("too many nodes") {
    std::string row;
    for (int i = 0; i < 1025; ++i) row += i == 0 ? "10 " : "20 ";
    const auto wide = error_of([&] { load::matrix_text(row + "\n", "huge.txt"); });
    CHECK(wide.find("huge.txt:1:") != std::string::npos);
    CHECK(wide.find("1024") != std::string::npos);
    std::string tall;
    for (int i = 0; i < 1025; ++i) tall += "10\n";
    const auto rows = error_of([&] { load::matrix_text(tall, "tall.txt"); });
    CHECK(rows.find("tall.txt:1025:") != std::string::npos);
    CHECK(rows.find("too many nodes") != std::string::npos);
  }
  SUBCASE("bad node ids comments") {
    const auto count =
        error_of([] { load::matrix_text("# node ids: 0 4\n10 20 20\n20 10 20\n20 20 10\n", "ids.txt"); });
    CHECK(count.find("ids.txt:1:") != std::string::npos);
    CHECK(count.find("lists 2 ids but the matrix has 3 rows") != std::string::npos);
    const auto dup = error_of([] { load::matrix_text("10 20\n# node ids: 4 4\n20 10\n", "dup.txt"); });
    CHECK(dup.find("dup.txt:2:") != std::string::npos);
    CHECK(dup.find("node 4 appears twice") != std::string::npos);
    const auto garbage = error_of([] { load::matrix_text("# node ids: 0 x\n10 20\n20 10\n", "g.txt"); });
    CHECK(garbage.find("g.txt:1:") != std::string::npos);
    CHECK(garbage.find("'x'") != std::string::npos);
    const auto twice = error_of([] { load::matrix_text("# node ids: 0 1\n# node ids: 0 1\n10 20\n20 10\n", "t.txt"); });
    CHECK(twice.find("t.txt:2:") != std::string::npos);
    CHECK(twice.find("twice") != std::string::npos);
    const auto beyond = error_of([] { load::matrix_text("# node ids: 0 5000\n10 20\n20 10\n", "b.txt"); });
    CHECK(beyond.find("b.txt:1:") != std::string::npos);
    CHECK(beyond.find("5000") != std::string::npos);
    const auto negative = error_of([] { load::matrix_text("# node ids: 0 -1\n10 20\n20 10\n", "n.txt"); });
    CHECK(negative.find("-1 is negative") != std::string::npos);
  }
}

TEST_CASE("matrix files: missing, a folder, and the source in errors") {
  const std::string data = NUMAPLACE_TEST_DATA;
  const auto missing = error_of([&] { load::matrix_file(data + "/no-such-file.txt"); });
  CHECK(missing.find("no-such-file.txt") != std::string::npos);
  CHECK(missing.find("no such file") != std::string::npos);
  const auto folder = error_of([&] { load::matrix_file(data + "/topologies"); });
  CHECK(folder.find("is a folder") != std::string::npos);
  CHECK(error_of([&] { load::file(data + "/no-such-file.txt"); }).find("no such file") != std::string::npos);
  // A numactl paste without its table goes to the numactl parser, which says what is missing.
  CHECK(error_of([] {
          load::numactl_text("available: 1 nodes (0)\nnode 0 cpus: 0\n", "x");
        }).find("no 'node distances:'") != std::string::npos);
}

#if defined(__unix__)
TEST_CASE("a FIFO is refused at once, and a loop of links is called one, not a missing file") {
  // Opening a FIFO nobody writes to blocked load::matrix_file (and --sysfs, --hwloc-xml) forever.
  const auto dir = std::filesystem::temp_directory_path() / ("numaplace-special-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto refused = error_of([&] { load::matrix_file(fifo); });
  CHECK(refused.find(fifo.string() + ": is a FIFO, not a file") != std::string::npos);
  CHECK(error_of([&] { load::file(fifo); }).find("is a FIFO") != std::string::npos);
  std::filesystem::create_symlink(dir / "b", dir / "a");
  std::filesystem::create_symlink(dir / "a", dir / "b");
  CHECK(error_of([&] { load::matrix_file(dir / "a"); }).find("is a loop of symbolic links") != std::string::npos);
  std::filesystem::remove_all(dir);
}
#endif

TEST_CASE("parse_cpulist") {
  CHECK(parse_cpulist("0-3,8-11\n", "f", 1) == std::vector<unsigned>{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(parse_cpulist("5", "f", 1) == std::vector<unsigned>{5});
  CHECK(parse_cpulist("\n", "f", 1).empty());
  CHECK(parse_cpulist("", "f", 1).empty());
  CHECK(parse_cpulist("7,0-2,1", "f", 1) == std::vector<unsigned>{0, 1, 2, 7});  // overlaps merge
  CHECK(parse_cpulist("3-3", "f", 1) == std::vector<unsigned>{3});
  CHECK(parse_cpulist("65535", "f", 1) == std::vector<unsigned>{65535});

  const auto reversed = error_of([] { parse_cpulist("0,5-3", "cpulist", 7); });
  CHECK(reversed.find("cpulist:7:") != std::string::npos);
  CHECK(reversed.find("reversed range '5-3'") != std::string::npos);
  for (const char* bad : {"x", "0-3,x", "1-", "-1", "0--3", "1 2", "0-3:2/4", "a-b", "+1", "0x3"}) {
    const std::string input = bad;
    CAPTURE(input);
    const auto m = error_of([&] { parse_cpulist(bad, "cpulist", 1); });
    CHECK(m.find("cpulist:1:") != std::string::npos);
    CHECK(m.find("not a number") != std::string::npos);
  }
  for (const char* empty_entry : {"0,,1", "0,", ",0"}) {
    const std::string input = empty_entry;
    CAPTURE(input);
    CHECK(error_of([&] { parse_cpulist(empty_entry, "c", 1); }).find("empty entry") != std::string::npos);
  }
  for (const char* big : {"65536", "0-99999999999999999999999", "4294967296"}) {
    const std::string input = big;
    CAPTURE(input);
    CHECK(error_of([&] { parse_cpulist(big, "c", 1); }).find("larger than 65535") != std::string::npos);
  }
  // Many overlapping full ranges cost their length, not 65536 each.
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "0-65535,";
  many += "1";
  CHECK(parse_cpulist(many, "c", 1).size() == 65536);
}

TEST_CASE("node lines give CPUs and memory, e.g. a CPU-less CXL node") {
  const auto t = load::matrix_text(
      "node 0 cpus 0-3 memory 64G\n"
      "10 20 30\n"
      "20 10 30\n"
      "30 30 10\n"
      "node 2 cpus none memory 256G   # a CXL memory expander\n"
      "node 1 memory 1048576\n",
      "cxl.txt");
  REQUIRE(t.node_count() == 3);
  CHECK(t.has_cpu(0));
  CHECK(std::vector<unsigned>(t.cpus(0).begin(), t.cpus(0).end()) == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(t.memory_bytes(0) == (std::uint64_t{64} << 30));
  CHECK(t.has_cpu(1));  // no cpus given: has CPUs, numbers unknown
  CHECK(t.cpus(1).empty());
  CHECK(t.memory_bytes(1) == 1048576);
  CHECK_FALSE(t.has_cpu(2));
  CHECK(t.has_memory(2));
  CHECK(t.memory_bytes(2) == (std::uint64_t{256} << 30));

  // A memory-less node, keys in either order, and OS ids from the ids comment.
  const auto sparse = load::matrix_text("# node ids: 0 4\n10 20\n20 10\nnode 4 memory none cpus 8-9\n", "s.txt");
  const node_index four = *sparse.index_of(4);
  CHECK_FALSE(sparse.has_memory(four));
  CHECK(std::vector<unsigned>(sparse.cpus(four).begin(), sparse.cpus(four).end()) == std::vector<unsigned>{8, 9});
  CHECK(sparse.has_memory(*sparse.index_of(0)));
}

TEST_CASE("bad node lines name the file, the line and the node") {
  const std::string m = "10 20\n20 10\n";
  const auto unknown = error_of([&] { load::matrix_text(m + "node 7 cpus 0\n", "u.txt"); });
  CHECK(mentions(unknown, "u.txt:3:"));
  CHECK(mentions(unknown, "node 7 is not in the matrix, whose nodes are 0-1"));
  const auto twice = error_of([&] { load::matrix_text("node 1 cpus 0\n" + m + "node 1 memory 1G\n", "t.txt"); });
  CHECK(mentions(twice, "t.txt:4:"));
  CHECK(mentions(twice, "node 1 is described twice (first on line 1)"));
  const auto cpus_twice = error_of([&] { load::matrix_text(m + "node 0 cpus 0 cpus 1\n", "c.txt"); });
  CHECK(mentions(cpus_twice, "c.txt:3:"));
  CHECK(mentions(cpus_twice, "node 0: cpus are given twice"));
  const auto overlap = error_of([&] { load::matrix_text(m + "node 0 cpus 0-3\nnode 1 cpus 3-5\n", "o.txt"); });
  CHECK(mentions(overlap, "o.txt:4:"));
  CHECK(mentions(overlap, "CPU 3 is listed for both node 0 and node 1"));
  const auto size = error_of([&] { load::matrix_text(m + "node 1 memory 4X\n", "z.txt"); });
  CHECK(mentions(size, "z.txt:3:"));
  CHECK(mentions(size, "node 1 memory size '4X' is not a whole number"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node 1 memory 0\n"); }), "write 'memory none'"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node 1 memory 99999999999T\n"); }), "is larger than"));
  const auto list = error_of([&] { load::matrix_text(m + "node 0 cpus 5-3\n", "l.txt"); });
  CHECK(mentions(list, "l.txt:3:"));
  CHECK(mentions(list, "node 0 cpus: reversed range '5-3'"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node 0 cpu 1\n"); }),
                 "node 0: expected 'cpus LIST' or 'memory SIZE', got 'cpu'"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node 0 cpus\n"); }), "node 0: 'cpus' needs a value"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node\n"); }), "a node line needs a node id"));
  CHECK(mentions(error_of([&] { load::matrix_text(m + "node x cpus 1\n"); }), "node id 'x' is not a whole number"));
  CHECK(mentions(error_of([] { load::matrix_text("node 0 cpus 0\n", "only.txt"); }), "no matrix rows"));
}
