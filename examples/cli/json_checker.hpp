#pragma once
// The one way the CLI's JSON readers report a problem: "<source>: <path>: <what>", thrown as
// the reader's own error type, so every message names the file and the place in it; and the
// one way they read a file.

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace numaplace_cli {

template <class Error>
class json_checker {
 public:
  explicit json_checker(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(std::string_view path, std::string_view what) const {
    if (path.empty()) throw Error(fmt::format("{}: {}", source_, what));
    throw Error(fmt::format("{}: {}: {}", source_, path, what));
  }

  const std::string& source() const noexcept { return source_; }

 private:
  std::string source_;
};

/// The whole of the file at `path`, or an Error naming it: a folder, a file that cannot be
/// opened or read.
template <class Error>
std::string read_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a folder; expected a JSON file", path));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw Error(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  return std::move(text).str();
}

}  // namespace numaplace_cli
