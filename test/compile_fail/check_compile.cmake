# Compiles one test/compile_fail/*.cpp with -fsyntax-only and checks the outcome (cmake -P script):
#   cmake -DCXX=<compiler> -DSOURCE=<file.cpp> "-DINCLUDES=<dir;dir>" -P check_compile.cmake
# The file's first line says what to expect:
#   // expect-error: <text>   compilation must fail AND the diagnostics must contain <text>
#                             (so that the failure is the readable one, not any error at all);
#   // expect: compiles       compilation must succeed (the control that proves the harness).
cmake_minimum_required(VERSION 3.21)

foreach(var IN ITEMS CXX SOURCE INCLUDES)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "check_compile.cmake: -D${var}=... is required")
  endif()
endforeach()

file(STRINGS "${SOURCE}" first_line LIMIT_COUNT 1)
if(first_line MATCHES "^// expect-error: (.+)$")
  set(expect_failure ON)
  string(STRIP "${CMAKE_MATCH_1}" expected_text)
elseif(first_line MATCHES "^// expect: compiles")
  set(expect_failure OFF)
else()
  message(FATAL_ERROR "${SOURCE}: the first line must be '// expect-error: <text>' or '// expect: compiles'")
endif()

set(include_flags)
foreach(dir IN LISTS INCLUDES)
  list(APPEND include_flags "-I${dir}")
endforeach()

execute_process(COMMAND "${CXX}" -std=c++20 -fsyntax-only ${include_flags} "${SOURCE}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)

if(NOT expect_failure)
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${SOURCE} should compile but did not")
  endif()
  message(STATUS "${SOURCE} compiles, as it should")
  return()
endif()

if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but a malformed topology must be a compile error ('${expected_text}')")
endif()
string(FIND "${out}" "${expected_text}" at)
if(at EQUAL -1)
  message("${out}")
  message(FATAL_ERROR "${SOURCE} failed to compile, but the diagnostics do not say '${expected_text}'")
endif()
message(STATUS "${SOURCE} fails to compile with '${expected_text}', as it should")
