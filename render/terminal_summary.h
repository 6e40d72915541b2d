// The terminal summary printed by `ampscope analyze`, rendered from the JSON report (schema
// ampscope.report/1). It fits the width it is given: tables shrink their text columns and wrap
// them, paragraphs wrap with a hanging indent, so no line is wider than `width`.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "render/terminal.h"

namespace ampscope::render {

struct TerminalOptions {
  size_t width = kDefaultWidth;  // columns; the CLI passes TerminalWidth(STDOUT_FILENO)
  bool color = false;            // ANSI colours; the CLI passes TerminalWantsColor(stdout)
  // Also the checklist thresholds and sources, how each finding's saving is estimated, more
  // time ranges and full kernel names (the CLI's --verbose). The JSON report has all of them.
  bool verbose = false;
};

std::string RenderTerminalSummary(const nlohmann::json& report, const TerminalOptions& options);

}  // namespace ampscope::render
