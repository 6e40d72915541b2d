// The replay: a discrete-event re-timing of every node of a step's graph from its dependencies
// and its own duration, in one pass over the nodes (they are in topological order):
//
//   start' = measured start                                  (a node with no start dependency)
//          = max over start edges (pred end' + delay) + slack (otherwise)
//   end'   = max(start' + own duration, max over wait edges (pred end' + delay))
//
// Boundary nodes take their values from the replay state (what the previous steps' replay left
// in each slot); the chunk's exports write the state back. On the unchanged graph every node
// gets its measured times back (docs/whatif.md says why), so a transformed graph's replay
// differs from the run only by what the transform changed.
#pragma once

#include <vector>

#include "analyzers/graph/dep_graph.h"
#include "analyzers/graph/graph_builder.h"

namespace ampscope::graph {

struct ReplayTimes {
  std::vector<TimeNs> start_ns, end_ns;  // per node
};

// Replays g. `state` holds one value per slot; the exports of io are written back into it.
void Replay(const DepGraph& g, const ChunkIo& io, std::vector<SlotValue>& state, ReplayTimes& out);

// A step as the replay sees it: the rule of analyzers/context/steps.cc on replayed times (the step
// starts at its CPU start, or where the previous step ended if that is later; it ends at its
// CPU end or at the end of the GPU work launched inside its CPU range, whichever is later).
struct StepSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs cpu_end_ns = 0;
  TimeNs gpu_end_ns = 0;          // the latest end of GPU work launched inside (or min)
  uint32_t gpu_end_node = kNoNode;  // that work's node
};
// `prev_end_ns`: where the previous step ended (replayed), or min() for the first (which starts
// no earlier than its chunk's floor_ns: graph_builder.h).
StepSpan SpanOf(const ChunkInfo& chunk, const DepGraph& g, const ChunkIo& io, const ReplayTimes& r, TimeNs prev_end_ns);

}  // namespace ampscope::graph
