# cmake -DROOT=<source dir> -P check_cmake_minimum.cmake
# Fails, naming file and line, when a CMake file of the project uses a command, option or
# generator expression that CMake 3.21 (the cmake_minimum_required version) lacks. Newer
# CMakes accept these silently, so only a real 3.21 would otherwise notice. This is a list of
# known additions (from each release's notes, 3.22 to 3.28), not a full parse: it catches the
# common ones, and says so.
if(NOT ROOT)
  message(FATAL_ERROR "check_cmake_minimum: pass -DROOT=<the source directory>")
endif()

# "regex@@release@@what" entries; the regex is matched against each line with comments removed.
set(newer_than_3_21
  "^[ \t]*block[ \t]*\\(@@3.25@@block()"
  "^[ \t]*endblock[ \t]*\\(@@3.25@@endblock()"
  "return[ \t]*\\([^)]*PROPAGATE@@3.25@@return(PROPAGATE)"
  "GET_MESSAGE_LOG_LEVEL@@3.25@@cmake_language(GET_MESSAGE_LOG_LEVEL)"
  "SOURCE_FROM_(CONTENT|VAR|FILE)@@3.25@@try_compile(SOURCE_FROM_*)"
  "find_(program|library|file|path)[ \t]*\\([^)]*VALIDATOR@@3.25@@find_*(VALIDATOR)"
  "\\$<LINK_LIBRARY:@@3.24@@$<LINK_LIBRARY>"
  "\\$<LINK_GROUP:@@3.24@@$<LINK_GROUP>"
  "\\$<PATH:@@3.24@@$<PATH>"
  "\\$<PATH_EQUAL:@@3.24@@$<PATH_EQUAL>"
  "[ \t(]PATH_EQUAL[ \t]@@3.24@@if(PATH_EQUAL)"
  "find_package[ \t]*\\([^)]*[ \t]GLOBAL([ \t)]|$)@@3.24@@find_package(GLOBAL)"
  "FIND_PACKAGE_ARGS@@3.24@@FetchContent_Declare(FIND_PACKAGE_ARGS)"
  "OVERRIDE_FIND_PACKAGE@@3.24@@FetchContent_Declare(OVERRIDE_FIND_PACKAGE)"
  "CMAKE_COMPILE_WARNING_AS_ERROR@@3.24@@CMAKE_COMPILE_WARNING_AS_ERROR"
  "COMPILE_WARNING_AS_ERROR@@3.24@@COMPILE_WARNING_AS_ERROR"
  "VERIFY_INTERFACE_HEADER_SETS@@3.24@@VERIFY_INTERFACE_HEADER_SETS"
  "--fresh@@3.24@@cmake --fresh"
  "FILE_SET@@3.23@@target_sources(FILE_SET) / install(FILE_SET)"
  "HEADER_SETS?[ \t)]@@3.23@@HEADER_SET(S)"
  "ENVIRONMENT_MODIFICATION@@3.22@@ENVIRONMENT_MODIFICATION"
  "QUERY[ \t]+DISTRIB_@@3.22@@cmake_host_system_information(QUERY DISTRIB_*)"
  "CONFIGURE_LOG@@3.26@@message(CONFIGURE_LOG)"
  "copy_directory_if_different@@3.26@@cmake -E copy_directory_if_different"
  "\\$<LIST:@@3.27@@$<LIST>"
  "\\$<COMPILE_ONLY:@@3.27@@$<COMPILE_ONLY>"
  "-E[ \t]+env[ \t]+[^)]*--modify@@3.27@@cmake -E env --modify"
)

file(GLOB_RECURSE cmake_files RELATIVE "${ROOT}"
  "${ROOT}/CMakeLists.txt" "${ROOT}/*/CMakeLists.txt" "${ROOT}/*.cmake" "${ROOT}/*.cmake.in")
list(FILTER cmake_files EXCLUDE REGEX "^(build|_deps|\\.git)/|/CMakeFiles/|^CMakeFiles/")
list(FILTER cmake_files EXCLUDE REGEX "^cmake/check_cmake_minimum\\.cmake$")  # this list itself
list(LENGTH cmake_files file_count)
if(file_count EQUAL 0)
  message(FATAL_ERROR "check_cmake_minimum: found no CMake files under ${ROOT}")
endif()

set(findings "")
foreach(rel IN LISTS cmake_files)
  file(STRINGS "${ROOT}/${rel}" lines)
  set(line_number 0)
  foreach(line IN LISTS lines)
    math(EXPR line_number "${line_number} + 1")
    string(REGEX REPLACE "(^|[ \t])#.*$" "" code "${line}")
    foreach(entry IN LISTS newer_than_3_21)
      string(REPLACE "@@" ";" parts "${entry}")
      list(GET parts 0 regex)
      list(GET parts 1 release)
      list(GET parts 2 what)
      if(code MATCHES "${regex}")
        string(APPEND findings "  ${rel}:${line_number}: ${what} needs CMake ${release}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(findings)
  message(FATAL_ERROR "check_cmake_minimum: these need a CMake newer than 3.21 (cmake_minimum_required):\n${findings}")
endif()
message(STATUS "check_cmake_minimum: ${file_count} CMake files use nothing from the list of additions after 3.21")
