# Checks that README.md's first ```cpp block is exactly test/readme/readme_example.cpp, which the
# build compiles and CTest runs, so the README's usage example cannot rot (cmake -P script):
#   cmake -DREADME=<README.md> -DEXAMPLE=<readme_example.cpp> -P check_readme.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var IN ITEMS README EXAMPLE)
  if(NOT DEFINED ${var} OR NOT EXISTS "${${var}}")
    message(FATAL_ERROR "check_readme.cmake: -D${var}=<existing file> is required")
  endif()
endforeach()

file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "\n```cpp\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```cpp block")
endif()
math(EXPR start "${start} + 8")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "\n```" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${README}: the first ```cpp block is not closed")
endif()
math(EXPR end "${end} + 1")  # keep the block's last newline
string(SUBSTRING "${rest}" 0 ${end} block)

if(NOT block STREQUAL example)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/readme_block.cpp" "${block}")
  message(FATAL_ERROR "README.md's first ```cpp block differs from ${EXAMPLE}; compare with\n"
                      "  diff ${CMAKE_CURRENT_BINARY_DIR}/readme_block.cpp ${EXAMPLE}\n"
                      "and update one to match the other.")
endif()
message(STATUS "README.md's usage example matches ${EXAMPLE}")
