#pragma once
// The one way the CLI reads an input it is given, a file or "-" for standard input: whole, but
// at most a stated number of bytes, never stuck on a named FIFO that has no writer, and text
// only. Every reader (topology files, experiment files, machine costs, explain's input, sim
// reports) goes through it, so each bound has one home, and docs/reliability.md lists them.

#include <cstddef>
#include <string>
#include <string_view>

#include "exit_codes.hpp"

namespace numaplace_cli {

/// What one input may hold at most. No topology comes near the default (a 1,024-node matrix
/// is about 4 MiB); it keeps `/dev/zero` or a wrong path from eating memory, as the library's
/// topology loaders bound theirs (numaplace::load::detail::max_input_bytes, the same figure).
inline constexpr std::size_t max_input_bytes = std::size_t{16} << 20;

/// The bound for one part of a sim report (`sim --merge`): a --json report takes about 4 KB
/// a run, 40 KB with --timeline, so 64 MiB is some 15,000 runs (1,500 with timelines) in one
/// part; parsed, it stays under 1 GiB.
inline constexpr std::size_t max_report_bytes = std::size_t{64} << 20;

/// Why an input could not be read; the message starts with the input's name.
class unreadable_input : public bad_input_error {
 public:
  using bad_input_error::bad_input_error;
};

/// The whole of the file at `path`, or of standard input when `path` is "-". `expected` names
/// what it should be ("a JSON experiment file"), for the messages. Throws unreadable_input
/// naming the input when it is missing (or a loop of links), a folder, cannot be opened or
/// read, larger than `limit`, or holds a NUL byte (with its line and column: no input of the
/// CLI's is binary, and a JSON or text reader would stop at the NUL and ignore what follows).
/// A named FIFO with no writer reads as empty instead of blocking; a pipe or a device is read
/// to its end or to the bound.
std::string read_input(const std::string& path, std::string_view expected, std::size_t limit = max_input_bytes);

/// How `path` is named in messages: itself, or "standard input" for "-".
std::string input_name(const std::string& path);

}  // namespace numaplace_cli
