#pragma once
// The optional numaplace::formats component: numaplace's own file formats, read and written
// with nlohmann-json and {fmt} (link numaplace::formats to use include/numaplace/formats/; the
// core headers never include them).
//
// format_error is what every reader of the component throws for a document it cannot take.

#include <stdexcept>

namespace numaplace::formats {

/// A document that is not valid JSON or not of the format asked for. Its message starts with
/// the document's name, then the line:column of a syntax error or the JSON pointer of a bad
/// value: "m.json:3:7: ..." or "m.json: /nodes/2/cpus/0: ...".
class format_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace numaplace::formats
