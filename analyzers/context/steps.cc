// Step detection: ProfilerStep#N ranges, else user/NVTX ranges matching the step pattern, else
// iterations read from recurring ranges (iterations.h), each extended to the end of the GPU work
// launched inside it (the tensorboard plugin's definition). Steps the profiler cut and warm-up
// steps are then named and, unless the options keep them, left out (integrity/warmup.h).
#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "analyzers/context/context.h"
#include "analyzers/context/iterations.h"
#include "analyzers/integrity/warmup.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

namespace {

StepCandidate CandidateOf(const Range& r) { return {r.start_ns, r.end_ns, r.pid, r.tid, r.depth, r.name, r.step_number}; }

// Candidate step ranges, before extension to their GPU work.
std::vector<StepCandidate> FindProfilerSteps(const Trace& trace) {
  std::vector<StepCandidate> out;
  for (const Range& r : trace.ranges)
    if (r.kind == RangeKind::kCpuAnnotation && ClassifyHostRange(trace.str(r.name)) == HostRangeRole::kProfilerStep)
      out.push_back(CandidateOf(r));
  return out;
}

constexpr size_t kMaxStepNameChars = 256;  // longer range names are never steps (see below)

std::vector<StepCandidate> FindNamedSteps(const Trace& trace, const std::string& pattern, bool* ok) {
  *ok = true;
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error&) {
    *ok = false;
    return {};
  }
  // Match each distinct name once (names are interned).
  std::unordered_map<StringId, bool> matches;
  std::vector<const Range*> candidates;
  for (const Range& r : trace.ranges) {
    if (r.kind != RangeKind::kNvtx && r.kind != RangeKind::kCpuAnnotation) continue;
    auto it = matches.find(r.name);
    if (it == matches.end()) {
      // std::regex_match recurses about once per character: a name of some 10^4 characters
      // overflows the stack. No step name is that long.
      std::string_view name = trace.str(r.name);
      const bool match = name.size() <= kMaxStepNameChars && std::regex_match(name.begin(), name.end(), re);
      it = matches.emplace(r.name, match).first;
    }
    if (it->second) candidates.push_back(&r);
  }
  if (candidates.empty()) return {};
  // Use the (pid, tid) with the most matches, and the shallowest depth there: nested
  // "step" ranges (e.g. an optimizer "step") must not split the training step.
  std::map<std::pair<int64_t, int64_t>, int> per_thread;
  for (const Range* r : candidates) per_thread[{r->pid, r->tid}]++;
  auto best = std::max_element(per_thread.begin(), per_thread.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  int32_t min_depth = std::numeric_limits<int32_t>::max();
  for (const Range* r : candidates)
    if (r->pid == best.first && r->tid == best.second) min_depth = std::min<int32_t>(min_depth, r->depth);
  std::vector<StepCandidate> out;
  TimeNs last_end = std::numeric_limits<TimeNs>::min();
  for (const Range* r : candidates) {
    if (r->pid != best.first || r->tid != best.second || r->depth != min_depth) continue;
    if (r->start_ns < last_end) continue;  // overlapping duplicates
    out.push_back(CandidateOf(*r));
    last_end = r->end_ns;
  }
  return out;
}

int64_t StepNumberFromName(std::string_view name, int64_t fallback) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || name.size() - i > 15) return fallback;
  return std::stoll(std::string(name.substr(i)));
}

}  // namespace

