# numaplace_read_version(<header> <prefix>): sets <prefix>_MAJOR, _MINOR, _PATCH and <prefix> (x.y.z)
# from include/numaplace/version.hpp, the version's one home. Used by the top-level
# CMakeLists.txt (before project()) and by the packaging tests' cmake -P scripts.
function(numaplace_read_version header prefix)
  file(STRINGS "${header}" lines REGEX "^#define NUMAPLACE_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    if(NOT lines MATCHES "NUMAPLACE_VERSION_${part} ([0-9]+)")
      message(FATAL_ERROR "${header}: no '#define NUMAPLACE_VERSION_${part} <number>' line")
    endif()
    set(${prefix}_${part} ${CMAKE_MATCH_1} PARENT_SCOPE)
    set(${part} ${CMAKE_MATCH_1})
  endforeach()
  set(${prefix} ${MAJOR}.${MINOR}.${PATCH} PARENT_SCOPE)
endfunction()
