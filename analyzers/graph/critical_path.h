// The critical path of a step: from the node that ends the step, back along the dependency that
// decided each node's start (or its end, for a host wait), to the step's start. Every moment of
// the step lies on the path once, so the path's length is the step's length; each moment is put
// in one category (dep_graph.h's PathCategory):
//   - a node's own time: its category (a host gap splits into recorded and unrecorded time);
//   - the delay of the deciding edge: a launch edge is kernel-launch delay; a stream or event
//     edge is idle GPU time before the activity, counted in the activity's category and in
//     `gpu_gap_ns` (HTA's gpu_kernel_kernel_overhead); a wait edge is sync wait.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analyzers/graph/dep_graph.h"
#include "analyzers/graph/replay.h"

namespace ampscope::graph {

struct PathTotals {
  std::array<TimeNs, kPathCategories> ns{};
  TimeNs gpu_gap_ns = 0;  // inside gpu_compute and gpu_memory: idle between activities on a stream
  TimeNs length_ns = 0;   // sum of ns
  void Add(const PathTotals& o);
};

struct PathSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  PathCategory category = PathCategory::kHostBound;
  uint32_t node = kNoNode;  // the node (or, for an edge delay, the node the edge enters)
  bool edge = false;        // an edge's delay, not the node's own time
};

// Walks back from node `sink` at time `t_end` to time `from`. Segments are appended latest
// first when `segments` is not null.
PathTotals WalkCriticalPath(const DepGraph& g, const ReplayTimes& r, uint32_t sink, TimeNs t_end, TimeNs from,
                            std::vector<PathSegment>* segments);

}  // namespace ampscope::graph
