# Tests check_layering.cmake itself on small trees made here: a clean tree passes, and each
# kind of forbidden include, an allowlisted one and a stale allowlist entry behave as they must.
#
#   cmake -DWORK=<scratch dir> -P check_layering_test.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT DEFINED WORK)
  message(FATAL_ERROR "check_layering_test: pass -DWORK=<scratch dir>")
endif()
set(checker "${CMAKE_CURRENT_LIST_DIR}/check_layering.cmake")
set(failures 0)

# Writes a tree: pairs of "path" "content" in ARGN.
function(make_tree dir)
  file(REMOVE_RECURSE "${dir}")
  set(args ${ARGN})
  list(LENGTH args n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET args ${i} path)
    list(GET args ${j} content)
    file(WRITE "${dir}/${path}" "${content}\n")
  endforeach()
endfunction()

# Runs the checker on `dir` with `allowlist` and checks its verdict and that its output
# contains `expect` (empty: anything).
function(expect_check name dir allowlist want_ok expect)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${dir} -DALLOWLIST=${allowlist} -P "${checker}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(text "${out}${err}")
  set(ok FALSE)
  if(rc EQUAL 0)
    set(ok TRUE)
  endif()
  set(bad FALSE)
  if(NOT ok STREQUAL want_ok)
    set(bad TRUE)
  endif()
  if(NOT expect STREQUAL "")
    string(FIND "${text}" "${expect}" at)
    if(at EQUAL -1)
      set(bad TRUE)
    endif()
  endif()
  if(bad)
    message("FAIL ${name}: expected ok=${want_ok} and output containing '${expect}', got rc=${rc}:\n${text}")
    math(EXPR f "${failures} + 1")
    set(failures ${f} PARENT_SCOPE)
  else()
    message(STATUS "ok   ${name}")
  endif()
endfunction()

set(tree "${WORK}/tree")
set(none "${WORK}/empty_allowlist.txt")
file(WRITE "${none}" "# nothing\n")
set(clean
  base/status.h "#pragma once"
  trace/model.h "#include \"base/status.h\"\n#include <vector>"
  trace/formats/amptrace/amptrace_writer.h "#include \"base/status.h\""
  analyzers/results/analysis.h "#include \"trace/model.h\""
  analyzers/analyze.h "#include \"analyzers/results/analysis.h\""
  reports/json_report.cc "#include \"analyzers/results/analysis.h\""
  export/chrome_trace.cc "#include \"analyzers/results/analysis.h\"\n#include \"trace/model.h\""
  render/html_report.cc "#include \"render/format.h\"\n#include \"base/strings.h\""
  reports/progress.cc "#include \"render/format.h\""
  collector/session.h "#include \"trace/formats/amptrace/amptrace_writer.h\"\n#include <cupti.h>"
  gate/gate.cc "#include \"base/status.h\""
  cli/main.cc "#include \"analyzers/analyze.h\"\n#include \"gate/gate.h\"\n#include \"pipeline/job.h\"\n#include \"doctor/doctor.h\""
  pipeline/job.h "#include \"analyzers/results/analysis.h\"\n#include \"trace/model.h\""
  doctor/doctor.h "#include \"base/status.h\""
  fuzz/pipeline.cc "#include \"pipeline/job.h\"\n#include \"reports/json_report.h\"\n#include \"tools/scenario/scenario.h\""
  scripts/test.sh "#!/bin/sh"
  tests/x_test.cc "#include \"cli/main.cc\"")

make_tree("${tree}" ${clean})
expect_check(clean_tree_passes "${tree}" "${none}" TRUE "no forbidden arrow")

make_tree("${tree}" ${clean} trace/bad.cc "#include \"analyzers/analyze.h\"")
expect_check(trace_must_not_include_analyzers "${tree}" "${none}" FALSE
             "trace/bad.cc: #include \"analyzers/analyze.h\": trace -> analyzers is forbidden")

make_tree("${tree}" ${clean} collector/bad.cc "#include \"trace/model.h\"")
expect_check(collector_only_amptrace_and_base "${tree}" "${none}" FALSE "collector/ may use only")

make_tree("${tree}" ${clean} export/chrome_trace.h "#include \"analyzers/analyze.h\"")
expect_check(export_gets_results_not_internals "${tree}" "${none}" FALSE
             "export/chrome_trace.h: #include \"analyzers/analyze.h\": export -> analyzers is forbidden")

make_tree("${tree}" ${clean} export/sqlite/bad.cc "#include \"render/format.h\"")
expect_check(export_never_uses_render "${tree}" "${none}" FALSE "export -> render is forbidden")

make_tree("${tree}" ${clean} render/html_report.h "#include \"trace/model.h\"")
expect_check(render_reads_only_report_json "${tree}" "${none}" FALSE "render -> trace is forbidden")

