# Checks that a ```cpp block of README.md is exactly a file the build compiles and CTest runs,
# so the README's examples cannot rot (cmake -P script). The block is the first one after the
# line HEADING, or the README's first block when HEADING is not given:
#   cmake -DREADME=<README.md> [-DHEADING="## For runtime authors"] -DEXAMPLE=<file.cpp> -P check_readme_block.cmake
cmake_minimum_required(VERSION 3.21)

foreach(var IN ITEMS README EXAMPLE)
  if(NOT DEFINED ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "check_readme_block.cmake: -D${var}=<existing file> is required")
  endif()
endforeach()

file(READ "${README}" readme)
string(PREPEND readme "\n")  # a heading on the first line is found like any other
file(READ "${EXAMPLE}" example)
set(where "first")
if(DEFINED HEADING)
  set(where "under '${HEADING}'")
  string(FIND "${readme}" "\n${HEADING}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README} has no heading '${HEADING}'")
  endif()
  string(SUBSTRING "${readme}" ${at} -1 readme)
endif()
string(FIND "${readme}" "\n```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp block (${where})")
endif()
math(EXPR start "${start} + 8")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "\n```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${README}: the ```cpp block (${where}) is not closed")
endif()
math(EXPR end "${end} + 1")  # keep the block's last newline
string(SUBSTRING "${rest}" 0 ${end} block)

if(NOT block STREQUAL example)
  get_filename_component(name "${EXAMPLE}" NAME_WE)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_block_${name}.cpp" "${block}")
  message(FATAL_ERROR "${README}: the ```cpp block (${where}) differs from ${EXAMPLE}; compare with\n"
                      "  diff ${CMAKE_CURRENT_BINARY_DIR}/readme_block_${name}.cpp ${EXAMPLE}\n"
                      "and update one to match the other.")
endif()
message(STATUS "${README}: the ```cpp block (${where}) matches ${EXAMPLE}")
