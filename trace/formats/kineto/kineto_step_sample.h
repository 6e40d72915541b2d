// Kineto traces with more steps than the analysis keeps in detail (issue 38, point 6).
//
// A trace of 200,000 ProfilerSteps with one kernel each is 84 MB of JSON, and its rows alone
// (a step range, a launch, a kernel: 176 B) are twice what 0.3x the input leaves for the whole
// run. Such a trace is read in three passes instead of one:
//   1. ScanProfilerSteps: every ProfilerStep#N range's times, and nothing else (16 B a step);
//      ChooseSteps picks the steps kept in detail: the first and last 50, the 100 longest, and
//      every k-th, at most `detail_steps` in all;
//   2. CollectKeptCorrelations: the correlation ids of the runtime calls and GPU work inside the
//      kept steps' host windows (a kept step's start to the next step's start), so that pass 3
//      keeps a kept step's GPU tail and the launches of the GPU work it overlaps;
//   3. the full reader, through a filter that keeps those events (ChosenStepsSink) and counts
//      the rest.
// The analysis then reads the chosen steps as it reads any set of analysed steps, and the step
// time of every step in the trace (from pass 1) goes with it (TraceMetadata::step_sampling).
// Only a seekable file is read again; a pipe is read once, whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/kineto/kineto_tokenizer.h"
#include "trace/model.h"

namespace ampscope::kineto {

// The tokenizer's first window in each pass (it grows for a larger unit): the sampled read
// exists to keep memory small, and 1 MiB reads as fast as the default 4 MiB.
inline constexpr size_t kSampledReadWindowBytes = size_t{1} << 20;

struct StepSpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// Whether the first `prefix_bytes` (uncompressed) of `path`, or its last ones when it is a plain
// file, hold more than `steps` occurrences of "ProfilerStep#": the cheap test that decides
// whether pass 1 is worth making. A trace with that many in so few bytes has more than `steps`
// steps; a real trace of a few hundred steps is never read twice for it.
StatusOr<bool> LooksStepDense(const std::string& path, size_t steps, size_t prefix_bytes);

// Pass 1: the ProfilerStep#N ranges ('X' events) of `path`, by start. Errors as the reader's.
StatusOr<std::vector<StepSpan>> ScanProfilerSteps(const std::string& path);

// The steps kept in detail, and what pass 3 keeps of the rest of the trace.
struct StepChoice {
  std::vector<TimeNs> kept_starts;          // the kept steps' starts (their ProfilerStep ranges), ascending
  std::vector<StepSpan> host_windows;       // merged: a kept step's start to the next step's start
  std::vector<int64_t> kept_correlations;   // pass 2's, sorted
  StepSampling info;
};
// `steps` by start, more than `detail_steps` (>= 400) of them.
StepChoice ChooseSteps(const std::vector<StepSpan>& steps, size_t detail_steps);

// Pass 2: fills choice.kept_correlations.
Status CollectKeptCorrelations(const std::string& path, StepChoice& choice);

// Pass 3's filter in front of the reader's builder: it passes on the events of the chosen
// steps - a ProfilerStep range when it is a kept step's; GPU work whose correlation id is kept
// (else, without one, when it overlaps host_windows); a runtime or driver call that overlaps
// host_windows or whose id is kept; any other event that overlaps host_windows - and every
// event without times the reader accepts (metadata, and the ones the builder must name as
// wrong). It counts the rest.
class ChosenStepsSink final : public EventSink {
 public:
  ChosenStepsSink(EventSink& inner, const StepChoice& choice) : inner_(inner), choice_(choice) {}
  Status OnEvent(const RawEvent& ev) override;
  void OnTopLevelMember(std::string_view key, const json::Value& value) override { inner_.OnTopLevelMember(key, value); }
  uint64_t seen = 0;     // events read
  uint64_t dropped = 0;  // events left out

 private:
  EventSink& inner_;
  const StepChoice& choice_;
};

}  // namespace ampscope::kineto
