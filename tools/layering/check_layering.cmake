# Checks the include graph against the arrows that must never exist (docs/architecture.md,
# shared/DESIGN.md "Layout"). Every `#include "..."` line of every product source folder is
# looked at; an include that breaks an arrow fails the check unless it is in the allowlist,
# and an allowlist entry that no longer matches any include fails it too (so the list can only
# shrink).
#
#   cmake -DROOT=<source tree> [-DALLOWLIST=<file>] -P check_layering.cmake
#
# Exit status 0 when the tree is clean; otherwise one line per problem and a fatal error.
cmake_minimum_required(VERSION 3.20)

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "check_layering: pass -DROOT=<source tree>")
endif()
if(NOT DEFINED ALLOWLIST)
  set(ALLOWLIST "${CMAKE_CURRENT_LIST_DIR}/allowlist.txt")
endif()

# The product folders, in pipeline order. tests/, tools/, bench/ and examples/ may include
# anything; nothing in the product may include them. doctor/ (the machine's readiness checks)
# sits beside the pipeline and uses base/ only; fuzz/ drives the whole product like a test and
# nothing of the product includes it; scripts/ hold no C++ (they run the built binaries).
set(LAYERS base trace collector analyzers pipeline reports render export gate doctor fuzz cli)
set(NO_CXX_FOLDERS scripts)

# Files that DESIGN.md places in render/ but that still live in reports/: they are checked as the
# layer they will move to. (The terminal, Markdown and HTML renderers are in render/ now; the
# progress bar on stderr is what people read too. The exporters are in export/.)
set(PENDING_RENDER reports/progress.cc reports/progress.h)
set(PENDING_EXPORT)

# The analyzers' typed results: what reports and exporters may see of analyzers/ (the roofline's
# results and the dependency graph's have their own headers, beside the analyzers that compute them).
set(ANALYZER_RESULTS analyzers/results/analysis.h analyzers/results/fields.h analyzers/results/results.h analyzers/results/precision_result.h
    analyzers/roofline/roofline_result.h analyzers/results/collectives_result.h analyzers/results/memory_snapshot_result.h
    analyzers/integrity/integrity_result.h analyzers/ncu/ncu_result.h
    analyzers/graph/critical_path_result.h)

# analyzers/ return typed results: no JSON library there (the report's field names live in
# reports/, which serialises the results). Matched on any include form, <...> or "...".
set(NO_JSON_LAYERS analyzers)
set(JSON_INCLUDE_REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]nlohmann/")

# Layer of a path relative to ROOT ("" for paths outside the product).
function(layer_of path out)
  set(layer "")
  if(path IN_LIST PENDING_RENDER)
    set(layer render)
  elseif(path IN_LIST PENDING_EXPORT)
    set(layer export)
  else()
    string(REGEX MATCH "^[^/]+" first "${path}")
    if(first IN_LIST LAYERS OR first STREQUAL "tests" OR first STREQUAL "tools" OR first IN_LIST NO_CXX_FOLDERS)
      set(layer ${first})
    endif()
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# Why including `inc` (layer `to`) from layer `from` breaks an arrow, or "" if it does not.
function(violation from to inc out)
  set(why "")
  if((to STREQUAL "tests" OR to STREQUAL "tools") AND NOT from STREQUAL "fuzz")
    set(why "the product never includes ${to}/ (test and benchmark code)")
  elseif(to STREQUAL "fuzz" AND NOT from STREQUAL "fuzz")
    set(why "the product never includes fuzz/ (it drives the product like a test)")
  elseif(to IN_LIST NO_CXX_FOLDERS)
    set(why "${to}/ holds scripts, nothing to include")
  elseif(from STREQUAL "doctor" AND NOT (to STREQUAL "doctor" OR to STREQUAL "base"))
    set(why "doctor/ checks the machine and uses base/ only")
  elseif(to STREQUAL "doctor" AND NOT (from STREQUAL "doctor" OR from STREQUAL "cli"))
    set(why "only cli/ runs doctor/")
  elseif(from STREQUAL "pipeline" AND to MATCHES "^(reports|render|export|gate|collector)$")
    set(why "pipeline/ runs the reader and the analyzers and builds the job; outputs come after it")
  elseif(to STREQUAL "pipeline" AND from MATCHES "^(base|trace|collector|analyzers|reports|render|export|gate)$")
    set(why "pipeline/ is used by cli/ and fuzz/ only (it drives the reader and the analyzers)")
  elseif(from STREQUAL "base" AND NOT to STREQUAL "base")
    set(why "base/ uses nothing of ours")
  elseif(from STREQUAL "collector" AND NOT (to STREQUAL "collector" OR to STREQUAL "base"
         OR inc MATCHES "^trace/formats/amptrace/"))
    set(why "collector/ may use only trace/formats/amptrace/ and base/")
  elseif(to STREQUAL "cli" AND NOT from STREQUAL "cli")
    set(why "cli/ is the top: nothing includes it")
  elseif(from STREQUAL "trace" AND to MATCHES "^(analyzers|pipeline|reports|render|export|gate|collector)$")
    set(why "trace/ knows nothing of the stages after it")
  elseif(from STREQUAL "analyzers" AND to MATCHES "^(reports|render|export|gate|collector)$")
    set(why "analyzers/ know only the trace model")
  elseif(from STREQUAL "reports" AND to MATCHES "^(render|export|collector)$")
    set(why "reports/ serialise results; rendering and export come after them")
  elseif(from STREQUAL "reports" AND to STREQUAL "analyzers" AND NOT inc IN_LIST ANALYZER_RESULTS)
    set(why "reports/ get the analyzers' typed results, never their means to compute")
  elseif(src MATCHES "^reports/contract/" AND NOT (to STREQUAL "base" OR inc MATCHES "^reports/contract/"))
    set(why "reports/contract/ (the reading side of the report) knows only base/ and the JSON library")
  elseif(from MATCHES "^(render|gate)$" AND to STREQUAL "reports" AND NOT inc MATCHES "^reports/contract/")
    set(why "${from}/ reads the report through reports/contract/, never the writer")
  elseif(from STREQUAL "render" AND to MATCHES "^(trace|analyzers|export|collector)$")
    set(why "render/ reads only the report JSON")
  elseif(from STREQUAL "export" AND to STREQUAL "analyzers" AND NOT inc IN_LIST ANALYZER_RESULTS)
    set(why "export/ draws what the analyzers computed, it gets results, not the means to compute them")
  elseif(from STREQUAL "export" AND to MATCHES "^(render|gate|collector|cli)$")
    set(why "export/ does not use ${to}/")
  elseif(from STREQUAL "gate" AND to MATCHES "^(trace|analyzers|export|collector)$")
    set(why "gate/ works on report JSON only")
  endif()
  set(${out} "${why}" PARENT_SCOPE)
