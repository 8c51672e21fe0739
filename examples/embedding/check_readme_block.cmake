# Checks that the first ```cpp block after the line HEADING in README.md is exactly EXAMPLE
# (cmake -P script), so that the README's embedding example is the file the build compiles:
#   cmake -DREADME=<README.md> -DHEADING="## For runtime authors" -DEXAMPLE=<embed.cpp> -P check_readme_block.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS README EXAMPLE)
  if(NOT DEFINED ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "check_readme_block.cmake: -D${var}=<existing file> is required")
  endif()
endforeach()
if(NOT DEFINED HEADING)
  message(FATAL_ERROR "check_readme_block.cmake: -DHEADING=<a heading line of README.md> is required")
endif()

file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "\n${HEADING}\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${README} has no heading '${HEADING}'")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "\n```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp block after '${HEADING}'")
endif()
math(EXPR start "${start} + 8")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "\n```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${README}: the ```cpp block after '${HEADING}' is not closed")
endif()
math(EXPR end "${end} + 1")  # keep the block's last newline
string(SUBSTRING "${rest}" 0 ${end} block)

if(NOT block STREQUAL example)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_embedding_block.cpp" "${block}")
  message(FATAL_ERROR "README.md's ```cpp block under '${HEADING}' differs from ${EXAMPLE}; compare with\n"
                      "  diff ${CMAKE_CURRENT_BINARY_DIR}/readme_embedding_block.cpp ${EXAMPLE}\n"
                      "and update one to match the other.")
endif()
message(STATUS "README.md's block under '${HEADING}' matches ${EXAMPLE}")
