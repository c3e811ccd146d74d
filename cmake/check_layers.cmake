# The rules of docs/DESIGN.md that the compiler cannot see, checked over the sources:
#   cmake -DSOURCE_DIR=<checkout> -P cmake/check_layers.cmake     (CTest: design.layers)
# The compiler already refuses an include of another folder's private header that the folder's
# module does not use (cmake/modules.cmake). What it cannot refuse:
#  1. a quoted include that climbs out of its folder ("../transport/x.hpp") past the modules;
#  2. public headers (include/idem) that only some parts may include: every module sees them all,
#     so the arrows that end in the public API are checked here by name;
#  3. the two programs' sides: the SDK (include/, src/) never names the mock server, and the mock
#     server never names the SDK (it is not on its include path either; this says why);
#  4. a system's own headers (POSIX, Windows) only in src/platform, never in a public header.
# Each rule reads the quoted and angled includes of a file as text; a violation names the file,
# the line's include and the rule.
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<checkout> -P cmake/check_layers.cmake")
endif()

set(violations "")

# The includes of every .cpp/.hpp directly in DIR (RECURSE: and below), as "file|include" pairs.
function(includes_of out dir)
  cmake_parse_arguments(ARG "RECURSE" "" "" ${ARGN})
  if(ARG_RECURSE)
    file(GLOB_RECURSE files ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp)
  else()
    file(GLOB files ${SOURCE_DIR}/${dir}/*.cpp ${SOURCE_DIR}/${dir}/*.hpp)
  endif()
  set(pairs "")
  foreach(file IN LISTS files)
    file(STRINGS ${file} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${file})
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*$" "\\1" target "${line}")
      list(APPEND pairs "${rel}|${target}")
    endforeach()
  endforeach()
  set(${out} ${pairs} PARENT_SCOPE)
endfunction()

# Rule NAME: in the includes of DIR, those matching FORBID (a regex) are violations, unless they
# match ALLOW, or the including file (its path from the checkout) matches EXCEPT_FILES.
function(rule name dir)
  cmake_parse_arguments(ARG "RECURSE" "FORBID;ALLOW;EXCEPT_FILES" "" ${ARGN})
  if(ARG_RECURSE)
    includes_of(pairs ${dir} RECURSE)
  else()
    includes_of(pairs ${dir})
  endif()
  foreach(pair IN LISTS pairs)
    string(REPLACE "|" ";" parts "${pair}")
    list(GET parts 0 file)
    list(GET parts 1 target)
    if(ARG_EXCEPT_FILES AND file MATCHES "${ARG_EXCEPT_FILES}")
      continue()
    endif()
    if(target MATCHES "${ARG_FORBID}" AND NOT (ARG_ALLOW AND target MATCHES "${ARG_ALLOW}"))
      list(APPEND violations "${file}: #include \"${target}\": ${name}")
    endif()
  endforeach()
  set(violations ${violations} PARENT_SCOPE)
endfunction()

# 1. No include climbs out of its folder.
foreach(top include src mock_server common)
  rule("an include names its folder from the module root, never \"../\"" ${top} RECURSE
    FORBID "^\\.\\./|/\\.\\./")
endforeach()

# 2. The public headers each part may include.
rule("public headers include only public headers" include RECURSE
  FORBID "^(src|mock_server|common|tests|util|platform|policy|intent|orders|store|transport|flight|client|testing)/")
rule("util is below everything: no public header of idem" src/util FORBID "^idem/")
rule("platform is below everything: no public header of idem" src/platform FORBID "^idem/")
rule("policy is pure decisions: it never touches a transport, a store or the client" src/policy
  FORBID "^idem/" ALLOW
  "^idem/(backoff|business_lookup|classify|deadline|http_headers|lookup_verdict|retry_budget|server_profile)\\.hpp$")
rule("transport moves requests and knows no intents, stores or clients" src/transport
  FORBID "^idem/" ALLOW
  "^idem/(classify|curl_transport|http_headers|request_body|transport|transport_error|version)\\.hpp$")
foreach(dir src/intent src/orders src/store src/store/sqlite)
  rule("intents, orders and stores are values and records: never the client or a transport"
    ${dir} FORBID "^idem/(client|blocking_client|lifecycle|scheduler|observer|transport|curl_transport)\\.hpp$")
endforeach()
rule("the test kit drives the mock server as a program: never the SDK" src/testing
  FORBID "^idem/" ALLOW "^idem/testing/")

# 3. The SDK and the mock server never reach each other.
foreach(dir include src)
  rule("the SDK never reaches the mock server" ${dir} RECURSE FORBID "^mock_server/")
endforeach()
foreach(dir mock_server common)
  rule("the mock server never reaches the SDK" ${dir} RECURSE FORBID "^(idem|src)/")
endforeach()

# 4. The SDK's calls to one system go through src/platform, which has a POSIX and a Windows side
# (docs/PLATFORMS.md); the public headers name no system's headers, so that they compile
# everywhere. Exceptions by design: the epoll set (Linux's own, compiled on Linux
# only) and the test kit (POSIX only, as the child-process helper it carries).
string(CONCAT system_headers
  "^(unistd|fcntl|pthread|poll|signal|spawn|dirent|netdb|windows|winsock2|ws2tcpip|io|process)"
  "\\.h$|^(sys|netinet|arpa|linux)/")
rule("system calls of one system go through src/platform" src RECURSE FORBID "${system_headers}"
  EXCEPT_FILES "^src/(platform|testing)/|^src/transport/curl_epoll_socket_set\\.cpp$")
rule("public headers name no system's own headers" include RECURSE FORBID "${system_headers}"
  EXCEPT_FILES "^include/idem/testing/")

if(violations)
  list(LENGTH violations count)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "${count} include(s) against docs/DESIGN.md:\n  ${text}")
endif()
message(STATUS "design.layers: every include follows docs/DESIGN.md")
