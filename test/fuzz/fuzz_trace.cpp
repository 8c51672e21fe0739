// parse_trace (the QEMU-guest oracle's reader of tracefs's `trace` text) on any bytes: a
// trace_log whose events are named, on lines 1.. strictly increasing within the text, or a
// trace_error located at "fuzz:LINE: ". Any other exception escapes and libFuzzer reports it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "../../examples/programs/oracle/trace_events.hpp"
#include "check.hpp"

namespace {

// "fuzz:" LINE ": " -- LINE a positive decimal within the text's lines.
void check_located(const numaplace_oracle::trace_error& e, std::size_t max_line) {
  const std::string_view what = e.what();
  constexpr std::string_view prefix = "fuzz:";
  NUMAPLACE_FUZZ_CHECK(what.substr(0, prefix.size()) == prefix);
  std::size_t i = prefix.size();
  std::size_t line = 0;
  while (i < what.size() && what[i] >= '0' && what[i] <= '9' && line <= max_line) {
    line = line * 10 + static_cast<std::size_t>(what[i] - '0');
    ++i;
  }
  NUMAPLACE_FUZZ_CHECK(i > prefix.size());
  NUMAPLACE_FUZZ_CHECK(line >= 1 && line <= max_line);
  NUMAPLACE_FUZZ_CHECK(what.substr(i, 2) == ": ");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace numaplace_fuzz;
  const std::string_view text = as_text(data, size);
  std::size_t lines = 0;  // lines the parser can number: one per '\n', plus an unterminated last
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  if (!text.empty() && text.back() != '\n') ++lines;
  try {
    const numaplace_oracle::trace_log log = numaplace_oracle::parse_trace(text, "fuzz");
    NUMAPLACE_FUZZ_CHECK(log.file == "fuzz");
    std::size_t previous = 0;
    for (const numaplace_oracle::trace_event& e : log.events) {
      NUMAPLACE_FUZZ_CHECK(!e.name.empty());
      NUMAPLACE_FUZZ_CHECK(e.line >= 1 && e.line > previous && e.line <= lines);
      NUMAPLACE_FUZZ_CHECK(e.ns >= 0);
      previous = e.line;
      for (const auto& [key, value] : e.fields) {
        NUMAPLACE_FUZZ_CHECK(!key.empty());
        NUMAPLACE_FUZZ_CHECK(log.get(e, key) == value);
      }
      // A key can hold no blank, so this one is never present.
      bool threw = false;
      try {
        (void)log.get(e, "no such key");
      } catch (const numaplace_oracle::trace_error& missing) {
        threw = true;
        check_located(missing, lines);
      }
      NUMAPLACE_FUZZ_CHECK(threw);
    }
  } catch (const numaplace_oracle::trace_error& e) {
    check_located(e, lines);
  }
  return 0;
}
