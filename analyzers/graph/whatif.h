// The what-if driver: builds each step's dependency graph once, replays it unchanged (the
// critical path, the replay error) and once per transform, carrying each replay's state from
// step to step, and drops the step's graph before the next. One pass over the steps, so time
// and memory grow with one step, not with the trace.
//
// A finding's saving: (replayed window - replayed window with its transform) / measured window.
#pragma once

#include <memory>
#include <vector>

#include "analyzers/context/context.h"
#include "analyzers/graph/critical_path_result.h"
#include "analyzers/graph/transforms.h"

namespace ampscope::graph {

struct WhatIfOutcome {
  TimeNs replayed_window_ns = 0;  // with the transform
  TimeNs changed_ns = 0;          // measured time of the nodes and delays it changed
  // Per analysed step, what the transform saves on it (ns); filled when RunWhatIf is asked to.
  std::vector<TimeNs> step_saved_ns;
};

struct WhatIfResult {
  std::shared_ptr<CriticalPathResult> path;  // the unchanged replay and its critical path
  std::vector<WhatIfOutcome> outcomes;       // one per transform, in order
  // Time on the critical path per communication kernel (trace index, ns), for the straggler.
  std::vector<std::pair<uint32_t, TimeNs>> comm_on_path;
  // (replayed window - with transform i) / measured window x 100, >= 0.
  double SavingPct(size_t i) const;
};

// A window whose first step began after its CPU start (the GPU still ran work queued before the
// window: --steps, or a warm-up step left out) is not measured from that start in the fixed
// replays: the steps before it are not replayed, so the host work its first step did under that
// queued work would be free with any fix. Its fixes are replayed from a drained start instead
// (that work ends by the first step's CPU start, where the step starts), and so is a reference
// replay without a fix; a saving compares their steady-state measures: the longer of the host's
// span (the first step's CPU start to the last step's CPU end) and the GPU's chain (per step, its
// longest run of GPU work along stream and event edges at the activities' own durations plus
// the slack the replay keeps before each).
// docs/whatif.md, "Windows that start mid-trace". `per_step`: fill each outcome's step_saved_ns.
WhatIfResult RunWhatIf(const RankContext& ctx, const std::vector<const Transform*>& transforms, bool per_step = false);

}  // namespace ampscope::graph
