// The pieces of analyzers/ncu/ shared by its files (not for use outside the folder).
#pragma once

#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "analyzers/ncu/ncu_result.h"

namespace ampscope::diagnosis {
class FindingSink;  // analyzers/diagnosis/facts.h
}

namespace ampscope::ncu {

// [heur] L2 thrash (ncu_rules.cc) warns from this share of kernel time (a risk: no time estimate).
inline constexpr double kL2WarnSharePct = 5.0;

// ncu_measure.cc: the launch's place against the roofs (kRoofPct), from its SM and memory
// throughput (DRAM throughput when the file has no memory throughput).
Bound BoundOf(const NcuLaunch& l);
// The busier of SM and memory throughput (nullopt when neither is known).
std::optional<double> BusiestPct(const NcuLaunch& l);
// One row per launch, weighted by its duration (or 1 per launch when the file has none).
void RowsAlone(NcuResult& r);
// Weighted means of the rows' metrics over `total_weight_ns` (the kernel time they stand for).
void Measure(NcuResult& r, double total_weight_ns);

// ncu_join.cc: joins the launches to the trace's kernels in the analysed windows (name + launch
// shape, then launch order) and weights each row by the trace time of its kernels.
void JoinToTrace(const RankContext& ctx, NcuResult& r);

// counter_tracks.cc: the trace's counter tracks that fill measured fields (PM sampling).
// Returns false when the trace has none.
bool MeasureCounterTracks(const RankContext& ctx, NcuResult& r);

// ncu_rules.cc: the ncu_* findings. Savings are shares of `denominator_ns` (the profiled kernel
// time alone, the analysed window beside a trace). Alone: their upper bounds.
void AddNcuFindings(const NcuResult& r, double denominator_ns, std::vector<Finding>& findings);
// Beside a trace: each timed finding carries its fix (the replay gives its saving).
void AddNcuFindings(const NcuResult& r, double denominator_ns, const Trace* trace, diagnosis::FindingSink& out);

// ncu_matrix.cc: the matrix's measured headlines and metrics. `ncu` and `counters` may be null.
// Alone: the matrix is built from them; beside a trace: its headlines are replaced where measured
// and the others say they stay estimated.
void FillMatrixMeasured(const NcuResult* ncu, const NcuResult* counters, bool alone, RankAnalysis& ra);

}  // namespace ampscope::ncu
