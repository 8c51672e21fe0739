# decide.hpp stays lean: it reads no simulator header, nothing of the statistics' recording
# side and no topology reader. Run as: cmake -DCXX=... -DINCLUDE_DIRS="a;b" -P decide_lean.cmake
set(flags)
foreach(dir IN LISTS INCLUDE_DIRS)
  list(APPEND flags -I${dir})
endforeach()
list(GET INCLUDE_DIRS 0 numaplace_include)
execute_process(COMMAND ${CXX} -std=gnu++20 ${flags} -M -x c++ ${numaplace_include}/numaplace/decide.hpp
                OUTPUT_VARIABLE deps ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "decide.hpp does not preprocess:\n${errors}")
endif()
foreach(heavy numaplace/sim/ numaplace/sim\\.hpp numaplace/stats/fault_stats\\.hpp numaplace/stats/numa_group\\.hpp
        numaplace/topology/load_ numaplace/topology/generators\\.hpp)
  if(deps MATCHES "[^ ]*${heavy}[^ ]*")
    message(FATAL_ERROR "decide.hpp reads ${CMAKE_MATCH_0}, which decision-only users should not pay for")
  endif()
endforeach()
string(REGEX MATCHALL "[^ \\\n]+\\.h(pp)?" headers "${deps}")
list(REMOVE_DUPLICATES headers)
list(LENGTH headers count)
message(STATUS "decide.hpp reads ${count} headers, none of the simulator, recording or readers")
