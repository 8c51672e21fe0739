// /proc/stat's idle ticks (proc_stat_idle.hpp), numad's idle sample for advise --numad.
#include <doctest/doctest.h>

#include <numaplace/topology/error.hpp>
#include <numaplace/topology/proc_stat_idle.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

using numaplace::load::idle_hundredths;
using numaplace::load::proc_stat_idle_ticks;

namespace {

std::string complaint(const std::string& text) {
  try {
    proc_stat_idle_ticks(text, "stat");
  } catch (const numaplace::topology_error& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("proc_stat_idle_ticks reads the fourth field of every cpuN line") {
  const std::string stat =
      "cpu  4818139 509250 251441 1090031 7747 0 1619 3511 0 0\n"
      "cpu0 2393899 247904 122055 572619 2317 0 113 1749 0 0\n"
      "cpu2 2424240 261346 129386 517412 5429 0 1505 1762 0 0\n"
      "intr 18546806 0 0\nctxt 22183192\n";
  const auto idle = proc_stat_idle_ticks(stat, "stat");
  CHECK(idle == std::map<unsigned, std::uint64_t>{{0, 572619}, {2, 517412}});
  CHECK(complaint("cpu0 1 2 3\n") == "stat:1: expected 'cpu0 user nice system idle ...'");
  CHECK(complaint("cpu0 1 2 3 x\n").find("stat:1:") == 0);
  CHECK(complaint("cpu0 1 2 3 4\ncpu0 1 2 3 4\n") == "stat:2: CPU 0 is listed twice");
  CHECK(complaint("cpu99999 1 2 3 4\n").find("stat:1:") == 0);
}

TEST_CASE("idle_hundredths: a node's idle ticks over the elapsed time, in hundredths of a CPU") {
  const std::map<unsigned, std::uint64_t> before{{0, 1000}, {1, 1000}, {2, 500}};
  const std::map<unsigned, std::uint64_t> after{{0, 1200}, {1, 1150}, {2, 400}};
  // CPUs 0 and 1 idle 200 + 150 ticks in 200 hundredths: 1.75 CPUs, 175.
  CHECK(idle_hundredths(std::vector<unsigned>{0, 1}, before, after, 200) == 175);
  // CPU 2 went backwards (onlined anew), CPU 3 is in neither sample: nothing.
  CHECK(idle_hundredths(std::vector<unsigned>{2, 3}, before, after, 200) == 0);
  CHECK(idle_hundredths(std::vector<unsigned>{0}, before, after, 0) == 0);
}
