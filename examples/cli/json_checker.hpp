#pragma once
// The one way the CLI's JSON readers report a problem: "<source>: <path>: <what>", thrown as
// the reader's own error type, so every message names the file and the place in it.

#include <fmt/format.h>

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

}  // namespace numaplace_cli
