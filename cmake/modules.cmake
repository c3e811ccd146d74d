# The folders of src/, mock_server/ and common/ as modules whose arrows the compiler enforces
# (docs/DESIGN.md draws them).
#
#   idem_module(<target> DIR <folder> AS <include prefix>
#               [USES <module targets>...] [LIBS <other targets>...])
#
# makes two targets of one folder's files (its subfolders are modules of their own):
#   <target>_headers  INTERFACE: the folder's headers, reachable as "<prefix>/<file>.hpp", and
#                     the headers of the modules it USES (so of theirs too: an arrow is transitive)
#   <target>          OBJECT: the folder's .cpp files, compiled against <target>_headers and LIBS
#                     (none: only the headers target exists)
# The headers are reached through a folder of one-line forwarding headers in the build tree
# (<build>/modules/<target>/<prefix>/<file>.hpp -> #include "<source path>"), one per header
# of that folder and nothing else, so that `#include "transport/curl_request.hpp"` compiles only
# in a module that uses transport: an include against the plan is a compile error ("No such
# file"). Quoted includes never climb out of a folder ("../"): the test design.layers checks it
# (cmake/check_layers.cmake), with the rules about the public headers the compiler cannot see.
#
# A forwarding header is written only when it is new or its target moved, so a configure does
# not make every file that includes one out of date; one whose header is gone is removed.
function(idem_module target)
  cmake_parse_arguments(ARG "" "DIR;AS" "USES;LIBS" ${ARGN})
  get_filename_component(dir ${ARG_DIR} ABSOLUTE)
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  file(GLOB headers CONFIGURE_DEPENDS ${dir}/*.hpp)
  set(view ${PROJECT_BINARY_DIR}/modules/${target})
  set(wanted "")
  foreach(header IN LISTS headers)
    get_filename_component(name ${header} NAME)
    set(forwarder ${view}/${ARG_AS}/${name})
    list(APPEND wanted ${forwarder})
    file(CONFIGURE OUTPUT ${forwarder}
      CONTENT "#pragma once\n// ${ARG_AS}/${name} for module ${target} (cmake/modules.cmake)\n#include \"${header}\"\n")
  endforeach()
  file(GLOB_RECURSE present ${view}/*)
  foreach(file IN LISTS present)
    if(NOT file IN_LIST wanted)
      file(REMOVE ${file})
    endif()
  endforeach()

  add_library(${target}_headers INTERFACE)
  target_include_directories(${target}_headers INTERFACE $<BUILD_INTERFACE:${view}>)
  foreach(use IN LISTS ARG_USES)
    target_link_libraries(${target}_headers INTERFACE ${use}_headers)
  endforeach()
  target_link_libraries(${target}_headers INTERFACE ${ARG_LIBS})
  if(sources)
    add_library(${target} OBJECT ${sources})
    target_link_libraries(${target} PUBLIC ${target}_headers PRIVATE idem_build_flags)
    idem_unity_build(${target})
  endif()
  set_property(GLOBAL APPEND PROPERTY IDEM_MODULES ${target})
endfunction()

# The object files of MODULES, in TARGET (a library or program made of modules).
function(idem_module_objects target)
  foreach(module IN LISTS ARGN)
    if(TARGET ${module})
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:${module}>)
    endif()
  endforeach()
endfunction()
