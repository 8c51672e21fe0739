// numaplace::formats::read_input, the bounded reader every input of the CLI goes through:
// a file is read whole, and each way of not being a readable text file is refused by name.
// (test/cli/hostile_input_test.cpp runs the same cases through the program.)
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <numaplace/formats/read_input.hpp>

namespace formats = numaplace::formats;

namespace {

// A fresh folder of this process's own, removed with everything in it at the end.
struct scratch_folder {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                                ("numaplace-read-input-" + std::to_string(::getpid()));
  scratch_folder() { std::filesystem::create_directories(path); }
  ~scratch_folder() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const auto at = path / name;
    std::ofstream(at, std::ios::binary) << text;
    return at.string();
  }
};

std::string refusal(const std::string& path, std::size_t limit = formats::max_input_bytes) {
  try {
    formats::read_input(path, "a test file", limit);
  } catch (const formats::unreadable_input& e) {
    return e.what();
  }
  FAIL("read what it should refuse");
  return "";
}

}  // namespace

TEST_CASE("read_input reads a file whole, and names standard input") {
  const scratch_folder dir;
  CHECK(formats::read_input(dir.file("m.txt", "10 20\n20 10\n"), "a test file") == "10 20\n20 10\n");
  CHECK(formats::input_name("-") == "standard input");
  CHECK(formats::input_name("m.txt") == "m.txt");
  // The one bound: the topology loaders'.
  CHECK(formats::max_input_bytes == numaplace::load::detail::max_input_bytes);
}

TEST_CASE("read_input refuses what is not a readable text file, naming it") {
  const scratch_folder dir;
  const std::string missing = (dir.path / "missing").string();
  CHECK(refusal(missing) == missing + ": no such file");
  CHECK(refusal(dir.path.string()) == dir.path.string() + ": is a folder; expected a test file");
  const std::string nul = dir.file("nul.txt", std::string("10 20\n20 1\0 0\n", 13));
  CHECK(refusal(nul) == nul + ":2:5: a NUL byte; expected a test file, which is text");
  const std::string big = dir.file("big.txt", std::string((1u << 20) + 1, 'x'));
  CHECK(refusal(big, 1u << 20) == big + ": is larger than 1 MiB; expected a test file");
  // A named FIFO nobody writes to: refused at once, not waited on.
  const std::string fifo = (dir.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal(fifo) == fifo + ": is a FIFO with no writer: nothing to read; expected a test file");
}
