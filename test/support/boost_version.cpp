// Prints the Boost version the compiler read, and fails when it is not the one CMake found
// (NUMAPLACE_FOUND_BOOST_VERSION) or, given an argument such as 1.74, not that release: the
// boost174 configuration of scripts/test builds beside an installed Boost 1.81, and an
// include path in the wrong order would silently test 1.81 instead.
#include <boost/version.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const std::string headers = std::to_string(BOOST_VERSION / 100000) + '.' + std::to_string(BOOST_VERSION / 100 % 1000) +
                              '.' + std::to_string(BOOST_VERSION % 100);
  const std::string found = NUMAPLACE_FOUND_BOOST_VERSION;
  std::printf("Boost headers %s (BOOST_LIB_VERSION %s); CMake found %s\n", headers.c_str(), BOOST_LIB_VERSION,
              found.c_str());
  if (headers != found) {
    std::fprintf(stderr, "boost_version: the compiler read Boost %s's headers, but CMake found Boost %s\n",
                 headers.c_str(), found.c_str());
    return 1;
  }
  if (argc > 1) {
    const std::string expected = argv[1];
    if (headers != expected && headers.rfind(expected + '.', 0) != 0) {
      std::fprintf(stderr, "boost_version: expected Boost %s, built with %s\n", expected.c_str(), headers.c_str());
      return 1;
    }
  }
  return 0;
}
