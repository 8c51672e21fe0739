#pragma once
// One process, one look: read it from /proc, print numaplace's advice for it and, when asked,
// move it there. Shared by numaplace-balance's single pass and its --interval daemon, which
// differ only in what they make of a process that is gone or refused.

#include <numaplace/topology/dynamic_topology.hpp>

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>

#include "exclusions.hpp"

namespace balancer {

enum class outcome {
  advised,        ///< advice printed (and applied, with --apply)
  no_memory,      ///< no resident pages (a zombie): nothing printed
  excluded,       ///< never advised on or moved (exclusions.hpp): nothing printed
  gone,           ///< the process does not exist or exited while read
  not_permitted,  ///< reading or moving it was refused (EACCES/EPERM)
  bad_file,       ///< one of its /proc files is not what the kernel writes
  move_failed,    ///< --apply failed for another reason
};

struct examined {
  outcome what = outcome::advised;
  std::string message;  ///< why, for every outcome but advised and no_memory
  exclusion_reason excluded_for = exclusion_reason::none;
};

struct examine_options {
  std::filesystem::path proc = "/proc";
  std::string stack = "linux-modern";
  bool apply = false;
  exclusions skip;     ///< what is never advised on or moved
  bool named = true;   ///< asked for by PID; false for what --all finds (no page: passed over)
};

/// Reads process `pid`, prints its advice on `t` to `out` and applies it when asked. Throws
/// std::invalid_argument for an unknown stack; every problem of the process itself is returned.
examined examine(const numaplace::dynamic_topology& t, int pid, const examine_options& o, std::ostream& out);

}  // namespace balancer