make_tree("${tree}" ${clean} render/format.cc "#include \"analyzers/results/analysis.h\"")
expect_check(render_never_sees_analyzer_results "${tree}" "${none}" FALSE "render -> analyzers is forbidden")

make_tree("${tree}" ${clean} reports/progress.h "#include \"trace/model.h\"")
expect_check(pending_render_is_checked_as_render "${tree}" "${none}" FALSE "render -> trace is forbidden")

make_tree("${tree}" ${clean} render/view.cc "#include \"reports/json_report.h\"")
expect_check(render_reads_through_the_contract "${tree}" "${none}" FALSE "render/ reads the report through reports/contract/")

make_tree("${tree}" ${clean} gate/view.cc "#include \"reports/contract/report_reader.h\"" render/view.cc "#include \"reports/contract/report_reader.h\"")
expect_check(gate_and_render_may_use_the_contract "${tree}" "${none}" TRUE "no forbidden arrow")

make_tree("${tree}" ${clean} reports/contract/report_reader.h "#include \"analyzers/results/analysis.h\"")
expect_check(the_contract_never_sees_the_analyzers "${tree}" "${none}" FALSE "reports/contract/ (the reading side")

make_tree("${tree}" ${clean} gate/bad.cc "#include \"analyzers/results/analysis.h\"")
expect_check(gate_works_on_report_json "${tree}" "${none}" FALSE "gate -> analyzers is forbidden")

make_tree("${tree}" ${clean} base/bad.h "#include \"trace/model.h\"")
expect_check(base_uses_nothing_of_ours "${tree}" "${none}" FALSE "base -> trace is forbidden")

make_tree("${tree}" ${clean} analyzers/bad.cc "#include \"tools/scenario/scenario.h\"")
expect_check(product_never_includes_tools "${tree}" "${none}" FALSE "analyzers -> tools is forbidden")

make_tree("${tree}" ${clean} analyzers/bad.cc "#include <nlohmann/json.hpp>")
expect_check(analyzers_include_no_json_library "${tree}" "${none}" FALSE
             "analyzers/bad.cc: includes nlohmann/json")
make_tree("${tree}" ${clean} analyzers/roofline/bad.h "#  include \"nlohmann/json.hpp\"")
expect_check(analyzers_include_no_json_library_in_subfolders "${tree}" "${none}" FALSE
             "analyzers/roofline/bad.h: includes nlohmann/json")
make_tree("${tree}" ${clean} reports/json_report.cc "#include <nlohmann/json.hpp>\n#include \"analyzers/results/analysis.h\"")
expect_check(reports_may_use_json "${tree}" "${none}" TRUE "no forbidden arrow")

make_tree("${tree}" ${clean} pipeline/bad.cc "#include \"reports/json_report.h\"")
expect_check(pipeline_comes_before_reports "${tree}" "${none}" FALSE "pipeline -> reports is forbidden")
make_tree("${tree}" ${clean} analyzers/bad.cc "#include \"pipeline/job.h\"")
expect_check(analyzers_never_drive_the_pipeline "${tree}" "${none}" FALSE "analyzers -> pipeline is forbidden")
make_tree("${tree}" ${clean} reports/bad.cc "#include \"pipeline/job.h\"")
expect_check(reports_never_drive_the_pipeline "${tree}" "${none}" FALSE "reports -> pipeline is forbidden")
make_tree("${tree}" ${clean} doctor/bad.cc "#include \"trace/model.h\"")
expect_check(doctor_uses_base_only "${tree}" "${none}" FALSE "doctor -> trace is forbidden")
make_tree("${tree}" ${clean} export/bad.cc "#include \"doctor/doctor.h\"")
expect_check(only_cli_runs_doctor "${tree}" "${none}" FALSE "export -> doctor is forbidden")
make_tree("${tree}" ${clean} cli/bad.cc "#include \"fuzz/pipeline.h\"")
expect_check(product_never_includes_fuzz "${tree}" "${none}" FALSE "cli -> fuzz is forbidden")
make_tree("${tree}" ${clean} scripts/helper.cc "int main() {}")
expect_check(scripts_hold_no_cxx "${tree}" "${none}" FALSE "scripts/helper.cc: scripts/ holds scripts")

# An allowlisted violation passes; the same list on a tree without it is stale and fails.
set(allow "${WORK}/allowlist.txt")
file(WRITE "${allow}" "# known\ntrace/bad.cc -> analyzers/analyze.h   # to be removed\n")
make_tree("${tree}" ${clean} trace/bad.cc "#include \"analyzers/analyze.h\"")
expect_check(allowlisted_violation_passes "${tree}" "${allow}" TRUE "1 allowlisted")
make_tree("${tree}" ${clean})
expect_check(stale_allowlist_entry_fails "${tree}" "${allow}" FALSE "no longer occurs")

if(failures GREATER 0)
  message(FATAL_ERROR "check_layering_test: ${failures} case(s) failed")
endif()
message(STATUS "check_layering_test: all cases passed")
