// Step detection: ProfilerStep#N ranges, else user/NVTX ranges matching the step pattern, each
// extended to the end of the GPU work launched inside it (the tensorboard plugin's definition).
#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <unordered_map>

#include "analyzers/context.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

namespace {

// Candidate step ranges, before extension to their GPU work.
std::vector<const Range*> FindProfilerSteps(const Trace& trace) {
  std::vector<const Range*> out;
  for (const Range& r : trace.ranges)
    if (r.kind == RangeKind::kCpuAnnotation && ClassifyHostRange(trace.str(r.name)) == HostRangeRole::kProfilerStep)
      out.push_back(&r);
  return out;
}

constexpr size_t kMaxStepNameChars = 256;  // longer range names are never steps (see below)

std::vector<const Range*> FindNamedSteps(const Trace& trace, const std::string& pattern, bool* ok) {
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
  if (candidates.empty()) return candidates;
  // Use the (pid, tid) with the most matches, and the shallowest depth there: nested
  // "step" ranges (e.g. an optimizer "step") must not split the training step.
  std::map<std::pair<int64_t, int64_t>, int> per_thread;
  for (const Range* r : candidates) per_thread[{r->pid, r->tid}]++;
  auto best = std::max_element(per_thread.begin(), per_thread.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  int32_t min_depth = std::numeric_limits<int32_t>::max();
  for (const Range* r : candidates)
    if (r->pid == best.first && r->tid == best.second) min_depth = std::min(min_depth, r->depth);
  std::vector<const Range*> out;
  TimeNs last_end = std::numeric_limits<TimeNs>::min();
  for (const Range* r : candidates) {
    if (r->pid != best.first || r->tid != best.second || r->depth != min_depth) continue;
    if (r->start_ns < last_end) continue;  // overlapping duplicates
    out.push_back(r);
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

StepAnalysis DetectSteps(const Trace& trace, const AnalysisOptions& options, const LaunchIndex& launches) {
  StepAnalysis result;
  std::vector<const Range*> ranges = FindProfilerSteps(trace);
  if (!ranges.empty()) {
    result.source = StepSource::kProfilerStep;
  } else {
    bool ok = true;
    ranges = FindNamedSteps(trace, options.step_range_pattern, &ok);
    if (!ranges.empty()) result.source = StepSource::kNvtx;
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range* a, const Range* b) { return a->start_ns < b->start_ns; });
  // Duplicate ProfilerStep ranges (same name and start) appear when a trace has both an
  // Operator and a user_annotation for the step: keep one.
  ranges.erase(std::unique(ranges.begin(), ranges.end(),
                           [](const Range* a, const Range* b) {
                             return a->name == b->name && a->start_ns == b->start_ns;
                           }),
               ranges.end());

  if (ranges.empty()) {
    result.source = StepSource::kNone;
  }

  // GPU work launched inside each step's CPU range (the launching API call starts inside it)
  // extends the step to the end of that work (the tensorboard plugin's definition).
  std::vector<TimeNs> gpu_end(ranges.size(), std::numeric_limits<TimeNs>::min());
  std::vector<uint64_t> gpu_count(ranges.size(), 0);
  if (!ranges.empty()) {
    auto visit = [&](int64_t correlation, TimeNs end_ns) {
      int64_t api = launches.Find(correlation);
      if (api < 0) return;
      TimeNs launch = trace.api_calls[api].start_ns;
      auto it = std::upper_bound(ranges.begin(), ranges.end(), launch,
                                 [](TimeNs t, const Range* r) { return t < r->start_ns; });
      if (it == ranges.begin()) return;
      --it;
      if (launch >= (*it)->end_ns) return;
      size_t i = static_cast<size_t>(it - ranges.begin());
      gpu_end[i] = std::max(gpu_end[i], end_ns);
      gpu_count[i]++;
    };
    for (const KernelEvent& k : trace.kernels) visit(k.correlation, k.end_ns);
    for (const MemcpyEvent& m : trace.memcpys) visit(m.correlation, m.end_ns);
    for (const MemsetEvent& m : trace.memsets) visit(m.correlation, m.end_ns);
  }

  bool any_gpu = false;
  for (uint64_t c : gpu_count) any_gpu |= c > 0;
  // Drop trailing steps that launched no GPU work while earlier ones did: the profiler
  // stopped before their work was recorded (the tensorboard plugin does the same).
  size_t keep = ranges.size();
  if (any_gpu && keep > 1) {
    while (keep > 1 && gpu_count[keep - 1] == 0) --keep;
  }

  TimeNs prev_end = std::numeric_limits<TimeNs>::min();
  for (size_t i = 0; i < keep; ++i) {
    const Range* r = ranges[i];
    StepWindow w;
    w.name = std::string(trace.str(r->name));
    w.number = r->step_number >= 0 ? r->step_number : StepNumberFromName(w.name, static_cast<int64_t>(i));
    w.cpu_start_ns = r->start_ns;
    w.cpu_end_ns = r->end_ns;
    w.start_ns = std::max(prev_end, r->start_ns);
    w.end_ns = std::max(r->end_ns, gpu_end[i]);
    if (w.end_ns < w.start_ns) w.end_ns = w.start_ns;
    prev_end = w.end_ns;
    result.steps.push_back(std::move(w));
  }

  // --steps N..M selects by position among the detected steps.
  if (options.first_step || options.last_step) {
    int64_t first = options.first_step.value_or(0);
    int64_t last = options.last_step.value_or(std::numeric_limits<int64_t>::max());
    std::vector<StepWindow> selected;
    for (size_t i = 0; i < result.steps.size(); ++i)
      if (static_cast<int64_t>(i) >= first && static_cast<int64_t>(i) <= last) selected.push_back(result.steps[i]);
    result.steps = std::move(selected);
  }

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
