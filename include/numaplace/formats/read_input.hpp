#pragma once
// Reading one input a program is given, a file or "-" for standard input: whole, but at most a
// stated number of bytes, never stuck on a named FIFO that has no writer, and text only. The
// numaplace CLI reads every input through it (topology files, experiment files, machine costs,
// explain's input, sim reports), so each bound has one home; docs/reliability.md lists them.
// POSIX (open(2), fcntl(2), read(2)). Part of numaplace::formats (format_error.hpp).
//
// The core's topology loaders read files with load::detail::read_text, which refuses a FIFO
// outright (the standard library cannot open one without waiting); this reader opens it
// without blocking instead, so `<(command)` works. Both share the one bound below.

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <numaplace/topology/text_input.hpp>

#include "format_error.hpp"
#include "json_checker.hpp"

namespace numaplace::formats {

/// What one input may hold at most: the topology loaders' bound (a 1,024-node matrix is about
/// 4 MiB). It keeps `/dev/zero` or a wrong path from eating memory.
inline constexpr std::size_t max_input_bytes = numaplace::load::detail::max_input_bytes;

/// The bound for one part of a sim report (`sim --merge`): a --json report takes about 4 KB
/// a run, 40 KB with --timeline, so 64 MiB is some 15,000 runs (1,500 with timelines) in one
/// part; parsed, it stays under 1 GiB.
inline constexpr std::size_t max_report_bytes = std::size_t{64} << 20;

/// Why an input could not be read; the message starts with the input's name.
class unreadable_input : public format_error {
 public:
  using format_error::format_error;
};

/// How `path` is named in messages: itself, or "standard input" for "-".
inline std::string input_name(const std::string& path) { return path == "-" ? "standard input" : path; }

namespace read_input_detail {

[[noreturn]] inline void refuse_input(const std::string& name, std::string_view what) {
  throw unreadable_input(fmt::format("{}: {}", name, what));
}

// Closes the descriptor it was given when it goes out of scope (not standard input's).
class owned_fd {
 public:
  explicit owned_fd(int fd) : fd_(fd) {}
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  ~owned_fd() {
    if (fd_ > STDIN_FILENO) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

// Reads `fd` to its end, refusing it as soon as it passes `limit` (so /dev/zero costs 16 MiB
// and a few milliseconds, not all memory).
inline std::string read_all(int fd, const std::string& name, std::string_view expected, std::size_t limit) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      refuse_input(name, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    if (text.size() + static_cast<std::size_t>(got) > limit) {
      refuse_input(name, fmt::format("is larger than {} MiB; expected {}", limit >> 20, expected));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

// A NUL byte, with its line and column: parsers (nlohmann::json among them) take it as the
// end of the input and would silently ignore whatever follows.
inline void refuse_nul(const std::string& text, const std::string& name, std::string_view expected) {
  const auto nul = text.find('\0');
  if (nul == std::string::npos) return;
  const auto [line, column] = line_and_column(text, nul);
  throw unreadable_input(fmt::format("{}:{}:{}: a NUL byte; expected {}, which is text", name, line, column, expected));
}

}  // namespace read_input_detail

/// The whole of the file at `path`, or of standard input when `path` is "-". `expected` names
/// what it should be ("a JSON experiment file"), for the messages. Throws unreadable_input
/// naming the input when it is missing (or a loop of links), a folder, cannot be opened or
/// read, larger than `limit`, or holds a NUL byte (with its line and column: none of
/// numaplace's formats is binary). A named FIFO with no writer is refused at once instead of
/// blocking; a pipe or a device is read to its end or to the bound.
inline std::string read_input(const std::string& path, std::string_view expected,
                              std::size_t limit = max_input_bytes) {
  const std::string name = input_name(path);
  std::string text;
  if (path == "-") {
    text = read_input_detail::read_all(STDIN_FILENO, name, expected, limit);
  } else {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    // status() fails for a loop of links with ELOOP, which says more than "no such file".
    if (ec && ec != std::errc::no_such_file_or_directory) read_input_detail::refuse_input(name, ec.message());
    if (ec || !std::filesystem::exists(status)) read_input_detail::refuse_input(name, "no such file");
    if (std::filesystem::is_directory(status)) {
      read_input_detail::refuse_input(name, fmt::format("is a folder; expected {}", expected));
    }
    // O_NONBLOCK: opening a named FIFO that no one writes to then returns at once instead of
    // waiting forever; with blocking reads again, such a FIFO reads as empty (read(2) returns 0
    // when no writer has it open), while a pipe with a writer, as <(command) gives, is read to
    // its end.
    const read_input_detail::owned_fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) read_input_detail::refuse_input(name, fmt::format("cannot be opened: {}", std::strerror(errno)));
    if (const int flags = ::fcntl(fd.get(), F_GETFL);
        flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) < 0) {
      read_input_detail::refuse_input(name, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    text = read_input_detail::read_all(fd.get(), name, expected, limit);
    if (text.empty() && std::filesystem::is_fifo(status)) {
      read_input_detail::refuse_input(name, fmt::format("is a FIFO with no writer: nothing to read; expected {}", expected));
    }
  }
  read_input_detail::refuse_nul(text, name, expected);
  return text;
}

}  // namespace numaplace::formats
