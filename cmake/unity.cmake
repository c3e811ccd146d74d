# IDEM_UNITY_BUILD: compile each multi-file library of the project (the SDK, the test kit, the
# mock server's core, idem-cli's and idem-soak's logic, the test support) in batches of 8 source
# files per translation unit, so that Asio, Beast, nlohmann/json and the standard headers are
# parsed and their common templates instantiated once per batch instead of once per file: all
# six build in 333 CPU-s, where the SDK and the mock server's core alone took 445 file by file
# (GCC 12, -O2 -g1, cold). The test programs (a few per area, tests/CMakeLists.txt) compile in
# batches of 8 test files the same way.
#
# scripts/build.sh and scripts/arm64.sh turn it on (so the README's commands and every CI
# configuration use it); a plain `cmake` configure leaves it off, which keeps an edit's rebuild
# to the one file edited, and checks that every file includes what it uses (a unity batch can
# hide a missing include behind an earlier file's).
option(IDEM_UNITY_BUILD "Compile the project's libraries in unity batches (faster cold builds)" OFF)

function(idem_unity_build target)
  if(IDEM_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()
