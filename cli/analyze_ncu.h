// `ampscope analyze` and Nsight Compute CSVs: reading them (`--ncu FILE`, or the inputs
// themselves), and the report of CSVs analysed without a trace.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "cli/report_outputs.h"
#include "trace/formats/ncu/ncu_model.h"

namespace ampscope::cli {

// How `analyze`'s inputs relate to Nsight Compute: all CSVs (analysed alone), none, or a mix
// (an error). A .ncu-rep or a *.csv without ncu's header is an error naming the file.
enum class NcuInputs : uint8_t { kNone, kAll };
StatusOr<NcuInputs> ClassifyNcuInputs(const std::vector<std::string>& inputs);

// Reads and merges the CSVs (`--ncu FILE ...` or the inputs): one line naming the file and the
// byte on error.
StatusOr<std::shared_ptr<const NcuReport>> ReadNcuInputs(const std::vector<std::string>& paths);

// The CSVs alone: analyses, writes the JSON/HTML/Markdown outputs and prints the summary.
// Returns the exit code.
int AnalyzeNcuAloneCommand(std::shared_ptr<const NcuReport> report, const AnalysisOptions& options,
                           const ReportPaths& paths, const SummaryStyle& style);

}  // namespace ampscope::cli
