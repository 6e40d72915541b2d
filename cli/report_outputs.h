// What `analyze` and `merge` both do with a finished report: the JSON/HTML/Markdown outputs
// and the terminal summary.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "base/atomic_write.h"

namespace ampscope::cli {

struct ReportPaths {
  std::string json, html, markdown;  // empty: not written
};

// Whether the report must hold its "ranks" member (BuildJsonReport's with_ranks): the terminal
// summary, Markdown and HTML read the per-rank views from it, so it is there whenever one of them
// is shown; the JSON alone writes the ranks' sections from the job itself.
bool ReportNeedsRanks(const ReportPaths& paths, bool terminal_summary);
// The outputs of `paths`, rendered from `report` and `job` (to be written with the rest of the
// set; the JSON is written as the set is written, so both must outlive that).
std::vector<OutputSpec> ReportOutputs(const nlohmann::json& report, const JobAnalysis& job, const ReportPaths& paths);

// `-o -`: the JSON report written to stdout (after every file output was written), flushed, with
// a write error (a closed pipe, a full disk) returned.
Status WriteReportStdout(const nlohmann::json& report, const JobAnalysis& job);

struct SummaryStyle {
  bool quiet = false, no_color = false, verbose = false;
};
void PrintTerminalSummary(const nlohmann::json& report, const SummaryStyle& style);

}  // namespace ampscope::cli
