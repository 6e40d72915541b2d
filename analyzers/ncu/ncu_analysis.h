// Measured kernel metrics in the analysis (issue 34): an Nsight Compute CSV analysed alone, the
// same CSV joined to a trace of the run (`analyze TRACE --ncu FILE`), and the trace's own
// hardware-counter tracks (Kineto PM sampling, nsys GPU_METRICS). Each fills the matrix's
// measured values, with the share of kernel time they cover, and the ncu_* findings
// (docs/ncu.md, docs/findings.md). Results in analyzers/ncu/ncu_result.h.
#pragma once

#include <memory>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "analyzers/ncu/ncu_result.h"

namespace ampscope {

// The CSV on its own: a rank whose kernels are the profiled launches (timed by ncu's own
// durations, one after another: there is no timeline), classified as a trace's kernels are, with
// the matrix measured from them weighted by duration, the ncu_* findings, and the checklist
// unknown (it needs a trace). `format` is SourceFormat::kNcu.
RankAnalysis AnalyzeNcuAlone(std::shared_ptr<const NcuReport> report, const AnalysisOptions& options);

// Beside a trace: joins options.ncu (when set) to the trace's kernels, reads the trace's counter
// tracks, and fills ra.ncu, the matrix's measured headlines and the ncu_* findings. Runs after
// the diagnosis; a no-op for a trace without either.
void ApplyMeasuredMetrics(const RankContext& ctx, RankAnalysis& ra);

}  // namespace ampscope
