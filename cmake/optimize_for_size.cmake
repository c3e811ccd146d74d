# IDEM_OPTIMIZE_FOR_SIZE (default OFF): for an app where the binary's size matters more than the
# SDK's CPU per request (a phone app). The SDK library (idem) is compiled with -Os and one
# section per function and per datum, and every program that links idem is linked with
# --gc-sections, so that the linker drops what the app does not reach. docs/FOOTPRINT.md has
# idem's share of a stripped app either way, and what it costs in CPU.
option(IDEM_OPTIMIZE_FOR_SIZE "Build the SDK for size: -Os, function/data sections, --gc-sections" OFF)

function(idem_optimize_for_size target)
  if(IDEM_OPTIMIZE_FOR_SIZE)
    # After the build type's flags on the command line, so -Os replaces its -O2.
    target_compile_options(${target} PRIVATE -Os -ffunction-sections -fdata-sections)
    target_link_options(${target} INTERFACE "LINKER:--gc-sections")
  endif()
endfunction()
