# Who the bytes of a linked program belong to, from lld's link map (-Wl,-Map=FILE), for
# scripts/footprint.sh. Counts the input sections the linker kept in every output section that
# takes room in the file (allocated, not .bss/.tbss), after --gc-sections and --icf if given.
#
#   awk -v archive=libidem.a -v app=example_callback.cpp.o -f link_map.awk FILE.map
#
# Prints tab-separated lines:
#   group    NAME  BYTES   idem (members of `archive`), app (`app`), linker (<internal>: dynamic
#                          symbols, relocations, GOT/PLT, merged strings...), other (crt files,
#                          libgcc, libc_nonshared)
#   member   NAME  BYTES   per member of `archive`
#   section  NAME  BYTES   idem's bytes per output section (.text, .rodata, .eh_frame...)
#   namespace NAME BYTES   idem's bytes per namespace of the symbols the map names in them (the
#                          first of idem::, nlohmann::, boost::asio::, boost::, std:: in the
#                          demangled name; code only: not .eh_frame, not merged strings)
#   output   BYTES         every counted output section together
# GNU ld and gold write another format: the script links with the project's linker, lld.

function hex(s,    n, i, c) {
  n = 0
  s = tolower(s)
  for (i = 1; i <= length(s); i++) {
    c = index("0123456789abcdef", substr(s, i, 1))
    if (c == 0) break
    n = n * 16 + c - 1
  }
  return n
}

function namespace_of(name,    best, at, i, ns) {
  best = 0
  ns = "other (C functions, vtables, typeinfo, lambdas' statics)"
  split("idem:: nlohmann:: boost::asio:: boost:: std::", candidates, " ")
  for (i = 1; i <= 5; i++) {
    at = index(name, candidates[i])
    if (at > 0 && (best == 0 || at < best)) {
      best = at
      ns = candidates[i]
    }
  }
  return ns
}

NR == 1 {
  out_col = index($0, "Out")
  in_col = index($0, "In ")
  sym_col = index($0, "Symbol")
  next
}

{
  if (!match($0, /^ *[0-9a-fA-F]+ +[0-9a-fA-F]+ +[0-9a-fA-F]+ +[0-9]+ +/)) next
  col = RLENGTH + 1
  name = substr($0, col)
  size = hex($3)
  vma = hex($1)
}

col == out_col {
  out = name
  counted = vma != 0 && out != ".bss" && out != ".tbss"
  if (counted) output += size
  owner = ""
  next
}

col == in_col {
  owner = ""
  if (!counted) next
  if (index(name, archive "(") > 0) {
    member = name
    sub(".*" archive "\\(", "", member)
    sub("\\).*", "", member)
    owner = "idem"
    members[member] += size
    sections[out] += size
  } else if (index(name, "<internal>") == 1) {
    owner = "linker"
  } else if (app != "" && index(name, app ":") > 0) {
    owner = "app"
  } else {
    owner = "other"
  }
  groups[owner] += size
  next
}

col == sym_col && owner == "idem" {
  namespaces[namespace_of(name)] += size
}

END {
  for (g in groups) printf "group\t%s\t%d\n", g, groups[g]
  for (m in members) printf "member\t%s\t%d\n", m, members[m]
  for (s in sections) printf "section\t%s\t%d\n", s, sections[s]
  for (n in namespaces) printf "namespace\t%s\t%d\n", n, namespaces[n]
  printf "output\t%d\n", output
}
