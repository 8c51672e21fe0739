// numaplace-balance's advice on processes recorded in an 8-node guest (seed 000's backplane,
// one CPU and 128 MiB per node), its exit codes and --apply on this machine.
#include <doctest/doctest.h>

#include <numaplace/topology/load_sysfs.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "advice.hpp"
#include "apply.hpp"
#include "proc_files.hpp"

namespace {

const std::filesystem::path guest = std::filesystem::path(NUMAPLACE_TEST_DATA) / "proc" / "seed000-guest";

std::vector<unsigned> ids(const numaplace::dynamic_topology& t, const balancer::advice& a) {
  std::vector<unsigned> out;
  for (const auto n : a.nodes) out.push_back(static_cast<unsigned>(t.id_of(n)));
  std::sort(out.begin(), out.end());
  return out;
}

struct run_result {
  int status = -1;
  std::string out;
};

run_result run(const std::string& args) {
  run_result r;
  const std::string command = std::string(NUMAPLACE_BALANCE) + ' ' + args + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) r.out += buf.data();
  const int s = pclose(p);
  r.status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  return r;
}

}  // namespace

TEST_CASE("advice: where the memory is, widened circle by circle until CPUs and memory suffice") {
  const auto t = numaplace::load::sysfs(guest / "sys");
  REQUIRE(t.node_count() == 8);

  // One thread, 16 MiB on node 5: node 5 alone.
  const auto a = balancer::advise(t, *balancer::read_process(guest / "proc", 169), "linux-modern");
  CHECK(t.id_of(a.preferred) == 5);
  CHECK(ids(t, a) == std::vector<unsigned>{5});
  CHECK(a.cpus == std::vector<unsigned>{5});

  // Four threads, interleaved over 2-3: node 2 (more pages), then 3 (distance 12), then 0-1
  // (distance 17) for four CPUs.
  const auto b = balancer::advise(t, *balancer::read_process(guest / "proc", 170), "linux-modern");
  CHECK(t.id_of(b.preferred) == 2);
  CHECK(ids(t, b) == std::vector<unsigned>{0, 1, 2, 3});
  CHECK(b.why.back().find("widened by the circle at distance 17") != std::string::npos);

  // Two threads, 40 MiB on node 6: 6 and its distance-12 neighbour 7.
  const auto c = balancer::advise(t, *balancer::read_process(guest / "proc", 171), "linux-modern");
  CHECK(ids(t, c) == std::vector<unsigned>{6, 7});

  // Another stack decides the same here; an unknown one is refused.
  CHECK(t.id_of(balancer::advise(t, *balancer::read_process(guest / "proc", 171), "vanilla").preferred) == 6);
  CHECK_THROWS_AS(balancer::advise(t, *balancer::read_process(guest / "proc", 171), "nope"), std::invalid_argument);
}

TEST_CASE("numaplace-balance: output, vanished PIDs, usage errors") {
  const std::string roots = "--proc " + (guest / "proc").string() + " --sys " + (guest / "sys").string();
  auto r = run(roots + " 169 170 171 4242");
  CHECK(r.status == 0);
  CHECK(r.out.find("pid 169 (numaplace-balan): 1 thread, ") != std::string::npos);
  CHECK(r.out.find("recommend nodes 5 (CPUs 5)") != std::string::npos);
  CHECK(r.out.find("recommend nodes 0-3 (CPUs 0-3)") != std::string::npos);
  CHECK(r.out.find("recommend nodes 6-7 (CPUs 6-7)") != std::string::npos);
  CHECK(r.out.find("pid 4242: no such process; skipped") != std::string::npos);
  CHECK(run(roots + " abc").status == 2);
  CHECK(run(roots).status == 2);
  CHECK(run(roots + " --apply 169").status == 2);  // --apply only on the live /proc
  CHECK(run(roots + " --stack nope 169").status == 1);
}

TEST_CASE("--apply: moves a child of ours; refuses another user's process with exit 3") {
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::this_thread::sleep_for(std::chrono::seconds(20));
    _exit(0);
  }
  const auto r = run("--apply " + std::to_string(child));
  CHECK(r.status == 0);
  CHECK(r.out.find("applied: affinity of 1 thread set to CPUs") != std::string::npos);

  // As nobody, moving our (root's) child must be refused, clearly, with exit status 3.
  if (geteuid() == 0 && std::system("command -v setpriv >/dev/null") == 0) {
    const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    FILE* p = popen((as_nobody + NUMAPLACE_BALANCE + " --apply " + std::to_string(child) + " 2>&1").c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), buf.size(), p) != nullptr) out += buf.data();
    const int s = pclose(p);
    CHECK(WEXITSTATUS(s) == 3);
    CHECK(out.find("needs CAP_SYS") != std::string::npos);
  }
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);

  // The child is gone now: reported, not an error.
  const auto gone = run("--apply " + std::to_string(child));
  CHECK(gone.status == 0);
  CHECK(gone.out.find("no such process; skipped") != std::string::npos);
}
