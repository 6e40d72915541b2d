// What `analyze` and `merge` both do with a finished report: the JSON/HTML/Markdown outputs
// and the terminal summary.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/atomic_write.h"

namespace ampscope::cli {

struct ReportPaths {
  std::string json, html, markdown;  // empty: not written
};

// The outputs of `paths`, rendered from `report` (to be written with the rest of the set; the
// JSON is written from `report` as the set is written, so `report` must outlive that).
std::vector<OutputSpec> ReportOutputs(const nlohmann::json& report, const ReportPaths& paths);

struct SummaryStyle {
  bool quiet = false, no_color = false, verbose = false;
};
void PrintTerminalSummary(const nlohmann::json& report, const SummaryStyle& style);

}  // namespace ampscope::cli
