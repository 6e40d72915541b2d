// The annotated Chrome trace (`ampscope analyze --chrome-trace out.json`).
//
// Every GPU and CPU event of the inputs is converted faithfully (Kineto's categories and
// argument names, µs timestamps printed from the int64 ns with 3 fractional digits, flows,
// process and thread names), and a separate "ampscope analysis" process per rank adds:
// a span per step, the GPU idle gaps coloured by HTA category, sync points, findings
// (id, evidence, recommendation in args) and per-step counters.
//
// The building blocks (export/trace_export.h: pid mapping, event descriptions; export/
// analysis_tracks.h) are shared with the Perfetto protobuf writer so both outputs show the same
// thing; both walk a rank through export/event_sink.h.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "analyzers/results/analysis.h"
#include "base/status.h"
#include "export/analysis_tracks.h"
#include "export/trace_export.h"
#include "trace/model.h"

namespace ampscope {

// Writes the annotated trace as Chrome Trace Event JSON ({"traceEvents": [...]}) to `out`,
// streaming (memory does not grow with the output size). Several traces are ranks of one
// job: each rank gets its own block of pids and "rank N ..." process names.
// Fails only when `out` fails.
Status WriteChromeTrace(const std::vector<Trace>& traces, const JobAnalysis& analysis, std::ostream& out);

// Browsers (chrome://tracing, ui.perfetto.dev's JSON importer) fail on JSON over about this size.
inline constexpr uint64_t kChromeJsonBrowserLimitBytes = 512ull << 20;

}  // namespace ampscope