endfunction()

# Allowlist: "FILE -> INCLUDE" per line; '#' starts a comment.
set(allowed "")
if(EXISTS "${ALLOWLIST}")
  file(STRINGS "${ALLOWLIST}" allow_lines)
  foreach(line IN LISTS allow_lines)
    string(REGEX REPLACE "#.*$" "" line "${line}")
    string(STRIP "${line}" line)
    if(line STREQUAL "")
      continue()
    endif()
    if(NOT line MATCHES "^([^ ]+) *-> *([^ ]+)$")
      message(FATAL_ERROR "check_layering: ${ALLOWLIST}: cannot read the entry '${line}' (expected FILE -> INCLUDE)")
    endif()
    list(APPEND allowed "${CMAKE_MATCH_1} -> ${CMAKE_MATCH_2}")
  endforeach()
endif()

set(problems "")
set(used_allowances "")
set(checked 0)
foreach(folder IN LISTS NO_CXX_FOLDERS)
  file(GLOB_RECURSE cxx RELATIVE "${ROOT}" "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cc" "${ROOT}/${folder}/*.inc")
  foreach(src IN LISTS cxx)
    list(APPEND problems "${src}: ${folder}/ holds scripts that run the built binaries, no C++ (put it in the folder that owns it)")
  endforeach()
endforeach()
foreach(layer IN LISTS LAYERS)
  file(GLOB_RECURSE sources RELATIVE "${ROOT}" "${ROOT}/${layer}/*.h" "${ROOT}/${layer}/*.cc" "${ROOT}/${layer}/*.inc")
  foreach(src IN LISTS sources)
    layer_of("${src}" from)
    if(from IN_LIST NO_JSON_LAYERS)
      file(STRINGS "${ROOT}/${src}" json_includes REGEX "${JSON_INCLUDE_REGEX}")
      if(json_includes)
        list(APPEND problems "${src}: includes nlohmann/json: ${from}/ returns typed results and includes no JSON library")
      endif()
    endif()
    file(STRINGS "${ROOT}/${src}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" inc "${line}")
      math(EXPR checked "${checked} + 1")
      # Our includes are relative to the source root; "../x.h" and bare names are local files.
      if(inc MATCHES "^\\.\\./" OR NOT inc MATCHES "/")
        continue()
      endif()
      layer_of("${inc}" to)
      if(to STREQUAL "")
        continue()
      endif()
      violation("${from}" "${to}" "${inc}" why)
      if(why STREQUAL "")
        continue()
      endif()
      set(entry "${src} -> ${inc}")
      if(entry IN_LIST allowed)
        list(APPEND used_allowances "${entry}")
      else()
        list(APPEND problems "${src}: #include \"${inc}\": ${from} -> ${to} is forbidden (${why})")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(entry IN LISTS allowed)
  if(NOT entry IN_LIST used_allowances)
    list(APPEND problems "${ALLOWLIST}: '${entry}' no longer occurs (or is no longer a violation): remove it from the allowlist")
  endif()
endforeach()

if(problems)
  foreach(p IN LISTS problems)
    message("${p}")
  endforeach()
  list(LENGTH problems n)
  message(FATAL_ERROR "check_layering: ${n} problem(s); see docs/architecture.md")
endif()
list(LENGTH used_allowances n_allowed)
message(STATUS "check_layering: ${checked} includes checked, no forbidden arrow (${n_allowed} allowlisted, to be removed)")
