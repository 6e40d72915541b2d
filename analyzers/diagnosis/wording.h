// Words that depend on the unit of the analysis. The rules write "per step"; when a trace has
// no steps at all (no ProfilerStep, no step-named range, no recurring iteration ranges), the one
// unit is the analysed window, and "per step" would mean "per trace": the texts say so instead.
#pragma once

#include <string>
#include <string_view>

#include "analyzers/results/analysis.h"

namespace ampscope::diagnosis {

// "3.0 syncs per step" -> "3.0 syncs in the window", "12 MB/step" -> "12 MB in the window",
// "33% of the step" -> "33% of the window", "each step" -> "the window".
std::string WindowWording(std::string_view text);

// Rewrites every finding's title, recommendation and text evidence, and every checklist item's
// evidence and threshold, of a rank without steps.
void SayWindowNotStep(RankAnalysis& ra);

}  // namespace ampscope::diagnosis
