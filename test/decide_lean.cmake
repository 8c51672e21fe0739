# decide.hpp stays lean: it reads no simulator header, nothing of the statistics' recording
# side and no topology reader. Run as:
#   cmake -DCXX=... -DINCLUDE_DIRS="a;b" [-DHEADER=file] -P decide_lean.cmake
# HEADER defaults to numaplace/decide.hpp in the first include directory; the test suite also
# runs it on test/data/lean/planted.hpp, which reaches stats/fault_stats.hpp through a `..`
# path, and expects it to fail (decide.lean.catches_planted).
set(flags)
foreach(dir IN LISTS INCLUDE_DIRS)
  list(APPEND flags -I${dir})
endforeach()
list(GET INCLUDE_DIRS 0 numaplace_include)
if(NOT HEADER)
  set(HEADER ${numaplace_include}/numaplace/decide.hpp)
endif()
get_filename_component(header_name ${HEADER} NAME)
execute_process(COMMAND ${CXX} -std=gnu++20 ${flags} -M -x c++ ${HEADER}
                OUTPUT_VARIABLE deps ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${header_name} does not preprocess:\n${errors}")
endif()
# Every header the compiler read, with `a/../` folded away: the compiler names a header by the
# path it took (policy/../stats/fault_stats.hpp), which a pattern on the plain path misses.
string(REGEX MATCHALL "[^ \\\n]+\\.h(pp)?" headers "${deps}")
set(normal_headers)
foreach(header IN LISTS headers)
  cmake_path(NORMAL_PATH header OUTPUT_VARIABLE normal)
  list(APPEND normal_headers ${normal})
endforeach()
list(REMOVE_DUPLICATES normal_headers)
foreach(heavy numaplace/sim/ numaplace/sim\\.hpp numaplace/stats/fault_stats\\.hpp numaplace/stats/numa_group\\.hpp
        numaplace/topology/load_ numaplace/topology/generators\\.hpp)
  foreach(header IN LISTS normal_headers)
    if(header MATCHES "${heavy}")
      message(FATAL_ERROR "${header_name} reads ${header}, which decision-only users should not pay for")
    endif()
  endforeach()
endforeach()
list(LENGTH normal_headers count)
message(STATUS "${header_name} reads ${count} headers, none of the simulator, recording or readers")
