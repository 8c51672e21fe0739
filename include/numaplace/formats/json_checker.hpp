#pragma once
// The one way numaplace's JSON readers report a problem: "<source>: <path>: <what>", thrown as
// the reader's own error type, so every message names the file and the place in it; and the
// bound on how deep a document may nest. Part of numaplace::formats (format_error.hpp).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "format_error.hpp"

namespace numaplace::formats {

/// The 1-based line and column of byte `offset` (0-based) in `text`.
inline std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, offset - line_start + 1};
}

/// Throws `Error` (a format_error by default), built from one message string.
template <class Error = format_error>
class json_checker {
 public:
  explicit json_checker(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(std::string_view path, std::string_view what) const {
    if (path.empty()) throw Error(fmt::format("{}: {}", source_, what));
    throw Error(fmt::format("{}: {}: {}", source_, path, what));
  }

  /// A syntax error, at the line and column of byte `offset` of the document `text`.
  [[noreturn]] void fail_at(std::string_view text, std::size_t offset, std::string_view what) const {
    const auto [line, column] = line_and_column(text, offset);
    throw Error(fmt::format("{}:{}:{}: {}", source_, line, column, what));
  }

  const std::string& source() const noexcept { return source_; }

 private:
  std::string source_;
};

namespace json_checker_detail {

// Whether `v` holds at most `budget` values (itself included). Every value takes at least one
// character of dump(), so a value with more cannot dump to 40 characters. Counting stops at the
// budget: a value nested a million deep is never walked, nor dumped (dump() recurses per level).
template <class Json>
bool few_values(const Json& v, std::size_t& budget) {
  if (budget == 0) return false;
  --budget;
  if (v.is_structured()) {
    for (const Json& element : v) {
      if (!few_values(element, budget)) return false;
    }
  }
  return true;
}

}  // namespace json_checker_detail

/// A value as every reader's message shows it: as written when that takes at most 40
/// characters (`[3]`, `20.5`, `"x"`), else its JSON type (`an object`, `an array of 12`), or
/// the first 37 characters of a long string or number and "...". Never dumps a large value.
template <class Json>
std::string shown(const Json& v) {
  std::size_t budget = 40;
  if (v.is_structured() && !json_checker_detail::few_values(v, budget)) {
    return v.is_object() ? "an object" : fmt::format("an array of {}", v.size());
  }
  std::string text = v.dump();
  if (text.size() <= 40) return text;
  if (v.is_object()) return "an object";
  if (v.is_array()) return fmt::format("an array of {}", v.size());
  return text.substr(0, 37) + "...";
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
/// column 5: " prefix: the location is given as file:line:column instead.
inline std::string reason(const std::exception& e) {
  std::string what = e.what();
  if (const auto tag_end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos) {
    what.erase(0, tag_end + 2);
  }
  if (what.rfind("parse error", 0) == 0) {
    if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
  }
  return what;
}

/// Deeper than any of numaplace's formats nests (a sim report, the deepest, stops at about 18
/// levels). A document past it is refused before it is parsed: nlohmann::json's parser,
/// comparison, diff and dump recurse once per level, and a few hundred thousand levels
/// overflow the stack (`sim --merge` crashed so).
inline constexpr std::size_t max_json_depth = 64;

/// The offset of the bracket that opens level max_json_depth + 1 of `text` (outside strings),
/// or none when the document stays within it. Malformed text is left to the parser.
inline std::optional<std::size_t> too_deep_at(std::string_view text) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max_json_depth) return i;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// The message for a document too_deep_at() refuses.
inline std::string too_deep_message() { return fmt::format("nested deeper than {} levels, more than any numaplace format", max_json_depth); }

}  // namespace numaplace::formats