namespace {

// The windows of the candidates (sorted, distinct): each from its CPU start (or the previous
// window's end) to the end of its CPU range or of the GPU work launched inside it, and how
// many GPU operations it launched.
void BuildWindows(const Trace& trace, const LaunchIndex& launches, const std::vector<StepCandidate>& ranges,
                  std::vector<StepWindow>& windows, std::vector<uint64_t>& gpu_count) {
  // GPU work launched inside each step's CPU range (the launching API call starts inside it)
  // extends the step to the end of that work (the tensorboard plugin's definition).
  std::vector<TimeNs> gpu_end(ranges.size(), std::numeric_limits<TimeNs>::min());
  gpu_count.assign(ranges.size(), 0);
  if (!ranges.empty()) {
    auto visit = [&](int64_t correlation, TimeNs end_ns) {
      int64_t api = launches.Find(correlation);
      if (api < 0) return;
      TimeNs launch = trace.api_calls[api].start_ns;
      auto it = std::upper_bound(ranges.begin(), ranges.end(), launch,
                                 [](TimeNs t, const StepCandidate& r) { return t < r.start_ns; });
      if (it == ranges.begin()) return;
      --it;
      if (launch >= it->end_ns) return;
      size_t i = static_cast<size_t>(it - ranges.begin());
      gpu_end[i] = std::max(gpu_end[i], end_ns);
      gpu_count[i]++;
    };
    for (const KernelEvent& k : trace.kernels) visit(k.correlation, k.end_ns);
    for (const MemcpyEvent& m : trace.memcpys) visit(m.correlation, m.end_ns);
    for (const MemsetEvent& m : trace.memsets) visit(m.correlation, m.end_ns);
  }
  TimeNs prev_end = std::numeric_limits<TimeNs>::min();
  windows.reserve(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const StepCandidate& r = ranges[i];
    StepWindow w;
    w.name = std::string(trace.str(r.name));
    w.number = r.step_number >= 0 ? r.step_number : StepNumberFromName(w.name, static_cast<int64_t>(i));
    w.cpu_start_ns = r.start_ns;
    w.cpu_end_ns = r.end_ns;
    w.start_ns = std::max(prev_end, r.start_ns);
    w.end_ns = std::max(r.end_ns, gpu_end[i]);
    if (w.end_ns < w.start_ns) w.end_ns = w.start_ns;
    prev_end = w.end_ns;
    windows.push_back(std::move(w));
  }
}

FlaggedStep Flag(const StepWindow& w, StepFlagKind kind, std::string reason) {
  FlaggedStep f;
  f.window = w;
  f.kind = kind;
  f.reason = std::move(reason);
  return f;
}

// Steps the profiler cut, left out: trailing steps that launched no GPU work while earlier ones
// did (the profiler stopped before their work was recorded; the tensorboard plugin drops them
// too), and a last step - or, for iterations read from recurring ranges, a first one - that
// launched under half of what the step with the fewest launches did (the profiler stopped or
// started inside it). Returns the indices kept.
std::vector<size_t> DropCutSteps(const std::vector<StepWindow>& windows, const std::vector<uint64_t>& gpu_count,
                                 bool inferred, std::vector<FlaggedStep>& flagged) {
  size_t keep = windows.size();
  bool any_gpu = false;
  for (uint64_t c : gpu_count) any_gpu |= c > 0;
  if (any_gpu && keep > 1) {
    while (keep > 1 && gpu_count[keep - 1] == 0) --keep;
  }
  for (size_t i = keep; i < windows.size(); ++i)
    flagged.push_back(Flag(windows[i], StepFlagKind::kCut,
                           "it launched no GPU work while earlier steps did: the profiler stopped before its work was recorded"));
  size_t first = 0;
  auto fewest_other = [&](size_t skip) {
    uint64_t m = std::numeric_limits<uint64_t>::max();
    for (size_t i = first; i < keep; ++i)
      if (i != skip) m = std::min(m, gpu_count[i]);
    return m;
  };
  auto partial_text = [&](size_t i, const char* how) {
    return fmt::format("it launched {} GPU operations, under half of the fewest any other step launched ({}): the "
                       "profiler {} inside it",
                       gpu_count[i], fewest_other(i), how);
  };
  std::vector<FlaggedStep> tail;
  if (keep - first >= 3 && gpu_count[keep - 1] * 2 < fewest_other(keep - 1)) {
    tail.push_back(Flag(windows[keep - 1], StepFlagKind::kCut, partial_text(keep - 1, "stopped")));
    --keep;
  }
  if (inferred && keep - first >= 3 && gpu_count[first] * 2 < fewest_other(first)) {
    flagged.insert(flagged.begin(), Flag(windows[first], StepFlagKind::kCut, partial_text(first, "started")));
    ++first;
  }
  flagged.insert(flagged.end(), tail.begin(), tail.end());
  std::vector<size_t> kept;
  for (size_t i = first; i < keep; ++i) kept.push_back(i);
  return kept;
}

}  // namespace

