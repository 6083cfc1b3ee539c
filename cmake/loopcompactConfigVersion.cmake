# The version check of find_package(loopcompact [VERSION]): the version is the installed header's
# LOOPCOMPACT_VERSION_STRING (the crate version), so it cannot drift from the library. Compatible
# when not older than the version asked for and of the same major version, and, below 1.0, of the
# same minor version too (Cargo's semver rule for 0.x releases).

get_filename_component(_loopcompact_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(PACKAGE_VERSION "")
if(EXISTS "${_loopcompact_prefix}/include/loopcompact.h")
  file(STRINGS "${_loopcompact_prefix}/include/loopcompact.h" _loopcompact_version
    REGEX "^#define LOOPCOMPACT_VERSION_STRING ")
  string(REGEX REPLACE "^#define LOOPCOMPACT_VERSION_STRING \"([^\"]*)\".*" "\\1" PACKAGE_VERSION
    "${_loopcompact_version}")
endif()

if(PACKAGE_VERSION STREQUAL "")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
elseif(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _loopcompact_mm "${PACKAGE_VERSION}")
  set(_loopcompact_major "${CMAKE_MATCH_1}")
  set(_loopcompact_minor "${CMAKE_MATCH_2}")
  if(NOT _loopcompact_major STREQUAL PACKAGE_FIND_VERSION_MAJOR)
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  elseif(_loopcompact_major STREQUAL "0" AND PACKAGE_FIND_VERSION_COUNT GREATER 1
         AND NOT _loopcompact_minor STREQUAL PACKAGE_FIND_VERSION_MINOR)
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
    if(PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
      set(PACKAGE_VERSION_EXACT TRUE)
    endif()
  endif()
endif()

unset(_loopcompact_prefix)
unset(_loopcompact_version)
unset(_loopcompact_mm)
unset(_loopcompact_major)
unset(_loopcompact_minor)
