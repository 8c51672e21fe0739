// The Linux layer's parsers: /proc/PID/status, /proc/PID/cgroup and cpuset list files. Every
// malformed input is an error naming the file and line.
#include <doctest/doctest.h>

#include <numaplace/linux/cpuset.hpp>
#include <numaplace/linux/proc_status.hpp>

#include <string>
#include <vector>

#include "../support/topology_errors.hpp"

namespace {

using numaplace::os::parse_cpuset_cpus;
using numaplace::os::parse_cpuset_mems;
using numaplace::os::parse_proc_cgroup;
using numaplace::os::parse_status;
using numaplace::test::error_of;

const std::string good_status =
    "Name:\tmy proc\nUmask:\t0022\nPid:\t42\nThreads:\t3\nCpus_allowed:\tff\nCpus_allowed_list:\t0-3,6\n"
    "Mems_allowed_list:\t0-1\n";

}  // namespace

TEST_CASE("status: name, pid, threads, allowed CPUs and nodes") {
  const auto s = parse_status(good_status, "status");
  CHECK(s.name == "my proc");
  CHECK(s.pid == 42);
  CHECK(s.threads == 3);
  CHECK(s.cpus_allowed == std::vector<unsigned>{0, 1, 2, 3, 6});
  CHECK(s.mems_allowed == std::vector<unsigned>{0, 1});
  // Keys we do not read may say anything; blank lines are skipped.
  CHECK(parse_status("Weird key:\t?? !!\n\n" + good_status, "status").pid == 42);
}

TEST_CASE("status: every malformed line is an error at its line") {
  CHECK(error_of([] { parse_status("Name:\tx\nPid:\t1\nThreads:\t1\nCpus_allowed_list:\t0\n", "st"); }) ==
        "st: no Mems_allowed_list line");
  CHECK(error_of([] { parse_status("Name:\tx\nPid:\t1\nThreads:\t1\nMems_allowed_list:\t0\n", "st"); }) ==
        "st: no Cpus_allowed_list line");
  CHECK(error_of([] { parse_status("Pid:\t1\nThreads:\t1\nCpus_allowed_list:\t0\nMems_allowed_list:\t0\n", "st"); }) ==
        "st: no Name line");
  CHECK(error_of([] {
          parse_status("Name:\tx\nPid:\t1\nThreads:\t1\nCpus_allowed_list:\t3-1\nMems_allowed_list:\t0\n", "st");
        }).starts_with("st:4: reversed range '3-1'"));
  CHECK(error_of([] { parse_status("Name:\tx\nno colon here\n", "st"); }) == "st:2: expected 'Key:\tvalue'");
  CHECK(error_of([] { parse_status(":\tvalue\n", "st"); }) == "st:1: expected 'Key:\tvalue'");
  CHECK(error_of([] { parse_status("Pid:\t-3\n", "st"); }) == "st:1: Pid '-3' is not a process id");
  CHECK(error_of([] { parse_status("Pid:\t0\n", "st"); }) == "st:1: Pid '0' is not a process id");
  CHECK(error_of([] { parse_status("Pid:\t99999999999\n", "st"); }) == "st:1: Pid '99999999999' is not a process id");
  CHECK(error_of([] { parse_status("Threads:\tmany\n", "st"); }) == "st:1: Threads 'many' is not a whole number");
  CHECK(error_of([] { parse_status("Name:\ta\nPid:\t1\nName:\tb\n", "st"); }) ==
        "st:3: Name appears twice (first on line 1)");
  CHECK(error_of([] { parse_status("Mems_allowed_list:\t0,1024\n", "st"); }) ==
        "st:1: node id 1024 is outside 0..1023");
  CHECK(error_of([] { parse_status("Cpus_allowed_list:\t0,,1\n", "st"); }) ==
        "st:1: empty entry in list '0,,1'");
}

TEST_CASE("cgroup: v2, v1 with a cpuset hierarchy, and both (hybrid)") {
  const auto v2 = parse_proc_cgroup("0::/user.slice/session-1.scope\n", "cg");
  CHECK(v2.unified == "/user.slice/session-1.scope");
  CHECK_FALSE(v2.cpuset);

  const auto hybrid = parse_proc_cgroup("12:name=systemd:/\n4:cpu,cpuset:/batch\n3:memory:/m\n0::/\n", "cg");
  CHECK(hybrid.cpuset == "/batch");
  CHECK(hybrid.unified == "/");

  // A path may hold colons; only the first two separate fields. "cpusetx" is not cpuset.
  const auto odd = parse_proc_cgroup("5:cpusetx:/a\n0::/a:b\n", "cg");
  CHECK_FALSE(odd.cpuset);
  CHECK(odd.unified == "/a:b");

  const auto none = parse_proc_cgroup("", "cg");
  CHECK_FALSE(none.unified);
  CHECK_FALSE(none.cpuset);
}

TEST_CASE("cgroup: every malformed line is an error at its line") {
  CHECK(error_of([] { parse_proc_cgroup("0::/\n0:/x\n", "cg"); }) == "cg:2: expected 'ID:CONTROLLERS:PATH'");
  CHECK(error_of([] { parse_proc_cgroup("x:cpuset:/\n", "cg"); }) == "cg:1: hierarchy id 'x' is not a number");
  CHECK(error_of([] { parse_proc_cgroup(":cpuset:/\n", "cg"); }) == "cg:1: hierarchy id '' is not a number");
  CHECK(error_of([] { parse_proc_cgroup("0::relative\n", "cg"); }) ==
        "cg:1: cgroup path 'relative' does not start with '/'");
  CHECK(error_of([] { parse_proc_cgroup("0::\n", "cg"); }) == "cg:1: cgroup path '' does not start with '/'");
  CHECK(error_of([] { parse_proc_cgroup("3:cpuset:/a/../../etc\n", "cg"); }) ==
        "cg:1: cgroup path '/a/../../etc' has a '..' step");
  CHECK(error_of([] { parse_proc_cgroup("0:cpuset:/\n", "cg"); }) ==
        "cg:1: hierarchy 0 is cgroup v2, which lists no controllers, not 'cpuset'");
  CHECK(error_of([] { parse_proc_cgroup("0::/\n1:memory:/\n0::/b\n", "cg"); }) ==
        "cg:3: a second cgroup v2 line (the first is line 1)");
  CHECK(error_of([] { parse_proc_cgroup("3:cpuset:/\n4:cpu,cpuset:/\n", "cg"); }) ==
        "cg:2: a second hierarchy with the cpuset controller (the first is line 1)");
}

TEST_CASE("cpuset lists: CPUs and node ids, one line") {
  CHECK(parse_cpuset_cpus("0-3,8\n", "cpus") == std::vector<unsigned>{0, 1, 2, 3, 8});
  CHECK(parse_cpuset_cpus("\n", "cpus").empty());
  CHECK(parse_cpuset_mems("1-2\n", "mems") == std::vector<unsigned>{1, 2});
  CHECK(error_of([] { parse_cpuset_cpus("0-3\n8\n", "cpus"); }) == "cpus:2: a second line (a cpuset file holds one list)");
  CHECK(error_of([] { parse_cpuset_mems("0\n\n1\n", "mems"); }) == "mems:3: a second line (a cpuset file holds one list)");
  CHECK(error_of([] { parse_cpuset_cpus("0-x\n", "cpus"); }) == "cpus:1: '0-x' is not a number or a range such as 0-3");
  CHECK(error_of([] { parse_cpuset_mems("0,5000\n", "mems"); }) == "mems:1: node id 5000 is outside 0..1023");
}
