# Builds and runs test/consumer against numaplace in one of two ways (cmake -P script):
#   cmake -DMODE=install|subdirectory -DSOURCE_DIR=<numaplace> -DWORK_DIR=<scratch>
#         -DGENERATOR=<gen> -DCXX_COMPILER=<c++> [-DHWLOC=ON] [-DWITH_LINUX=ON] [-DFORMATS=ON] -P run_consumer.cmake
# install:      configure numaplace alone, cmake --install it into WORK_DIR/prefix, then build the
#               consumer with find_package(numaplace CONFIG REQUIRED) and CMAKE_PREFIX_PATH.
# subdirectory: build the consumer with add_subdirectory(<numaplace source>); the consumer's
#               CMakeLists.txt fails if numaplace created any test or development target.
cmake_minimum_required(VERSION 3.21)

foreach(var IN ITEMS MODE SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED HWLOC)
  set(HWLOC OFF)
endif()
if(NOT DEFINED WITH_LINUX)
  set(WITH_LINUX OFF)
endif()
if(NOT DEFINED FORMATS)
  set(FORMATS OFF)
endif()

set(STEP_PREFIX "[${MODE}]")
include(${SOURCE_DIR}/test/support/script_step.cmake)

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(consumer_src "${CMAKE_CURRENT_LIST_DIR}")
set(common -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)

if(MODE STREQUAL "install")
  include(${SOURCE_DIR}/cmake/numaplace_version.cmake)
  numaplace_read_version(${SOURCE_DIR}/include/numaplace/version.hpp version)
  set(prefix "${WORK_DIR}/prefix")
  # numaplace's own development options default to ON here (it is the top-level project), so
  # turn them off: packaging needs the library alone.
  step("configure numaplace" ${CMAKE_COMMAND} ${common} -S "${SOURCE_DIR}" -B "${WORK_DIR}/numaplace-build"
       -DCMAKE_INSTALL_PREFIX=${prefix} -DNUMAPLACE_BUILD_TESTS=OFF -DNUMAPLACE_BUILD_EXAMPLES=OFF
       -DNUMAPLACE_BUILD_BENCHMARKS=OFF)
  step("install numaplace" ${CMAKE_COMMAND} --install "${WORK_DIR}/numaplace-build")
  file(GLOB_RECURSE config "${prefix}/*/numaplace-config.cmake")
  file(GLOB_RECURSE umbrella "${prefix}/include/numaplace/numaplace.hpp")
  if(NOT config OR NOT umbrella)
    message(FATAL_ERROR "cmake --install did not install numaplace-config.cmake and the headers under ${prefix}")
  endif()
  # Without NUMAPLACE_BUILD_EXAMPLES the install is the library alone: no programs, no man pages.
  if(EXISTS "${prefix}/bin" OR EXISTS "${prefix}/share/man")
    message(FATAL_ERROR "a header-only install (NUMAPLACE_BUILD_EXAMPLES=OFF) put programs or man pages under ${prefix}")
  endif()
  step("configure consumer" ${CMAKE_COMMAND} ${common} -S "${consumer_src}" -B "${WORK_DIR}/consumer-build"
       -DNUMAPLACE_CONSUMER_MODE=package -DNUMAPLACE_CONSUMER_VERSION=${version_MAJOR}.${version_MINOR}
       -DNUMAPLACE_CONSUMER_HWLOC=${HWLOC} -DNUMAPLACE_CONSUMER_LINUX=${WITH_LINUX} -DNUMAPLACE_CONSUMER_FORMATS=${FORMATS}
       -DCMAKE_PREFIX_PATH=${prefix}
       -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
  # The consumer must have found the installed copy, not the source tree.
  if(NOT step_output MATCHES "numaplace [0-9.]+ from ${prefix}/")
    message("${step_output}")
    message(FATAL_ERROR "the consumer did not find numaplace under ${prefix}")
  endif()
elseif(MODE STREQUAL "subdirectory")
  step("configure consumer" ${CMAKE_COMMAND} ${common} -S "${consumer_src}" -B "${WORK_DIR}/consumer-build"
       -DNUMAPLACE_CONSUMER_MODE=subdirectory -DNUMAPLACE_CONSUMER_HWLOC=${HWLOC} -DNUMAPLACE_CONSUMER_LINUX=${WITH_LINUX}
       -DNUMAPLACE_CONSUMER_FORMATS=${FORMATS} -DNUMAPLACE_SOURCE_DIR=${SOURCE_DIR})
else()
  message(FATAL_ERROR "run_consumer.cmake: MODE must be install or subdirectory, not '${MODE}'")
endif()

step("build consumer" ${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
find_program(consumer_exe consumer PATHS "${WORK_DIR}/consumer-build" NO_DEFAULT_PATH)
if(NOT consumer_exe)
  message(FATAL_ERROR "[${MODE}] the consumer executable was not built")
endif()
step("run consumer" "${consumer_exe}")
message("${step_output}")
if(NOT step_output MATCHES "consumer: ok")
  message(FATAL_ERROR "[${MODE}] the consumer did not report success")
endif()
