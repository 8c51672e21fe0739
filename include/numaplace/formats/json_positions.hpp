#pragma once
// Where each value of a JSON text starts, by JSON pointer, so that a reader can report a bad
// value at its line and column (nlohmann::json keeps no positions once parsed). Scans text that
// nlohmann::json has already accepted; it does not check the syntax a second time. Part of
// numaplace::formats (format_error.hpp).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace numaplace::formats {

class json_positions {
 public:
  /// Indexes `text`, which must be valid JSON (parse it first).
  explicit json_positions(std::string_view text) {
    struct open_container {
      std::string pointer;
      bool array;
      std::size_t next_index;
    };
    std::vector<open_container> open;  // iterative: a deeply nested input cannot overflow the stack
    std::string key_pointer;           // the pointer of the value after an object's key
    std::size_t i = 0;
    const auto skip_space = [&] {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    };
    const auto skip_string = [&] {  // at the opening quote; returns past the closing one
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
    };
    bool expect_value = true;
    while (true) {
      skip_space();
      if (i >= text.size()) break;
      const char c = text[i];
      if (expect_value) {
        std::string pointer;
        if (open.empty()) {
          pointer = "";
        } else if (open.back().array) {
          pointer = open.back().pointer + "/" + std::to_string(open.back().next_index++);
        } else {
          pointer = key_pointer;
        }
        if (!offsets_.emplace(pointer, i).second && !duplicate_) duplicate_ = pointer;
        if (c == '{' || c == '[') {
          open.push_back({pointer, c == '[', 0});
          ++i;
          skip_space();
          if (i < text.size() && (text[i] == '}' || text[i] == ']')) {
            ++i;
            open.pop_back();
            expect_value = false;
          } else if (c == '{') {
            read_key(text, i, open.back().pointer, key_pointer, skip_string, skip_space);
          }
          continue;
        }
        if (c == '"') {
          skip_string();
        } else {
          while (i < text.size() && text[i] != ',' && text[i] != ']' && text[i] != '}' && text[i] != ' ' &&
                 text[i] != '\n' && text[i] != '\t' && text[i] != '\r') {
            ++i;
          }
        }
        expect_value = false;
        continue;
      }
      // After a value: a comma, or the end of its container.
      if (open.empty()) break;
      ++i;
      if (c == ',') {
        if (!open.back().array) read_key(text, i, open.back().pointer, key_pointer, skip_string, skip_space);
        expect_value = true;
      } else {
        open.pop_back();
      }
    }
  }

  /// The first key given twice in one object (nlohmann::json keeps the last silently), as the
  /// pointer of its value; offset_of gives where it was first given.
  const std::optional<std::string>& duplicate_key() const noexcept { return duplicate_; }

  /// The byte offset where the value at `pointer` starts, or where its nearest indexed ancestor
  /// does (0 for the whole text).
  std::size_t offset_of(std::string pointer) const {
    while (true) {
      if (const auto it = offsets_.find(pointer); it != offsets_.end()) return it->second;
      const auto slash = pointer.rfind('/');
      if (slash == std::string::npos) return 0;
      pointer.erase(slash);
    }
  }

 private:
  // At an object's key (after '{' or ','): sets `key_pointer` and moves past the ':'.
  template <class SkipString, class SkipSpace>
  static void read_key(std::string_view text, std::size_t& i, const std::string& object, std::string& key_pointer,
                       SkipString& skip_string, SkipSpace& skip_space) {
    skip_space();
    const std::size_t start = i;
    skip_string();
    const std::size_t end = i < text.size() ? i : text.size();
    // The key decoded as nlohmann decodes it, escaped as a JSON pointer token (RFC 6901).
    std::string key = nlohmann::json::parse(text.substr(start, end - start)).get<std::string>();
    std::string token;
    for (char k : key) token += k == '~' ? std::string("~0") : k == '/' ? std::string("~1") : std::string(1, k);
    key_pointer = object + "/" + token;
    skip_space();
    ++i;  // ':'
  }

  std::map<std::string, std::size_t> offsets_;
  std::optional<std::string> duplicate_;
};

}  // namespace numaplace::formats
