#include "cli/analyze_ncu.h"

#include <cstdio>
#include <utility>

#include "analyzers/analyze.h"
#include "analyzers/ncu/ncu_analysis.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "trace/formats/ncu/ncu_reader.h"

namespace ampscope::cli {

StatusOr<NcuInputs> ClassifyNcuInputs(const std::vector<std::string>& inputs) {
  size_t csv = 0;
  std::string first_csv, first_other;
  for (const std::string& path : inputs) {
    const NcuInputKind kind = SniffNcuInput(path);
    if (kind == NcuInputKind::kReport || kind == NcuInputKind::kOtherCsv) return Status::Error(NcuRefusalMessage(path, kind));
    if (kind == NcuInputKind::kCsv) {
      if (csv++ == 0) first_csv = path;
    } else if (first_other.empty()) {
      first_other = path;
    }
  }
  if (csv == 0) return NcuInputs::kNone;
  if (csv == inputs.size()) return NcuInputs::kAll;
  return Status::Error(first_csv + ": an Nsight Compute CSV is not a rank of a job: give it beside the trace with `--ncu " +
                       first_csv + "` (" + first_other + " is a trace)");
}

StatusOr<std::shared_ptr<const NcuReport>> ReadNcuInputs(const std::vector<std::string>& paths) {
  std::vector<NcuReport> parts;
  for (const std::string& path : paths) {
    const NcuInputKind kind = SniffNcuInput(path);
    if (kind == NcuInputKind::kReport) return Status::Error(NcuRefusalMessage(path, kind));
    StatusOr<NcuReport> read = ReadNcuCsv(path);
    if (!read.ok()) return read.status();
    parts.push_back(std::move(read).value());
  }
  return std::make_shared<const NcuReport>(MergeNcuReports(std::move(parts)));
}

int AnalyzeNcuAloneCommand(std::shared_ptr<const NcuReport> report, const AnalysisOptions& options,
                           const ReportPaths& paths, const SummaryStyle& style) {
  std::vector<RankAnalysis> ranks;
  ranks.push_back(AnalyzeNcuAlone(std::move(report), options));
  JobAnalysis job = BuildJob(std::move(ranks));
  const nlohmann::json json = BuildJsonReport(job, options, 0, ReportNeedsRanks(paths, !style.quiet));
  std::vector<OutputSpec> outputs = ReportOutputs(json, job, paths);
  if (Status written = WriteOutputs(outputs); !written.ok()) return UsageError("analyze", written.message());
  PrintTerminalSummary(json, style);
  return FinishStdout("analyze", 0);
}

}  // namespace ampscope::cli
