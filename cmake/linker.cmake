# A faster linker than GNU ld for every program of the project: lld (Debian package lld, which
# scripts/setup.sh installs), else gold (binutils); GNU ld when the compiler accepts neither.
# Linking about seventy test programs with their debug info is a large share of a cold build.
# IDEM_LINKER=default keeps the compiler's own choice.
include(CheckLinkerFlag)
set(IDEM_LINKER auto CACHE STRING "Linker for the project's programs: auto, lld, gold or default")
set_property(CACHE IDEM_LINKER PROPERTY STRINGS auto lld gold default)

set(idem_linker_candidates ${IDEM_LINKER})
if(IDEM_LINKER STREQUAL "auto")
  set(idem_linker_candidates lld gold)
endif()
foreach(linker IN LISTS idem_linker_candidates)
  if(linker STREQUAL "default")
    break()
  endif()
  string(TOUPPER "IDEM_LINKER_${linker}_WORKS" result)
  check_linker_flag(CXX -fuse-ld=${linker} ${result})
  if(${result})
    target_link_options(idem_build_flags INTERFACE -fuse-ld=${linker})
    message(STATUS "idem: linking with ${linker}")
    break()
  endif()
endforeach()
