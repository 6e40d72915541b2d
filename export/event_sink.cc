#include "export/event_sink.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ampscope {
namespace trace_export {

KernelFacts FactsOfKernel(const RankAnalysis* rank, size_t i) {
  KernelFacts f;
  if (rank == nullptr || rank->kernels == nullptr || i >= rank->kernels->class_of.size()) return f;
  const KernelAnnotations& k = *rank->kernels;
  f.cls = &k.class_of_kernel(i);
  f.step = k.step[i];
  f.cpu_op = k.cpu_op[i];
  f.in_window = k.in_window[i] != 0;
  return f;
}

void WalkRank(const Trace& trace, const RankAnalysis* rank, EventSink& sink, AnalysisTracks* tracks_out) {
  for (size_t i = 0; i < trace.kernels.size(); ++i) sink.Kernel(i, trace.kernels[i], FactsOfKernel(rank, i));
  for (size_t i = 0; i < trace.memcpys.size(); ++i) sink.Memcpy(i, trace.memcpys[i]);
  for (size_t i = 0; i < trace.memsets.size(); ++i) sink.Memset(i, trace.memsets[i]);
  for (size_t i = 0; i < trace.api_calls.size(); ++i) sink.Api(i, trace.api_calls[i]);
  for (size_t i = 0; i < trace.syncs.size(); ++i) sink.Sync(i, trace.syncs[i]);
  for (size_t i = 0; i < trace.ranges.size(); ++i) sink.Range(i, trace.ranges[i]);
  for (size_t i = 0; i < trace.cpu_ops.size(); ++i) sink.CpuOp(i, trace.cpu_ops[i]);
  for (size_t i = 0; i < trace.other_events.size(); ++i) sink.Other(i, trace.other_events[i]);
  for (size_t i = 0; i < trace.memory_events.size(); ++i) sink.Memory(i, trace.memory_events[i]);
  for (size_t i = 0; i < trace.counters.size(); ++i) sink.Counter(i, trace.counters[i]);
  for (size_t i = 0; i < trace.flows.size(); ++i) sink.Flow(i, trace.flows[i]);
  sink.EndEvents();
  if (rank == nullptr) return;

  const std::vector<StepWindow>& steps = rank->steps.steps;
  for (size_t i = 0; i < steps.size(); ++i)
    sink.Step(i, steps[i], i < rank->per_step.size() ? &rank->per_step[i] : nullptr);
  const std::vector<ampscope::IdleGap>& gaps = rank->gpu.idle_gaps;
  // The split of each gap (kept sparse: read whole, by value), or none.
  const IdleGapCauseTable& splits = rank->gpu.idle_gap_causes;
  constexpr uint32_t kNoSplit = UINT32_MAX;
  std::vector<uint32_t> split_of(gaps.size(), kNoSplit);
  for (size_t c = 0; c < splits.size(); ++c)
    if (splits.gap(c) < split_of.size()) split_of[splits.gap(c)] = static_cast<uint32_t>(c);
  for (size_t i = 0; i < gaps.size(); ++i) {
    if (split_of[i] == kNoSplit) {
      sink.IdleGap(i, gaps[i], nullptr);
      continue;
    }
    const IdleGapCauses split = splits[split_of[i]];
    sink.IdleGap(i, gaps[i], &split);
  }
  for (size_t i = 0; i < rank->syncs.points.size(); ++i) sink.SyncPoint(i, rank->syncs.points[i]);
  for (size_t i = 0; i < rank->findings.size(); ++i) sink.Finding(i, rank->findings[i]);
  for (const ChecklistItem& c : rank->checklist) sink.Checklist(c);
  for (const DimensionResult& d : rank->matrix) sink.Dimension(d);

  if (!sink.WantsAnalysisTracks()) return;
  AnalysisTracks local;
  AnalysisTracks& tracks = tracks_out != nullptr ? *tracks_out : local;
  tracks = BuildAnalysisTracks(*rank);
  sink.AnalysisTracksBegin(tracks);
  for (size_t t = 0; t < tracks.tracks.size(); ++t) {
    sink.AnalysisTrackBegin(t, tracks.tracks[t]);
    for (size_t s = 0; s < tracks.tracks[t].spans.size(); ++s) sink.AnalysisSpan(t, s, tracks.tracks[t].spans[s]);
  }
  for (size_t c = 0; c < tracks.counters.size(); ++c) sink.AnalysisCounter(c, tracks.counters[c]);
}

}  // namespace trace_export
}  // namespace ampscope
