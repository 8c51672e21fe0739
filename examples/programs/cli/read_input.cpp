#include "read_input.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace numaplace_cli {

namespace {

[[noreturn]] void refuse(const std::string& name, std::string_view what) {
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
std::string read_all(int fd, const std::string& name, std::string_view expected, std::size_t limit) {
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      refuse(name, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    if (text.size() + static_cast<std::size_t>(got) > limit) {
      refuse(name, fmt::format("is larger than {} MiB; expected {}", limit >> 20, expected));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

// A NUL byte, with its line and column: the readers' parsers (nlohmann::json among them) take
// it as the end of the input and would silently ignore whatever follows.
void refuse_nul(const std::string& text, const std::string& name, std::string_view expected) {
  const auto nul = text.find('\0');
  if (nul == std::string::npos) return;
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < nul; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  throw unreadable_input(
      fmt::format("{}:{}:{}: a NUL byte; expected {}, which is text", name, line, nul - line_start + 1, expected));
}

}  // namespace

std::string input_name(const std::string& path) { return path == "-" ? "standard input" : path; }

std::string read_input(const std::string& path, std::string_view expected, std::size_t limit) {
  const std::string name = input_name(path);
  std::string text;
  if (path == "-") {
    text = read_all(STDIN_FILENO, name, expected, limit);
  } else {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    // status() fails for a loop of links with ELOOP, which says more than "no such file".
    if (ec && ec != std::errc::no_such_file_or_directory) refuse(name, ec.message());
    if (ec || !std::filesystem::exists(status)) refuse(name, "no such file");
    if (std::filesystem::is_directory(status)) refuse(name, fmt::format("is a folder; expected {}", expected));
    // O_NONBLOCK: opening a named FIFO that no one writes to then returns at once instead of
    // waiting forever; with blocking reads again, such a FIFO reads as empty (read(2) returns 0
    // when no writer has it open), while a pipe with a writer, as <(command) gives, is read to
    // its end.
    const owned_fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) refuse(name, fmt::format("cannot be opened: {}", std::strerror(errno)));
    if (const int flags = ::fcntl(fd.get(), F_GETFL); flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) < 0) {
      refuse(name, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    text = read_all(fd.get(), name, expected, limit);
    if (text.empty() && std::filesystem::is_fifo(status)) {
      refuse(name, fmt::format("is a FIFO with no writer: nothing to read; expected {}", expected));
    }
  }
  refuse_nul(text, name, expected);
  return text;
}

}  // namespace numaplace_cli
