// The analysis tracks of one rank (steps, idle gaps, sync points, findings, per-step counters):
// what the timeline exporters draw in the "ampscope analysis" process, built from the rank's
// typed results alone.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/results/analysis.h"
#include "trace/model.h"

namespace ampscope {
namespace trace_export {

// ---- analysis tracks -----------------------------------------------------------------------

enum class SpanColor : uint8_t { kNone, kStep, kHostWait, kKernelWait, kOtherIdle, kSync, kInfo, kWarning, kCritical };
// Chrome's reserved colour names (catapult ColorScheme), "" for kNone.
const char* ChromeColorName(SpanColor c);

struct AnalysisSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;     // == start_ns for an instant
  uint32_t name = 0;     // index into AnalysisTracks::names
  int32_t args = -1;     // index into AnalysisTracks::args, -1 for none
  SpanColor color = SpanColor::kNone;
  bool instant = false;
};

// One track (a tid of the analysis process). Spans are sorted by start and properly nested
// (no partial overlap): overlapping spans go to "<name> (overlap N)" lanes.
struct AnalysisTrack {
  std::string name;
  std::string category;  // Chrome "cat"
  std::vector<AnalysisSpan> spans;
};

struct AnalysisCounter {
  std::string name;       // counter (track) name
  std::string series;     // the args key (Chrome shows it as the series)
  std::vector<std::pair<TimeNs, double>> samples;
};

struct AnalysisTracks {
  std::vector<AnalysisTrack> tracks;
  std::vector<AnalysisCounter> counters;
  std::vector<std::string> names;
  std::vector<nlohmann::json> args;
  // The args of spans there is one of per step or per sync point are made when a writer asks
  // (Args), from the rank the tracks were built from, which must outlive them: held as json
  // objects (~1.2 KB for a step's dozen keys) they were the exporters' peak on traces of many
  // steps (issue 38). Their indices start at kLazyArgsBase, one block per kind of span.
  struct LazyArgs {
    int32_t first = 0;  // the block's first index (>= kLazyArgsBase)
    size_t count = 0;
    std::function<nlohmann::json(size_t)> make;  // the i-th span's args
  };
  static constexpr int32_t kLazyArgsBase = int32_t{1} << 30;
  std::vector<LazyArgs> lazy_args;
  // The args of span index `index` (>= 0): stored, or made now.
  nlohmann::json Args(int32_t index) const;
  uint64_t dropped_finding_ranges = 0;  // over kMaxRangesPerFinding
};

// Time ranges drawn per finding (a finding with more, e.g. one per small kernel, is capped).
inline constexpr size_t kMaxRangesPerFinding = 2000;

// Builds the analysis tracks of one rank from its analysis alone: the exporter draws what the
// analyzers computed (steps, idle gaps, sync points, findings, per-step counters).
AnalysisTracks BuildAnalysisTracks(const RankAnalysis& rank);

// The analysis of traces[index] inside `job` (matched by input path, else by position), or
// nullptr when that trace failed to analyse.
const RankAnalysis* FindRankAnalysis(const std::vector<Trace>& traces, size_t index, const JobAnalysis& job);
const RankAnalysis* FindRankAnalysis(const std::vector<const Trace*>& traces, size_t index, const JobAnalysis& job);

}  // namespace trace_export
}  // namespace ampscope
