#pragma once
// What every fuzz target checks besides "no crash, no leak, no UB": a loaded topology must be
// one the library's own invariants hold for. A broken invariant aborts, which libFuzzer reports
// as a crash with the input that caused it.

#include <numaplace/topology/classify.hpp>
#include <numaplace/topology/cpulist.hpp>
#include <numaplace/topology/dynamic_topology.hpp>
#include <numaplace/topology/error.hpp>
#include <numaplace/topology/types.hpp>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace numaplace_fuzz {

[[noreturn]] inline void broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s\n", file, line, what);
  std::abort();
}

}  // namespace numaplace_fuzz

#define NUMAPLACE_FUZZ_CHECK(cond)                                          \
  do {                                                                      \
    if (!(cond)) ::numaplace_fuzz::broken(#cond, __FILE__, __LINE__);       \
  } while (false)

namespace numaplace_fuzz {

/// The input as text (libFuzzer hands bytes; the loaders take any bytes as text).
inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// An error must say something, and its message must contain its reason. (what() is a C string:
/// a reason quoting input with a NUL byte in it is cut there.)
inline void check_error(const numaplace::topology_error& e) {
  const std::string_view what = e.what();
  const std::string_view reason = e.reason();
  NUMAPLACE_FUZZ_CHECK(!reason.empty());
  NUMAPLACE_FUZZ_CHECK(what.find(reason.substr(0, reason.find('\0'))) != std::string_view::npos);
}

/// Invariants of any topology a loader returns, each CPU on one node only among them.
/// `text_loader`: CPU numbers came from text and must be within max_cpu_number.
inline void check_topology(const numaplace::dynamic_topology& t, bool text_loader = true) {
  using namespace numaplace;
  const std::size_t n = t.node_count();
  NUMAPLACE_FUZZ_CHECK(n >= 1 && n <= max_nodes);
  std::size_t asymmetric = 0;
  for (std::size_t a = 0; a < n; ++a) {
    const auto i = static_cast<node_index>(a);
    NUMAPLACE_FUZZ_CHECK(t.distance(i, i) == slit_local_distance);
    for (std::size_t b = 0; b < n; ++b) {
      const auto j = static_cast<node_index>(b);
      if (i == j) continue;
      NUMAPLACE_FUZZ_CHECK(t.distance(i, j) > slit_local_distance && t.distance(i, j) <= max_valid_distance);
      if (a < b && t.distance(i, j) != t.distance(j, i)) ++asymmetric;
    }
    // OS ids: non-negative, unique, and index_of inverts id_of.
    NUMAPLACE_FUZZ_CHECK(t.id_of(i) >= 0);
    NUMAPLACE_FUZZ_CHECK(t.index_of(t.id_of(i)) == i);
    if (text_loader) NUMAPLACE_FUZZ_CHECK(static_cast<std::size_t>(t.id_of(i)) < max_nodes);
    // Neighbours: a permutation of the nodes, the node itself first, nearest first.
    const auto order = t.neighbours(i);
    NUMAPLACE_FUZZ_CHECK(order.size() == n);
    NUMAPLACE_FUZZ_CHECK(order[0] == i);
    std::vector<bool> seen(n, false);
    for (std::size_t k = 0; k < n; ++k) {
      NUMAPLACE_FUZZ_CHECK(order[k] < n && !seen[order[k]]);
      seen[order[k]] = true;
      if (k > 0) NUMAPLACE_FUZZ_CHECK(t.distance(i, order[k - 1]) <= t.distance(i, order[k]));
    }
  }
  NUMAPLACE_FUZZ_CHECK(t.asymmetries().size() == asymmetric);
  for (const asymmetry& s : t.asymmetries()) {
    NUMAPLACE_FUZZ_CHECK(s.row < s.column && s.column < n);
    NUMAPLACE_FUZZ_CHECK(s.forward != s.backward);
  }

  // The stored classification is the kernel's, and hangs together.
  const classification& c = t.classification_info();
  NUMAPLACE_FUZZ_CHECK(c == classify(t));
  NUMAPLACE_FUZZ_CHECK(c.local_distance == slit_local_distance);
  NUMAPLACE_FUZZ_CHECK(t.kind() == c.kind && t.max_distance() == c.max_distance);
  if (c.levels.empty()) {
    NUMAPLACE_FUZZ_CHECK(c.max_distance == 0 && c.kind == numa_kind::direct);
  } else {
    NUMAPLACE_FUZZ_CHECK(c.max_distance == c.levels.back());
    NUMAPLACE_FUZZ_CHECK(c.max_distance <= max_valid_distance);
    if (c.levels.size() <= 2) NUMAPLACE_FUZZ_CHECK(c.kind == numa_kind::direct);
  }
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      const auto i = static_cast<node_index>(a);
      const auto j = static_cast<node_index>(b);
      if (t.has_cpu(i) && t.has_cpu(j)) NUMAPLACE_FUZZ_CHECK(c.is_level(t.distance(i, j)));
    }
  }

  std::set<unsigned> cpu_taken;  // each CPU on one node, as Linux numbers them, from any loader
  for (std::size_t a = 0; a < n; ++a) {
    for (const unsigned cpu : t.cpus(static_cast<node_index>(a))) {
      if (text_loader) NUMAPLACE_FUZZ_CHECK(cpu <= max_cpu_number);
      NUMAPLACE_FUZZ_CHECK(cpu_taken.insert(cpu).second);
    }
  }
}

/// The topology's distances as matrix text, which load::matrix_text must read back unchanged.
inline std::string matrix_text_of(const numaplace::dynamic_topology& t) {
  std::string s;
  for (std::size_t a = 0; a < t.node_count(); ++a) {
    for (std::size_t b = 0; b < t.node_count(); ++b) {
      if (b != 0) s += ' ';
      s += std::to_string(t.distance(static_cast<numaplace::node_index>(a), static_cast<numaplace::node_index>(b)));
    }
    s += '\n';
  }
  return s;
}

/// Same distances.
inline bool same_matrix(const numaplace::dynamic_topology& x, const numaplace::dynamic_topology& y) {
  if (x.node_count() != y.node_count()) return false;
  for (std::size_t a = 0; a < x.node_count(); ++a) {
    for (std::size_t b = 0; b < x.node_count(); ++b) {
      const auto i = static_cast<numaplace::node_index>(a);
      const auto j = static_cast<numaplace::node_index>(b);
      if (x.distance(i, j) != y.distance(i, j)) return false;
    }
  }
  return true;
}

}  // namespace numaplace_fuzz
