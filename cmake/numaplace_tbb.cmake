# The optional numaplace::tbb component: the oneTBB adapter (include/numaplace/adapters/tbb_*.hpp),
# one task_arena per node. Needs oneTBB (Debian: libtbb-dev) and the numaplace::linux component,
# which pins the arenas' threads.
set(NUMAPLACE_HAVE_TBB OFF)
if(NOT NUMAPLACE_WITH_TBB STREQUAL "OFF")
  find_package(TBB CONFIG QUIET)
  if(TBB_FOUND AND NUMAPLACE_HAVE_LINUX)
    set(NUMAPLACE_HAVE_TBB ON)
    add_library(numaplace_tbb INTERFACE)
    add_library(numaplace::tbb ALIAS numaplace_tbb)
    set_target_properties(numaplace_tbb PROPERTIES EXPORT_NAME tbb)
    target_link_libraries(numaplace_tbb INTERFACE numaplace::linux TBB::tbb)
  elseif(NUMAPLACE_WITH_TBB STREQUAL "ON")
    message(FATAL_ERROR "NUMAPLACE_WITH_TBB=ON but oneTBB (libtbb-dev) or the Linux layer was not found")
  endif()
endif()
