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
};

struct WhatIfResult {
  std::shared_ptr<CriticalPathResult> path;  // the unchanged replay and its critical path
  std::vector<WhatIfOutcome> outcomes;       // one per transform, in order
  // Time on the critical path per communication kernel (trace index, ns), for the straggler.
  std::vector<std::pair<uint32_t, TimeNs>> comm_on_path;
  // (replayed window - with transform i) / measured window x 100, >= 0.
  double SavingPct(size_t i) const;
};

WhatIfResult RunWhatIf(const RankContext& ctx, const std::vector<const Transform*>& transforms);

}  // namespace ampscope::graph
