// Bad input and bad usage: a message that names the problem on stderr, exit code 2, no crash.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"

using numaplace_cli_test::data_file;
using numaplace_cli_test::check_rejected;
using numaplace_cli_test::run_numaplace;

TEST_CASE("an unknown preset lists the valid names") {
  check_rejected({"topo", "--machine", "no-such-machine"}, "unknown machine 'no-such-machine'");
  check_rejected({"topo", "--machine", "no-such-machine"}, "seed000-8node, ");
}

TEST_CASE("a missing file is named") {
  check_rejected({"topo", "--file", data_file("cli/does-not-exist.txt")}, "does-not-exist.txt");
}

TEST_CASE("a malformed matrix file is reported with file and line") {
  check_rejected({"topo", "--file", data_file("cli/malformed-word.txt")}, "malformed-word.txt:3:");
  check_rejected({"topo", "--json", "--file", data_file("cli/not-square.txt")}, "not-square.txt:");
}

TEST_CASE("a malformed sysfs tree is reported") {
  check_rejected({"topo", "--sysfs", data_file("sysfs/bad-distance-value")}, "bad-distance-value");
  check_rejected({"topo", "--sysfs", data_file("cli/no-such-folder")}, "no-such-folder");
}

TEST_CASE("usage errors") {
  check_rejected({"topo", "--no-such-option"}, "--no-such-option");
  check_rejected({"no-such-command"}, "no-such-command");
  check_rejected({"topo", "--machine"}, "--machine");
  check_rejected({"topo", "--machine", "seed000-8node", "--file", "x.txt"}, "excludes");
  check_rejected({"topo", "--list-machines", "--sysfs", "/tmp"}, "excludes");
}
