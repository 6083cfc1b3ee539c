# find_package(loopcompact) for an installed loopcompact. Hand-written (cargo-c generates only the
# pkg-config file) and installed by `cargo cinstall` into <prefix>/share/cmake/loopcompact/, where
# CMake looks for it under each CMAKE_PREFIX_PATH entry.
#
#   find_package(loopcompact 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE loopcompact::loopcompact)          # shared
#   target_link_libraries(app PRIVATE loopcompact::loopcompact_static)   # static
#
# Imported targets:
#   loopcompact::loopcompact         the shared library, with the include directory (loopcompact.h
#                                    and the C++ wrapper loopcompact.hpp)
#   loopcompact::loopcompact_static  the static library, with the system libraries the Rust standard
#                                    library needs: the Libs.private line cargo-c wrote into
#                                    loopcompact.pc from `--print native-static-libs`
# Variables: loopcompact_VERSION (from the installed header), loopcompact_ABI_VERSION
# (LC_ABI_VERSION: check lc_abi_version() against it), loopcompact_INCLUDE_DIR.
#
# Relocatable: the prefix is three directories above this file. The libraries are looked for in
# <prefix>/lib (`cargo cinstall --libdir <prefix>/lib`, as README.md installs), <prefix>/lib64 and
# <prefix>/lib/<multiarch> (cargo-c's default libdir on Debian and Ubuntu).

cmake_minimum_required(VERSION 3.11)

get_filename_component(_loopcompact_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_loopcompact_libdirs "${_loopcompact_prefix}/lib" "${_loopcompact_prefix}/lib64")
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND _loopcompact_libdirs "${_loopcompact_prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()

find_path(loopcompact_INCLUDE_DIR loopcompact.h PATHS "${_loopcompact_prefix}/include" NO_DEFAULT_PATH)
# The shared library (the import library on Windows) and the static one, by their file names.
find_library(loopcompact_LIBRARY
  NAMES libloopcompact.so loopcompact.dll.lib libloopcompact.dll.a libloopcompact.dylib loopcompact
  PATHS ${_loopcompact_libdirs} NO_DEFAULT_PATH)
find_library(loopcompact_STATIC_LIBRARY NAMES libloopcompact.a loopcompact.lib
  PATHS ${_loopcompact_libdirs} NO_DEFAULT_PATH)

if(NOT loopcompact_INCLUDE_DIR OR NOT loopcompact_LIBRARY)
  set(loopcompact_FOUND FALSE)
  set(loopcompact_NOT_FOUND_MESSAGE
    "loopcompact.h or libloopcompact not found under ${_loopcompact_prefix} (include/, lib/)")
  return()
endif()

file(STRINGS "${loopcompact_INCLUDE_DIR}/loopcompact.h" _loopcompact_abi REGEX "^#define LC_ABI_VERSION ")
string(REGEX REPLACE "^#define LC_ABI_VERSION ([0-9]+).*" "\\1" loopcompact_ABI_VERSION "${_loopcompact_abi}")

if(NOT TARGET loopcompact::loopcompact)
  if(WIN32)
    add_library(loopcompact::loopcompact UNKNOWN IMPORTED)
  else()
    add_library(loopcompact::loopcompact SHARED IMPORTED)
  endif()
  set_target_properties(loopcompact::loopcompact PROPERTIES
    IMPORTED_LOCATION "${loopcompact_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${loopcompact_INCLUDE_DIR}")
endif()

if(loopcompact_STATIC_LIBRARY AND NOT TARGET loopcompact::loopcompact_static)
  # One source for the system libraries: the .pc file beside the library.
  get_filename_component(_loopcompact_libdir "${loopcompact_STATIC_LIBRARY}" DIRECTORY)
  set(_loopcompact_native_libs "")
  if(EXISTS "${_loopcompact_libdir}/pkgconfig/loopcompact.pc")
    file(STRINGS "${_loopcompact_libdir}/pkgconfig/loopcompact.pc" _loopcompact_private REGEX "^Libs.private:")
    string(REGEX REPLACE "^Libs.private:[ \t]*" "" _loopcompact_private "${_loopcompact_private}")
    separate_arguments(_loopcompact_native_libs UNIX_COMMAND "${_loopcompact_private}")
  endif()
  add_library(loopcompact::loopcompact_static STATIC IMPORTED)
  set_target_properties(loopcompact::loopcompact_static PROPERTIES
    IMPORTED_LOCATION "${loopcompact_STATIC_LIBRARY}"
    IMPORTED_LINK_INTERFACE_LANGUAGES C
    INTERFACE_INCLUDE_DIRECTORIES "${loopcompact_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${_loopcompact_native_libs}")
endif()

unset(_loopcompact_prefix)
unset(_loopcompact_libdirs)
unset(_loopcompact_libdir)
unset(_loopcompact_abi)
unset(_loopcompact_private)
unset(_loopcompact_native_libs)
