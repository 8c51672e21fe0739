// numaplace::formats::parse_workload_spec, the `sim --workload SPEC` parser: a spec builds its
// workload, and a bad one is refused naming the spec and the field.
#include <doctest/doctest.h>

#include <string>

#include <numaplace/formats/workload_spec.hpp>

namespace formats = numaplace::formats;

namespace {

formats::workload_spec_error refusal(const std::string& spec) {
  try {
    formats::parse_workload_spec(spec);
  } catch (const formats::workload_spec_error& e) {
    return e;
  }
  FAIL("accepted what it should refuse");
  return {spec, ""};
}

}  // namespace

TEST_CASE("a workload spec builds its workload") {
  CHECK(formats::describe_workload(formats::parse_workload_spec("numa02:4")) == "numa02: 1 process, 4 tasks, elapsed time (at most 3600 s)");
  const numaplace::sim::workload jbb = formats::parse_workload_spec("specjbb:2:8:5");
  CHECK(jbb.processes.size() == 2);
  CHECK(jbb.seconds == 5.0);
}

TEST_CASE("a bad workload spec is refused naming the spec and the field") {
  const formats::workload_spec_error threads = refusal("numa02:x");
  CHECK(threads.spec() == "numa02:x");
  CHECK(threads.reason() == "THREADS must be a positive integer, not 'x'");
  CHECK(std::string(threads.what()) ==
        std::string("workload 'numa02:x': THREADS must be a positive integer, not 'x'; forms: ") +
            formats::workload_spec_forms);
  CHECK(refusal("nope").reason() == "unknown workload 'nope'");
  CHECK(refusal("numa02").reason() == "numa02 takes 1 field");
  CHECK(refusal("stream:1:2:3:4").reason() == "stream takes 1 to 3 fields");
  CHECK(refusal("specjbb:1000:1000").reason() == "1000000 tasks; at most 100000");
  CHECK(refusal("specjbb:1:1:0").reason() == "SECONDS must be positive, not 0");
}
