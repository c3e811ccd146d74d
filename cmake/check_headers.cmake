# Every public header compiles on its own: an app may include any one of them first.
#   cmake -DSOURCE_DIR=<checkout> -DBINARY_DIR=<build> -DCXX=<compiler> -DINCLUDES=<dirs;...>
#         -P cmake/check_headers.cmake                       (CTest: design.headers_alone)
# Each header is compiled alone (-fsyntax-only, C++20, warnings as errors) in a translation unit
# that includes nothing else; a failure names the header and the compiler's first lines.
foreach(var SOURCE_DIR BINARY_DIR CXX)
  if(NOT ${var})
    message(FATAL_ERROR "check_headers.cmake: ${var} is not set")
  endif()
endforeach()

file(GLOB_RECURSE headers RELATIVE ${SOURCE_DIR}/include ${SOURCE_DIR}/include/idem/*.hpp)
list(SORT headers)
set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Werror -I${SOURCE_DIR}/include
  -I${BINARY_DIR}/include)
foreach(dir IN LISTS INCLUDES)
  list(APPEND flags -I${dir})
endforeach()
set(work ${BINARY_DIR}/header_check)
file(MAKE_DIRECTORY ${work})
set(failed "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER ${header} name)
  set(tu ${work}/${name}.cpp)
  file(WRITE ${tu} "#include \"${header}\"\n")
  execute_process(COMMAND ${CXX} ${flags} ${tu} RESULT_VARIABLE rc ERROR_VARIABLE err
    OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    string(SUBSTRING "${err}" 0 1500 err)
    list(APPEND failed ${header})
    message("${header} does not compile alone:\n${err}")
    continue()
  endif()
endforeach()
if(failed)
  list(JOIN failed ", " names)
  message(FATAL_ERROR "public headers that do not compile alone: ${names}")
endif()
