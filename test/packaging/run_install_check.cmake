# `cmake --install` of a build tree whose programs are not all built (./scripts/run builds the
# CLI alone) stops before copying anything, naming the missing targets and the command that
# builds them; the dev component alone still installs. cmake -P script:
#   cmake -DSOURCE_DIR=<numaplace> -DWORK_DIR=<scratch> -DCXX_COMPILER=<c++> -DGENERATOR=<gen>
#         [-DBUILD_DIR=<a built numaplace tree>] -P run_install_check.cmake
# The scratch tree is configured (examples on, tests off, as scripts/run does) and never built,
# so the test costs one configure. With BUILD_DIR (the tree the test belongs to, built whole by
# scripts/test) the README's install line also runs there and must install the programs and man
# pages. The README's install lines are the ones the refusal names.
cmake_minimum_required(VERSION 3.21)
foreach(var IN ITEMS SOURCE_DIR WORK_DIR CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_install_check.cmake: -D${var}=... is required")
  endif()
endforeach()
include(${SOURCE_DIR}/test/support/script_step.cmake)
function(fail)
  string(JOIN "" text ${ARGN})
  message(FATAL_ERROR "packaging.install_check: ${text}")
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(build "${WORK_DIR}/build")
set(root "${WORK_DIR}/root")
step("configure" ${CMAKE_COMMAND} -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release
     -S "${SOURCE_DIR}" -B "${build}" -DNUMAPLACE_BUILD_EXAMPLES=ON -DNUMAPLACE_BUILD_TESTS=OFF
     -DNUMAPLACE_BUILD_BENCHMARKS=OFF)

# Everything (no component): refused before the first file, with what to build and how.
execute_process(COMMAND ${CMAKE_COMMAND} --install "${build}" --prefix "${root}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "cmake --install (nothing built) exited ${rc}:\n${out}")
if(rc EQUAL 0)
  fail("cmake --install of an unbuilt tree succeeded")
endif()
if(EXISTS "${root}")
  file(GLOB_RECURSE copied LIST_DIRECTORIES false "${root}/*")
  fail("cmake --install failed but copied files first: ${copied}")
endif()
string(REGEX REPLACE "[ \n]+" " " flat "${out}")  # CMake wraps its messages
foreach(word IN ITEMS numaplace_cli numaplace_cli_man numaplace_balance numaplace_balance_man
                      "cmake --build ${build} --target numaplace_tools" "cmake --install ${build} --component dev")
  string(FIND "${flat}" "${word}" at)
  if(at LESS 0)
    fail("the refusal does not name '${word}': ${out}")
  endif()
endforeach()

# The numaplace_tools target the message names exists.
step("numaplace_tools is a target" ${CMAKE_COMMAND} --build "${build}" --target help)
if(GENERATOR MATCHES "Makefiles" AND NOT step_output MATCHES "numaplace_tools")
  fail("the build tree has no numaplace_tools target: ${step_output}")
endif()

# The headers alone need nothing built.
step("cmake --install --component dev" ${CMAKE_COMMAND} --install "${build}" --prefix "${root}" --component dev)
foreach(file IN ITEMS include/numaplace/version.hpp lib/pkgconfig/numaplace.pc)
  if(NOT EXISTS "${root}/${file}")
    fail("cmake --install --component dev did not install ${file}")
  endif()
endforeach()
# numaplace.pc and the CMake package ask for the same oldest Boost (CMake accepts 1.74; the .pc
# once said the Boost it was built with, 1.81).
file(READ "${root}/lib/pkgconfig/numaplace.pc" pc)
string(REGEX MATCH "Boost.Hana ([0-9.]+) or newer" _ "${pc}")
set(pc_boost "${CMAKE_MATCH_1}")
file(GLOB config "${root}/lib*/cmake/numaplace/numaplace-config.cmake")
file(READ "${config}" config_text)
string(REGEX MATCH "find_dependency\\(Boost ([0-9.]+)\\)" _ "${config_text}")
set(config_boost "${CMAKE_MATCH_1}")
if(pc_boost STREQUAL "" OR NOT pc_boost STREQUAL config_boost)
  fail("numaplace.pc asks for Boost '${pc_boost}', the CMake package for '${config_boost}'")
endif()

# The README's install lines (its "## Installing" sh block) are the ones the refusal names.
file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "\n## Installing\n" at)
if(at LESS 0)
  fail("README.md has no '## Installing' section")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(REGEX MATCH "```sh\n[^`]*```" block "${readme}")
foreach(line IN ITEMS "cmake --build build/release --target numaplace_tools" "cmake --install build/release --prefix")
  string(FIND "${block}" "${line}" at)
  if(at LESS 0)
    fail("README.md's install block does not say '${line}': ${block}")
  endif()
endforeach()

# In a tree built whole, the README's cmake --install installs the programs and their man pages.
if(DEFINED BUILD_DIR AND NOT BUILD_DIR STREQUAL "")
  step("cmake --install (built tree)" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/full")
  foreach(file IN ITEMS bin/numaplace bin/numaplace-balance include/numaplace/version.hpp)
    if(NOT EXISTS "${WORK_DIR}/full/${file}")
      fail("cmake --install of the built tree did not install ${file}")
    endif()
  endforeach()
  file(GLOB pages "${WORK_DIR}/full/share/man/man1/numaplace*.1*")
  if(NOT pages)
    fail("cmake --install of the built tree installed no man pages")
  endif()
endif()
message(STATUS "packaging.install_check: ok (Boost ${pc_boost} or newer)")
