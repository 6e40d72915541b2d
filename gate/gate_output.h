// Renderings of a GateResult: terminal table, Markdown (GitHub job summary), JUnit XML, GitHub
// Actions workflow-command annotations, and JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gate/gate.h"
#include "render/terminal.h"

namespace ampscope::gate {

// Aligned table (metric, baseline, current, change, threshold, verdict), a summary line and a note
// per non-passing check, fitted to `width` columns (render/text_table.h: text columns wrap; too
// narrow for a table, each check is printed as a block).
std::string FormatGateTable(const GateResult& result, size_t width = render::kDefaultWidth);

// A Markdown section for $GITHUB_STEP_SUMMARY: headline, the same table, notes.
std::string FormatGateMarkdown(const GateResult& result);

// JUnit XML: <testsuites><testsuite name="ampscope.gate" tests failures errors skipped> with one
// <testcase classname="ampscope.gate" name="<check name>"> per check; <failure> for fail,
// <skipped> for skipped; warnings carry a <properties><property name="verdict" value="warn"/>
// and a <system-out> line. The tests/failures/skipped counts equal the children.
std::string FormatGateJUnit(const GateResult& result);

// "::error title=ampscope gate::<name>: <message>" per failed check and "::warning ..." per
// warning (GitHub Actions workflow commands; data escaped as GitHub requires). Empty if none.
std::string FormatGithubAnnotations(const GateResult& result);

// The verdicts as JSON ({"schema": "ampscope.gate/1", "verdict", "exit_code", "checks": [...]}).
nlohmann::json GateResultToJson(const GateResult& result);

// XML 1.0 text/attribute escaping; drops characters XML 1.0 cannot carry (C0 controls except
// tab, LF, CR). Exposed for tests.
std::string XmlEscape(const std::string& text);

}  // namespace ampscope::gate
