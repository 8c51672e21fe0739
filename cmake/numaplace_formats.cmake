# The optional numaplace::formats component: numaplace's own file formats (topology documents,
# machine costs, experiment files, sim reports), read and written by the headers under
# include/numaplace/formats/. Header-only like the core, but its headers need nlohmann-json
# (3.10 or newer) and {fmt} (Debian: nlohmann-json3-dev libfmt-dev), so it is there only when
# both are found. The CLI and the fuzzers of its formats link it.
set(NUMAPLACE_HAVE_FORMATS OFF)
if(NOT NUMAPLACE_WITH_FORMATS STREQUAL "OFF")
  find_package(nlohmann_json 3.10 QUIET)
  find_package(fmt QUIET)
  if(nlohmann_json_FOUND AND fmt_FOUND)
    set(NUMAPLACE_HAVE_FORMATS ON)
    add_library(numaplace_formats INTERFACE)
    add_library(numaplace::formats ALIAS numaplace_formats)
    set_target_properties(numaplace_formats PROPERTIES EXPORT_NAME formats)
    target_link_libraries(numaplace_formats INTERFACE numaplace::numaplace nlohmann_json::nlohmann_json fmt::fmt)
  elseif(NUMAPLACE_WITH_FORMATS STREQUAL "ON")
    message(FATAL_ERROR "NUMAPLACE_WITH_FORMATS=ON but nlohmann-json 3.10+ or fmt was not found "
                        "(install nlohmann-json3-dev libfmt-dev)")
  endif()
endif()
