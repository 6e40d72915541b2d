// The JSON report: schema "ampscope.report/1" (shared/DESIGN.md, docs/report_schema.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "reports/contract/report_schema.h"

namespace ampscope {

// Builds the report of a job from its analysis alone (each rank's InputInfo says what its file
// was): the traces may be gone, or the ranks read back from summaries (reports/summary_json.h).
// threads: how many build the per-rank sections (0: one per core).
// with_ranks false: the report without its "ranks" member, which WriteReportText(report, ranks)
// then writes from the typed ranks as it goes, so that a thousand ranks' sections are never all
// in memory at once. Of the renderers only the HTML report reads "ranks".
nlohmann::json BuildJsonReport(const JobAnalysis& analysis, const AnalysisOptions& options, size_t threads = 0,
                               bool with_ranks = true);

// steps.per_step: one object per analysed step ({number, name, start_us, end_us, duration_us,
// busy_pct, kernel_busy_pct, tensor_core_kernel_pct, kernels, syncs[, slowest_rank]}).
nlohmann::json PerStepJson(const std::vector<StepMetrics>& steps);

// tensor_cores: {kernel_time_pct, active_pct, source, ...} (docs/classifier.md).
nlohmann::json TensorCoresJson(const TensorCoreResult& tc);

// The per-rank part of the report (steps, gpu, tensor_cores, ...), also used for `ranks[]`.
nlohmann::json RankSection(const RankAnalysis& ra);

// The report as `ampscope analyze -o` writes it: report.dump(2) and a newline, byte for byte, with
// the `ranks` entries (most of a many-rank report) serialised on `threads` threads (0: one per
// core).
std::string ReportText(const nlohmann::json& report, size_t threads = 0);
// The same bytes, written to `out` as they are made.
Status WriteReportText(const nlohmann::json& report, std::ostream& out, size_t threads = 0);
// The bytes of ReportText(the full report) for a report built without ranks: each entry is the
// RankSection of `ranks[i]`, made, written and dropped a batch at a time.
Status WriteReportText(const nlohmann::json& report_without_ranks, const std::vector<RankAnalysis>& ranks,
                       std::ostream& out, size_t threads = 0);

// Writes `report` to `path` through base/atomic_write.h (temporary file + rename for a regular
// file, in place for /dev/null or a FIFO): no partial file is left behind on failure.
Status WriteJsonFile(const nlohmann::json& report, const std::string& path, int indent = 2);
// Writes any text the same way.
Status WriteTextFile(const std::string& text, const std::string& path);

}  // namespace ampscope
