// The analysis of a PyTorch memory snapshot (trace/formats/memory_snapshot/): segsum's totals,
// the allocator's settings, the timeline of device_traces (peak, sites at the peak, autocast's
// cast copies, OOMs, segment churn per step), and the findings they support.
#pragma once

#include <memory>

#include "analyzers/results/analysis.h"
#include "analyzers/results/memory_snapshot_result.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"

namespace ampscope {

// Thresholds of the snapshot's findings (docs/findings.md). [heur]: our choice, tested both sides.
namespace snapshot_rules {
// memory_fragmentation: free external bytes stranded in segments that still hold live blocks
// (they can neither be released nor serve a request larger than their gaps), as a share of
// reserved. Wholly free segments are the cache, not fragmentation.
inline constexpr double kFragmentationPct = 30.0;                 // [heur] as the trace rule's share
inline constexpr uint64_t kFragmentationMinBytes = 256ull << 20;  // [heur] and at least 256 MiB
// peak_from_one_site: one Python line holds this share of the bytes live at the peak.
inline constexpr double kOneSitePct = 50.0;                       // [heur]
inline constexpr uint64_t kOneSiteMinBytes = 64ull << 20;         // [heur] and at least 64 MiB
// autocast_cast_memory: cast copies live at the peak, as a share of the peak.
inline constexpr double kCastMemoryPct = 5.0;                     // [heur]
}  // namespace snapshot_rules

// Reads nothing: a pure function of the snapshot. With `keep_rows` the result holds the snapshot
// itself (for exporters of its blocks and events) and each stack's site and cast flag.
MemorySnapshotResult AnalyzeMemorySnapshot(const MemorySnapshot& snapshot);
MemorySnapshotResult AnalyzeMemorySnapshot(std::shared_ptr<const MemorySnapshot> snapshot, bool keep_rows);

// Attaches the result to a rank: ra.memory_snapshot, the snapshot's findings (no time saving:
// what they save is memory), and the checklist's memory_fragmentation item, which then says
// "measured (allocator snapshot)". A rank read from a snapshot alone (format memory_snapshot)
// says why its timeline-based verdicts are unknown instead of "no GPU activity recorded".
// The snapshot's diagnostics are merged into ra.input.diagnostics (messages prefixed with the
// snapshot's path when the rank's input is a trace beside it): call it once per rank.
void ApplyMemorySnapshot(std::shared_ptr<const MemorySnapshotResult> result, RankAnalysis& ra);

// The site of a stack: its innermost Python frame once PyTorch's memory viz filter has dropped
// the allocator's, the interpreter's and the dispatcher's frames (torch/cuda/_memory_viz.py
// _frame_filter). nullopt: no Python frame.
struct FrameSite {
  uint32_t frame = 0;  // index into MemorySnapshot::frames
};
std::optional<FrameSite> SiteOfStack(const MemorySnapshot& s, const std::vector<uint32_t>& stack);
// _frame_filter(name, filename): false for the frames the memory viz leaves out.
bool KeepFrame(std::string_view name, std::string_view filename);

}  // namespace ampscope
