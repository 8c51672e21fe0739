#pragma once
// Helpers for tests that expect a topology_error: its message, and whether it says something.

#include <doctest/doctest.h>

#include <numaplace/topology/error.hpp>

#include <string>

namespace numaplace::test {

/// The message of the topology_error `f` throws; fails the test when it throws nothing.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const topology_error& e) {
    return e.what();
  }
  FAIL("no topology_error was thrown");
  return {};
}

inline bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

}  // namespace numaplace::test
