# Fails if PROGRAM, built against libc++, loads libstdc++ (cmake/libcxx.cmake):
#   cmake -DPROGRAM=<file> -P cmake/check_no_libstdcxx.cmake
# ldd lists every shared library the program loads, those of its libraries included.
if(NOT PROGRAM)
  message(FATAL_ERROR "usage: cmake -DPROGRAM=<file> -P cmake/check_no_libstdcxx.cmake")
endif()
execute_process(COMMAND ldd ${PROGRAM} OUTPUT_VARIABLE loaded RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ldd ${PROGRAM} failed (${status}): cannot check its standard library")
endif()
if(loaded MATCHES "libstdc\\+\\+")
  message(FATAL_ERROR "${PROGRAM} is built against libc++ but loads libstdc++ as well "
                      "(a C++ library built against libstdc++ is linked in):\n${loaded}")
endif()
if(NOT loaded MATCHES "libc\\+\\+\\.so")
  message(FATAL_ERROR "${PROGRAM} is built with IDEM_USES_LIBCXX but does not load libc++:\n"
                      "${loaded}")
endif()
