#include <numaplace/linux/status.hpp>

#include <doctest/doctest.h>

#include <cerrno>
#include <string>

using namespace numaplace::os;

TEST_CASE("a default os_status is success and carries no message") {
  const os_status s;
  CHECK(static_cast<bool>(s));
  CHECK(s.ok());
  CHECK(s.message.empty());
  CHECK_NOTHROW(throw_if_failed(s));
}

TEST_CASE("failure names the call, errno's text and the hint for its arguments") {
  const os_status perm = failure("migrate_pages(pid 7, from nodes 0, to nodes 1)", EPERM, call_arguments::node_mask);
  CHECK_FALSE(static_cast<bool>(perm));
  CHECK(perm.error == EPERM);
  CHECK(perm.message.find("migrate_pages(pid 7, from nodes 0, to nodes 1): Operation not permitted") == 0);
  CHECK(perm.message.find("CAP_SYS_NICE") != std::string::npos);

  const os_status gone = failure("sched_setaffinity(thread 9, cpus 0)", ESRCH, call_arguments::cpu_set);
  CHECK(gone.message.find("No such process (the task has exited") != std::string::npos);

  CHECK(failure("mbind(...)", EINVAL, call_arguments::range_and_nodes).message.find("Mems_allowed") !=
        std::string::npos);
  CHECK(failure("sched_setaffinity(...)", EINVAL, call_arguments::cpu_set).message.find("online") !=
        std::string::npos);
  // EINVAL without a mask gets no node hint: it would mislead.
  CHECK(failure("getcpu", EINVAL).message == "getcpu: Invalid argument");
  CHECK(failure("move_pages(...)", EPERM, call_arguments::page_list).message.find("CAP_SYS_PTRACE") !=
        std::string::npos);
  // errno 0 (a caller that read errno too late) is still a failure.
  CHECK_FALSE(static_cast<bool>(failure("x", 0)));
}

TEST_CASE("throw_if_failed throws os_error with the message and errno") {
  try {
    throw_if_failed(failure("mbind(0x1000, 4096 bytes, MPOL_BIND, nodes 99)", EINVAL, call_arguments::range_and_nodes));
    FAIL("no exception");
  } catch (const os_error& e) {
    CHECK(e.error() == EINVAL);
    CHECK((e.code() == std::errc::invalid_argument));
    CHECK(std::string(e.what()).find("nodes 99): Invalid argument") != std::string::npos);
  }
}
