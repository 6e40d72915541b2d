// Collectives: each rank's NCCL calls (typed CollectiveCall, with the time before each one) and
// the cross-rank view of a job: every collective matched across ranks, its arrival skew,
// transfer time and bus bandwidth, per-rank step/compute/communication balance, and the
// `straggler` finding (docs/findings.md).
//
// Matching: by process group and sequence number when every call of the group carries one,
// else by ordinal: the k-th call of the same process group (or, without process groups, of the
// k-th NCCL stream in first-use order) on each rank.
// Clocks: arrival skew needs one clock. Ranks on one host share it; ranks on different hosts
// are not comparable (the traces carry no cross-host calibration) and get no skew and no
// straggler. When no rank records its host, the clocks are taken to agree only if the matched
// collectives end together (median end spread within kClockAgreementNs): a collective ends on
// every rank at about the same moment, so ends that agree mean the clocks do.
#pragma once

#include <optional>
#include <vector>

#include "analyzers/results/analysis.h"

namespace ampscope {

class RankContext;  // analyzers/context/context.h

inline constexpr TimeNs kClockAgreementNs = 50'000;  // [heur] median end spread for "one clock"

// Fills ra.collectives and ra.comm from the rank's context (AnalyzeRank calls it after the core
// analyzers: it reads ra.steps and ra.gpu).
void ExtractCollectives(const RankContext& context, RankAnalysis& ra);

// The cross-rank view of the ranks' collectives (any number of ranks; the straggler needs two).
CrossRankResult AnalyzeCollectives(const std::vector<const RankAnalysis*>& ranks);

// The `straggler` finding of a cross-rank result, or nothing (no straggler, or its saving is
// below diagnosis::kMinSavingPct).
std::optional<Finding> StragglerFinding(const CrossRankResult& result);

// Adds the straggler finding (if any) to the job summary: into `findings` (kept ranked) and the
// task_parallelism dimension's finding list.
void AddStragglerFinding(const CrossRankResult& result, RankAnalysis& job);

}  // namespace ampscope
