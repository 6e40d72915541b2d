// Typed results of the trace-integrity checks (analyzers/integrity/): what a trace, or a job's set
// of traces, can be trusted for. The report writes them as `trace_integrity` (reports/,
// docs/report_schema.md); every check is listed, ok or not, so a reader sees what was checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/results/fields.h"

namespace ampscope {

enum class IntegrityStatus : uint8_t { kOk, kWarn, kFail };
const char* IntegrityStatusName(IntegrityStatus s);  // "ok" | "warn" | "fail"

// The checks, in report order. Rank checks come from one trace; job checks from the set of inputs.
//   warmup          warm-up and cold-start steps (step durations against the steady state, first
//                   kernel launches that load modules, cuDNN/cuBLAS handle and plan creation,
//                   context setup, first cudaMallocs)
//   sampling        sampled or thinned traces (correlation-id gaps, launches without their kernels)
//   empty_steps     steps without GPU work, or with far less than the others
//   dropped_events  events the profiler lost (CUPTI drops, overflow markers, truncated input)
//   cuda_graphs     CUDA-graph launches whose kernels were not recorded
//   cut_steps       steps the profiler cut (started or stopped inside them)
//   missing_ranks   (job) ranks of the job that the inputs lack
//   clock_offsets   (job) clock offsets between ranks
struct IntegrityCheck {
  std::string id;
  IntegrityStatus status = IntegrityStatus::kOk;
  std::string evidence;               // one line; times are durations or relative to the steps
  std::vector<std::string> affects;   // report metrics ("gpu.idle_pct") and finding ids it makes unreliable
  FieldList values;                   // the numbers behind the evidence
  std::vector<int32_t> ranks;         // job view: the ranks where it is not ok
};

struct TraceIntegrity {
  std::vector<IntegrityCheck> checks;
  // The check of this id, or nullptr.
  const IntegrityCheck* Find(const std::string& id) const {
    for (const IntegrityCheck& c : checks)
      if (c.id == id) return &c;
    return nullptr;
  }
};

}  // namespace ampscope
