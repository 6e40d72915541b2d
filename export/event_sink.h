// The one walk over a rank that every exporter is written against (as Kineto's ActivityLogger):
// WalkRank visits the rank's input events table by table and then its analysis results, and calls
// one EventSink method per kernel, memcpy, memset, API call, sync, range, CPU op, other event,
// [memory] instant, counter sample and flow; then per step, idle gap, sync point, finding,
// checklist item and matrix dimension; then per analysis track, span and counter. Each output
// format (Chrome JSON, Perfetto protobuf, SQLite) is a sink and overrides what it writes.
//
// What the walk hands a sink about a kernel (its class, role, precision, Tensor Core use, the op
// that launched it, its step) is what the analysis decided (RankAnalysis::kernels): exporters
// never classify or assign again. Without an analysis of the rank, those facts are absent.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analyzers/results/analysis.h"
#include "export/analysis_tracks.h"
#include "trace/model.h"

namespace ampscope {
namespace trace_export {

// The analysis' facts about one kernel.
struct KernelFacts {
  const KernelClass* cls = nullptr;  // nullptr: the rank was not analysed
  int64_t step = -1;                 // index into RankAnalysis::steps.steps, -1 outside every step
  int64_t cpu_op = -1;               // index into trace.cpu_ops of the launching op, -1 when none
  bool in_window = false;            // starts inside the analysed windows
};

// The facts of kernel `i` of a trace analysed as `rank` (null: none).
KernelFacts FactsOfKernel(const RankAnalysis* rank, size_t i);

class EventSink {
 public:
  virtual ~EventSink() = default;

  // Input events, in table order (each table is sorted by start time).
  virtual void Kernel(size_t /*index*/, const KernelEvent& /*e*/, const KernelFacts& /*facts*/) {}
  virtual void Memcpy(size_t /*index*/, const MemcpyEvent& /*e*/) {}
  virtual void Memset(size_t /*index*/, const MemsetEvent& /*e*/) {}
  virtual void Api(size_t /*index*/, const ApiCall& /*e*/) {}
  virtual void Sync(size_t /*index*/, const SyncEvent& /*e*/) {}
  virtual void Range(size_t /*index*/, const ampscope::Range& /*e*/) {}
  virtual void CpuOp(size_t /*index*/, const ampscope::CpuOp& /*e*/) {}
  virtual void Other(size_t /*index*/, const OtherEvent& /*e*/) {}
  virtual void Memory(size_t /*index*/, const MemoryEvent& /*e*/) {}
  virtual void Counter(size_t /*index*/, const CounterSample& /*e*/) {}
  virtual void Flow(size_t /*index*/, const FlowEvent& /*e*/) {}
  // After the last input event, whether or not the rank was analysed.
  virtual void EndEvents() {}

  // The typed analysis results (only when the rank was analysed).
  virtual void Step(size_t /*index*/, const StepWindow& /*w*/, const StepMetrics* /*metrics*/) {}
  // `causes` is the gap's cause split (main device, host_wait and other gaps), else nullptr.
  virtual void IdleGap(size_t /*index*/, const ampscope::IdleGap& /*g*/, const IdleGapCauses* /*causes*/) {}
  virtual void SyncPoint(size_t /*index*/, const ampscope::SyncPoint& /*p*/) {}
  // `rank_index` is the finding's position in RankAnalysis::findings (ranked by saving).
  virtual void Finding(size_t /*rank_index*/, const ampscope::Finding& /*f*/) {}
  virtual void Checklist(const ChecklistItem& /*item*/) {}
  virtual void Dimension(const DimensionResult& /*d*/) {}

  // The analysis tracks (BuildAnalysisTracks), only for sinks that ask for them.
  virtual bool WantsAnalysisTracks() const { return false; }
  virtual void AnalysisTracksBegin(const AnalysisTracks& /*tracks*/) {}
  virtual void AnalysisTrackBegin(size_t /*track*/, const AnalysisTrack& /*t*/) {}
  virtual void AnalysisSpan(size_t /*track*/, size_t /*index*/, const trace_export::AnalysisSpan& /*s*/) {}
  virtual void AnalysisCounter(size_t /*counter*/, const trace_export::AnalysisCounter& /*c*/) {}
};

// Walks traces[index] and its analysis (`rank`, null when it failed to analyse) into `sink`.
// The analysis tracks, when the sink wants them, are built once and live in `*tracks_out` (so a
// sink may keep pointers into them) or, with tracks_out null, for the walk only.
void WalkRank(const Trace& trace, const RankAnalysis* rank, EventSink& sink, AnalysisTracks* tracks_out = nullptr);

}  // namespace trace_export
}  // namespace ampscope
