// The terminal summary printed by `ampscope analyze`: aligned tables rendered from the JSON
// report (schema ampscope.report/1).
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace ampscope::render {

// Renders the summary. `color` adds ANSI colours (statuses, severities, headings); the
// caller decides, normally with TerminalWantsColor(stdout).
std::string RenderTerminalSummary(const nlohmann::json& report, bool color);

// True when `stream` is a terminal and colour is not turned off: NO_COLOR (no-color.org,
// any non-empty value) and TERM=dumb turn it off.
bool TerminalWantsColor(std::FILE* stream);

}  // namespace ampscope::render
