// Precision mix, Tensor Core use, casts and op-level precision, from the kernel classifier
// (trace/classify/kernel_classifier.h) and, when the trace has them, the cpu_op events.
//
// Only kernels whose start lies in the analysed step windows count (the union of
// ra.steps.steps; the whole trace when there are no steps). See docs/classifier.md.
#pragma once

#include <string_view>
#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

// Fills ra.tensor_cores and ra.precision (typed: analyzers/results/results.h, precision_result.h; the
// report fields are in docs/classifier.md) and
// ra.top_kernels, and ra.gpu.kernel_time_by_category_ns / kernel_time_by_precision_ns if they
// are still all zero.
// `classes` and `tree` are the rank context's (analyzers/context/context.h): op nesting and kernel ->
// op come from the op tree; the overload without them classifies the trace's kernels and builds
// the tree itself (tests, tools).
void AnalyzePrecision(const Trace& trace, const KernelClassTable& classes, const OpTree& tree, RankAnalysis& ra);
void AnalyzePrecision(const Trace& trace, RankAnalysis& ra);

// Per-distinct-kernel aggregation over the window, sorted by total time (descending, then name).
// Used by `ampscope kernels` and the reports.
std::vector<KernelSummary> SummarizeKernels(const Trace& trace, const StepAnalysis& steps);

// The op-name predicates this analyzer uses (IsTensorCoreEligibleOp, IsExcludedFromOpKernelTime)
// are in trace/classify/host_roles.h, included above.

}  // namespace ampscope
