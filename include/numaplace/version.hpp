#pragma once
// numaplace's version. The one home for it: CMakeLists.txt reads these three lines for
// project(VERSION), so the package version, numaplace.pc and `numaplace --version` agree.

#define NUMAPLACE_VERSION_MAJOR 0
#define NUMAPLACE_VERSION_MINOR 2
#define NUMAPLACE_VERSION_PATCH 0

/// MAJOR * 10000 + MINOR * 100 + PATCH, for preprocessor comparisons.
#define NUMAPLACE_VERSION (NUMAPLACE_VERSION_MAJOR * 10000 + NUMAPLACE_VERSION_MINOR * 100 + NUMAPLACE_VERSION_PATCH)

#define NUMAPLACE_VERSION_TEXT_(x) #x
#define NUMAPLACE_VERSION_TEXT(x) NUMAPLACE_VERSION_TEXT_(x)

namespace numaplace {

/// The version as text, e.g. "0.2.0".
inline constexpr const char* version_string = NUMAPLACE_VERSION_TEXT(NUMAPLACE_VERSION_MAJOR) "." NUMAPLACE_VERSION_TEXT(
    NUMAPLACE_VERSION_MINOR) "." NUMAPLACE_VERSION_TEXT(NUMAPLACE_VERSION_PATCH);

}  // namespace numaplace
