#pragma once
// Every JSON document numaplace writes says what it is: its format's name, that format's
// schema_version (raised when a field changes meaning or goes away, not when one is added) and
// the numaplace that wrote it. Readers check the first two. Part of numaplace::formats
// (format_error.hpp).

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "../version.hpp"

namespace numaplace::formats {

/// Adds "format", "schema_version" and "numaplace_version" to the object `j` (first, where
/// `j` keeps its keys in order: a reader sees what the document is before the rest).
template <class Json>
void stamp_json(Json& j, std::string_view format, int schema_version) {
  Json stamped = {{"format", format}, {"schema_version", schema_version}, {"numaplace_version", numaplace::version_string}};
  for (auto& [key, value] : j.items()) {
    if (!stamped.contains(key)) stamped[key] = std::move(value);
  }
  j = std::move(stamped);
}

/// The stamp's own keys: readers of a stamped document skip them among its fields.
inline bool is_stamp_key(std::string_view key) {
  return key == "format" || key == "schema_version" || key == "numaplace_version";
}

/// Checks a stamp, where `doc` has one (hand-written files need not): the format must be
/// `format` and the schema_version at most `schema_version`, the newest this numaplace reads.
/// `fail(path, what)` reports a problem at a JSON pointer and does not return.
template <class Json, class Fail>
void check_stamp(const Json& doc, std::string_view format, int schema_version, Fail&& fail) {
  if (const auto f = doc.find("format"); f != doc.end() && !(f->is_string() && f->template get<std::string>() == format)) {
    fail("/format", "is " + f->dump() + "; expected \"" + std::string(format) + "\"");
  }
  if (const auto v = doc.find("schema_version"); v != doc.end()) {
    if (!v->is_number_unsigned() || v->template get<std::uint64_t>() < 1) fail("/schema_version", "expected a version number from 1");
    if (v->template get<std::uint64_t>() > static_cast<std::uint64_t>(schema_version)) {
      fail("/schema_version", "is " + v->dump() + ", newer than this numaplace (" + numaplace::version_string +
                                  ") reads: at most " + std::to_string(schema_version));
    }
  }
  if (const auto n = doc.find("numaplace_version"); n != doc.end() && !n->is_string()) {
    fail("/numaplace_version", "expected a string");
  }
}

}  // namespace numaplace::formats
