// Iterations of a trace without ProfilerStep#N or a step-named range: read from host ranges that
// recur once per iteration. The step windows themselves are made by DetectSteps (steps.cc), the
// same way for every source.
#pragma once

#include <string>
#include <vector>

#include "analyzers/results/analysis.h"
#include "trace/model.h"

namespace ampscope {

// A host range that bounds one step: ProfilerStep#N, a step-named NVTX/user range, or one
// iteration read from recurring ranges.
struct StepCandidate {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  int32_t depth = 0;
  StringId name = kNoString;
  int64_t step_number = -1;  // a recorded step's own number, -1 none
};

struct InferredIterations {
  StepSource source = StepSource::kNone;
  std::string anchor;                  // the recurring range's name
  std::vector<StepCandidate> windows;  // the iterations' host ranges, in order
};

// In this order, the first that recurs at least twice on one thread (one name, outermost):
//   - Optimizer.step#... ranges: each iteration ends with one (training step = optimizer step,
//     so gradient accumulation's micro-batches are one step);
//   - the DataLoader's __next__ ranges: each iteration begins with one;
//   - a top-level forward (DistributedDataParallel.forward, "nn.Module: Net", "...forward"):
//     each iteration begins with one.
// An iteration reaches from its anchor to the next one; the first (end anchors) begins with the
// thread's first host activity, the last (start anchors) ends with its last.
InferredIterations InferIterations(const Trace& trace);

}  // namespace ampscope