StepAnalysis DetectSteps(const Trace& trace, const AnalysisOptions& options, const LaunchIndex& launches) {
  StepAnalysis result;
  std::vector<StepCandidate> ranges = FindProfilerSteps(trace);
  if (!ranges.empty()) {
    result.source = StepSource::kProfilerStep;
    result.sampling = trace.metadata.step_sampling;  // the ProfilerSteps the reader kept, of how many
  } else {
    bool ok = true;
    ranges = FindNamedSteps(trace, options.step_range_pattern, &ok);
    if (!ranges.empty()) {
      result.source = StepSource::kNvtx;
    } else {
      InferredIterations it = InferIterations(trace);
      result.source = it.source;
      result.anchor = std::move(it.anchor);
      ranges = std::move(it.windows);
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const StepCandidate& a, const StepCandidate& b) { return a.start_ns < b.start_ns; });
  // Duplicate ProfilerStep ranges (same name and start) appear when a trace has both an
  // Operator and a user_annotation for the step: keep one.
  ranges.erase(std::unique(ranges.begin(), ranges.end(),
                           [](const StepCandidate& a, const StepCandidate& b) {
                             return a.name == b.name && a.start_ns == b.start_ns;
                           }),
               ranges.end());
  if (ranges.empty()) result.source = StepSource::kNone;

  std::vector<StepWindow> windows;
  std::vector<uint64_t> gpu_count;
  BuildWindows(trace, launches, ranges, windows, gpu_count);
  const bool inferred = result.source == StepSource::kOptimizerStep || result.source == StepSource::kDataLoader ||
                        result.source == StepSource::kForward;
  std::vector<FlaggedStep> cut;
  const std::vector<size_t> kept = DropCutSteps(windows, gpu_count, inferred, cut);
  // Moved, not copied: each window owns its name. Sized once (a 200k-step trace grew these by doubling).
  std::vector<StepWindow> steps;
  steps.reserve(kept.size());
  for (size_t i : kept) steps.push_back(std::move(windows[i]));  // windows[] keeps its times
  result.detected = steps.size();

  // --steps N..M selects by step number, the N users see in ProfilerStep#N (for steps without one,
  // their position); the steps it selects are analysed as selected. Otherwise leading warm-up
  // steps are left out unless the options keep them.
  const bool selected = options.first_step || options.last_step;
  const int64_t first = options.first_step.value_or(std::numeric_limits<int64_t>::min());
  const int64_t last = options.last_step.value_or(std::numeric_limits<int64_t>::max());
  auto in_selection = [&](size_t i) { return steps[i].number >= first && steps[i].number <= last; };
  std::vector<uint8_t> warmup(steps.size(), 0);
  std::vector<FlaggedStep> warm;
  if (steps.size() >= 2) {
    const ColdStartMeter meter(trace);
    std::vector<TimeNs> durations;
    std::vector<ColdStartWork> work;
    durations.reserve(steps.size());  // one a step (ColdStartWork is ~190 B: no growth slack on 200k steps)
    work.reserve(steps.size());
    for (const StepWindow& w : steps) {
      // The shorter of the host range and the analysed window: the first window also waits for
      // GPU work queued before the profile began (the GPU lagging the host), which is no warm-up,
      // and a host that runs ahead makes its ranges short; one-time work lengthens both.
      durations.push_back(std::min(w.duration_ns(), std::max<TimeNs>(0, w.cpu_end_ns - w.cpu_start_ns)));
      work.push_back(meter.In(w.cpu_start_ns, std::max(w.cpu_end_ns, w.cpu_start_ns)));
    }
    const WarmupVerdict v = FindWarmupSteps(durations, work);
    for (size_t k = 0; k < v.steps.size(); ++k) {
      const size_t i = v.steps[k];
      if (selected && !in_selection(i)) continue;
      FlaggedStep f = Flag(steps[i], StepFlagKind::kWarmup, v.reasons[k]);
      f.excluded = !selected && !options.include_warmup;
      if (f.excluded) warmup[i] = 1;
      warm.push_back(std::move(f));
    }
  }
  // In step order: cut steps before the first kept step, warm-up steps, cut steps after.
  for (const FlaggedStep& f : cut)
    if (!kept.empty() && f.window.start_ns < windows[kept.front()].start_ns) result.flagged.push_back(f);
  result.flagged.insert(result.flagged.end(), warm.begin(), warm.end());
  for (const FlaggedStep& f : cut)
    if (kept.empty() || f.window.start_ns >= windows[kept.front()].start_ns) result.flagged.push_back(f);

  auto analysed = [&](size_t i) { return !warmup[i] && (!selected || in_selection(i)); };
  size_t count = 0;
  for (size_t i = 0; i < steps.size(); ++i) count += analysed(i) ? 1 : 0;
  result.steps.reserve(count);
  for (size_t i = 0; i < steps.size(); ++i)
    if (analysed(i)) result.steps.push_back(std::move(steps[i]));

  if (!result.steps.empty()) {
    result.window_start_ns = result.steps.front().start_ns;
    result.window_end_ns = result.steps.back().end_ns;
  } else {
    // No steps: the window is the span of all GPU work, or of all host activity without GPU work.
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    auto widen = [&](TimeNs s, TimeNs e) {
      lo = std::min(lo, s);
      hi = std::max(hi, e);
    };
    for (const KernelEvent& k : trace.kernels) widen(k.start_ns, k.end_ns);
    for (const MemcpyEvent& m : trace.memcpys) widen(m.start_ns, m.end_ns);
    for (const MemsetEvent& m : trace.memsets) widen(m.start_ns, m.end_ns);
    if (lo > hi) {
      for (const ApiCall& a : trace.api_calls) widen(a.start_ns, a.end_ns);
      for (const Range& r : trace.ranges) widen(r.start_ns, r.end_ns);
      for (const CpuOp& o : trace.cpu_ops) widen(o.start_ns, o.end_ns);
    }
    if (lo <= hi) {
      result.window_start_ns = lo;
      result.window_end_ns = hi;
    }
  }
  return result;
}

}  // namespace ampscope
