#include "analyzers/analyze.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <unordered_map>

#include "analyzers/diagnosis.h"
#include "analyzers/gpu_peaks.h"
#include "analyzers/op_tree.h"
#include "analyzers/precision.h"
#include "analyzers/roofline/roofline.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

namespace {

constexpr size_t kMaxSyncPoints = 10000;
constexpr size_t kMaxStepNameChars = 256;  // longer range names are never steps (see FindNamedSteps)

}  // namespace

const char* IdleKindName(IdleKind k) {
  switch (k) {
    case IdleKind::kHostWait: return "host_wait";
    case IdleKind::kKernelWait: return "kernel_wait";
    default: return "other";
  }
}

LaunchIndex::LaunchIndex(const Trace& trace) {
  sorted_.reserve(trace.api_calls.size());
  for (uint32_t i = 0; i < trace.api_calls.size(); ++i)
    if (trace.api_calls[i].correlation >= 0) sorted_.emplace_back(trace.api_calls[i].correlation, i);
  std::sort(sorted_.begin(), sorted_.end());
}

int64_t LaunchIndex::Find(int64_t correlation) const {
  if (correlation < 0) return -1;
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(correlation, uint32_t{0}));
  if (it == sorted_.end() || it->first != correlation) return -1;
  return it->second;
}

std::vector<Interval> MergeIntervals(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::vector<Interval> out;
  for (const Interval& iv : v) {
    if (iv.end_ns <= iv.start_ns) continue;
    if (!out.empty() && iv.start_ns <= out.back().end_ns) {
      out.back().end_ns = std::max(out.back().end_ns, iv.end_ns);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

TimeNs OverlapNs(const std::vector<Interval>& merged, TimeNs start, TimeNs end) {
  if (end <= start) return 0;
  auto it = std::upper_bound(merged.begin(), merged.end(), start,
                             [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
  TimeNs total = 0;
  for (; it != merged.end() && it->start_ns < end; ++it)
    total = AddSat(total, std::min(end, it->end_ns) - std::max(start, it->start_ns));
  return total;
}

// ---------------------------------------------------------------------------------------
// Steps

namespace {

struct GpuWork {
  TimeNs start_ns;
  TimeNs end_ns;
  int64_t correlation;
  int32_t device;
  int32_t stream;
};

std::vector<GpuWork> CollectGpuWork(const Trace& trace, bool kernels_only) {
  std::vector<GpuWork> work;
  work.reserve(trace.kernels.size() + (kernels_only ? 0 : trace.memcpys.size() + trace.memsets.size()));
  for (const KernelEvent& k : trace.kernels) work.push_back({k.start_ns, k.end_ns, k.correlation, k.device, k.stream});
  if (!kernels_only) {
    for (const MemcpyEvent& m : trace.memcpys) work.push_back({m.start_ns, m.end_ns, m.correlation, m.device, m.stream});
    for (const MemsetEvent& m : trace.memsets) work.push_back({m.start_ns, m.end_ns, m.correlation, m.device, m.stream});
  }
  std::sort(work.begin(), work.end(), [](const GpuWork& a, const GpuWork& b) { return a.start_ns < b.start_ns; });
  return work;
}

// Candidate step ranges, before extension to their GPU work.
std::vector<const Range*> FindProfilerSteps(const Trace& trace) {
  std::vector<const Range*> out;
  for (const Range& r : trace.ranges)
    if (r.kind == RangeKind::kCpuAnnotation && ClassifyHostRange(trace.str(r.name)) == HostRangeRole::kProfilerStep)
      out.push_back(&r);
  return out;
}

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

// ---------------------------------------------------------------------------------------
// GPU time

namespace {

// The analysed windows: the steps, or the whole window when there are none.
std::vector<Interval> Windows(const StepAnalysis& steps) {
  std::vector<Interval> w;
  if (!steps.steps.empty()) {
    for (const StepWindow& s : steps.steps) w.push_back({s.start_ns, s.end_ns});
  } else if (steps.window_end_ns > steps.window_start_ns) {
    w.push_back({steps.window_start_ns, steps.window_end_ns});
  }
  return w;
}

TimeNs OverlapWithWindows(const std::vector<Interval>& merged, const std::vector<Interval>& windows) {
  TimeNs total = 0;
  for (const Interval& w : windows) total = AddSat(total, OverlapNs(merged, w.start_ns, w.end_ns));
  return total;
}

bool InWindows(const std::vector<Interval>& windows, TimeNs t) {
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](TimeNs x, const Interval& w) { return x < w.start_ns; });
  if (it == windows.begin()) return false;
  --it;
  return t < it->end_ns;
}

// Clips [s, e) to the windows and returns the length inside them.
TimeNs ClippedNs(const std::vector<Interval>& windows, TimeNs s, TimeNs e) {
  TimeNs total = 0;
  auto w = std::upper_bound(windows.begin(), windows.end(), s,
                            [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
  for (; w != windows.end() && w->start_ns < e; ++w)
    total = AddSat(total, std::max<TimeNs>(0, std::min(e, w->end_ns) - std::max(s, w->start_ns)));
  return total;
}

}  // namespace

std::vector<IdleGap> ComputeIdleGaps(const Trace& trace, const StepAnalysis& steps, const LaunchIndex& launches) {
  std::vector<IdleGap> gaps;
  std::vector<Interval> windows = Windows(steps);
  if (windows.empty()) return gaps;
  std::vector<GpuWork> work = CollectGpuWork(trace, /*kernels_only=*/false);
  std::map<int32_t, std::vector<const GpuWork*>> by_device;
  for (const GpuWork& w : work) by_device[w.device].push_back(&w);

  for (const auto& [device_key, events] : by_device) {
    // A named copy: C++17 lambdas cannot capture structured bindings (clang rejects it).
    const int32_t device = device_key;
    // Walk events by start; `busy_end` is the end of the merged busy interval so far.
    // A gap ends when the next event starts after busy_end. HTA's rule classifies it by
    // the event that ends it: if its launch API started after the gap began, the GPU
    // waited for the host (host_wait); else a short gap is kernel_wait; else other.
    auto classify = [&](TimeNs gap_start, TimeNs gap_end, const GpuWork* next) {
      IdleKind kind = IdleKind::kOther;
      if (next != nullptr) {
        int64_t api = launches.Find(next->correlation);
        if (api >= 0 && trace.api_calls[api].start_ns > gap_start) {
          kind = IdleKind::kHostWait;
        } else if (gap_end - gap_start < kKernelWaitThresholdNs) {
          kind = IdleKind::kKernelWait;
        }
      }
      // Clip to the windows: one gap may span a step boundary.
      auto w = std::upper_bound(windows.begin(), windows.end(), gap_start,
                                [](TimeNs t, const Interval& iv) { return t < iv.end_ns; });
      for (; w != windows.end() && w->start_ns < gap_end; ++w) {
        TimeNs s = std::max(gap_start, w->start_ns), e = std::min(gap_end, w->end_ns);
        if (e > s) gaps.push_back({s, e, device, kind});
      }
    };
    TimeNs busy_end = windows.front().start_ns;
    for (const GpuWork* ev : events) {
      if (ev->end_ns <= windows.front().start_ns) continue;
      if (ev->start_ns >= windows.back().end_ns) {
        if (busy_end < windows.back().end_ns) classify(busy_end, windows.back().end_ns, ev);
        busy_end = windows.back().end_ns;
        break;
      }
      if (ev->start_ns > busy_end) classify(busy_end, ev->start_ns, ev);
      busy_end = std::max(busy_end, ev->end_ns);
    }
    if (busy_end < windows.back().end_ns) classify(busy_end, windows.back().end_ns, nullptr);
  }
  std::sort(gaps.begin(), gaps.end(), [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
  return gaps;
}

static void AnalyzeGpuTime(const Trace& trace, const StepAnalysis& steps, const LaunchIndex& launches,
                           GpuTimeAnalysis& gpu, nlohmann::json& per_step_out) {
  std::vector<Interval> windows = Windows(steps);
  for (const Interval& w : windows) gpu.window_ns = AddSat(gpu.window_ns, w.end_ns - w.start_ns);
  if (windows.empty()) return;

  // Per device: union of kernel intervals, and of all GPU work.
  std::map<int32_t, std::vector<Interval>> kernels_by_dev, all_by_dev, memcpy_by_dev, memset_by_dev;
  for (const KernelEvent& k : trace.kernels) {
    kernels_by_dev[k.device].push_back({k.start_ns, k.end_ns});
    all_by_dev[k.device].push_back({k.start_ns, k.end_ns});
  }
  for (const MemcpyEvent& m : trace.memcpys) {
    memcpy_by_dev[m.device].push_back({m.start_ns, m.end_ns});
    all_by_dev[m.device].push_back({m.start_ns, m.end_ns});
  }
  for (const MemsetEvent& m : trace.memsets) {
    memset_by_dev[m.device].push_back({m.start_ns, m.end_ns});
    all_by_dev[m.device].push_back({m.start_ns, m.end_ns});
  }
  // A process usually drives one GPU. When it drives several, the headline is the mean over
  // the devices that did any work, so busy + idle still add up to the window.
  std::map<int32_t, std::vector<Interval>> merged_all, merged_kernels;
  for (auto& [dev, v] : all_by_dev) merged_all[dev] = MergeIntervals(std::move(v));
  for (auto& [dev, v] : kernels_by_dev) merged_kernels[dev] = MergeIntervals(std::move(v));
  size_t ndev = std::max<size_t>(1, merged_all.size());
  TimeNs busy = 0, kbusy = 0, mcbusy = 0, msbusy = 0;
  for (const auto& [dev, m] : merged_all) {
    TimeNs b = OverlapWithWindows(m, windows);
    gpu.busy_by_device_ns[dev] = b;
    busy = AddSat(busy, b);
  }
  for (const auto& [dev, m] : merged_kernels) kbusy = AddSat(kbusy, OverlapWithWindows(m, windows));
  for (auto& [dev, v] : memcpy_by_dev) mcbusy = AddSat(mcbusy, OverlapWithWindows(MergeIntervals(std::move(v)), windows));
  for (auto& [dev, v] : memset_by_dev) msbusy = AddSat(msbusy, OverlapWithWindows(MergeIntervals(std::move(v)), windows));
  gpu.busy_ns = busy / static_cast<TimeNs>(ndev);
  gpu.kernel_busy_ns = kbusy / static_cast<TimeNs>(ndev);
  gpu.memcpy_busy_ns = mcbusy / static_cast<TimeNs>(ndev);
  gpu.memset_busy_ns = msbusy / static_cast<TimeNs>(ndev);

  // Idle breakdown: the complement of busy inside the windows, split by HTA's rules. With no
  // GPU work at all, the whole window is "other" idle.
  std::vector<IdleGap> gaps = ComputeIdleGaps(trace, steps, launches);
  TimeNs idle_sum[3] = {0, 0, 0};
  uint64_t idle_count[3] = {0, 0, 0};
  for (const IdleGap& g : gaps) {
    idle_sum[static_cast<int>(g.kind)] = AddSat(idle_sum[static_cast<int>(g.kind)], g.end_ns - g.start_ns);
    idle_count[static_cast<int>(g.kind)]++;
  }
  if (merged_all.empty()) {
    idle_sum[2] = gpu.window_ns;
    idle_count[2] = windows.size();
  }
  gpu.idle.host_wait_ns = idle_sum[0] / static_cast<TimeNs>(ndev);
  gpu.idle.kernel_wait_ns = idle_sum[1] / static_cast<TimeNs>(ndev);
  // "other" takes the rounding remainder so that busy + idle == window exactly.
  gpu.idle.other_ns = SubSat(SubSat(SubSat(gpu.window_ns, gpu.busy_ns), gpu.idle.host_wait_ns), gpu.idle.kernel_wait_ns);
  if (gpu.idle.other_ns < 0) gpu.idle.other_ns = 0;
  gpu.idle.host_wait_gaps = idle_count[0];
  gpu.idle.kernel_wait_gaps = idle_count[1];
  gpu.idle.other_gaps = idle_count[2];

  // Kernel time by category and precision (kernel durations clipped to the windows).
  std::unordered_map<StringId, KernelClass> classes;
  std::vector<TimeNs> durations;
  for (const KernelEvent& k : trace.kernels) {
    if (!InWindows(windows, k.start_ns)) continue;
    TimeNs d = ClippedNs(windows, k.start_ns, k.end_ns);
    auto it = classes.find(k.name);
    if (it == classes.end()) it = classes.emplace(k.name, ClassifyKernel(trace.str(k.name))).first;
    TimeNs& by_category = gpu.kernel_time_by_category_ns[static_cast<size_t>(it->second.category)];
    TimeNs& by_precision = gpu.kernel_time_by_precision_ns[static_cast<size_t>(it->second.precision)];
    by_category = AddSat(by_category, d);
    by_precision = AddSat(by_precision, d);
    gpu.kernel_time_total_ns = AddSat(gpu.kernel_time_total_ns, d);
    gpu.kernel_count++;
    if (k.end_ns - k.start_ns < 10'000) gpu.kernels_under_10us++;
  }

  // Per-step numbers for charts and gates.
  per_step_out = nlohmann::json::array();
  for (const StepWindow& s : steps.steps) {
    TimeNs b = 0, kb = 0;
    for (const auto& [dev, m] : merged_all) b = AddSat(b, OverlapNs(m, s.start_ns, s.end_ns));
    for (const auto& [dev, m] : merged_kernels) kb = AddSat(kb, OverlapNs(m, s.start_ns, s.end_ns));
    b /= static_cast<TimeNs>(ndev);
    kb /= static_cast<TimeNs>(ndev);
    TimeNs tc = 0, all = 0;
    uint64_t n = 0;
    auto lo = std::lower_bound(trace.kernels.begin(), trace.kernels.end(), s.start_ns,
                               [](const KernelEvent& k, TimeNs t) { return k.start_ns < t; });
    for (auto it = lo; it != trace.kernels.end() && it->start_ns < s.end_ns; ++it) {
      TimeNs d = std::min(it->end_ns, s.end_ns) - it->start_ns;
      all = AddSat(all, d);
      ++n;
      auto c = classes.find(it->name);
      if (c != classes.end() && c->second.tensor_core == TensorCoreUse::kYes) tc = AddSat(tc, d);
    }
    double dur = static_cast<double>(s.duration_ns());
    per_step_out.push_back({{"number", s.number},
                            {"name", s.name},
                            {"start_us", s.start_ns / 1e3},
                            {"end_us", s.end_ns / 1e3},
                            {"duration_us", s.duration_ns() / 1e3},
                            {"busy_pct", dur > 0 ? 100.0 * b / dur : 0.0},
                            {"kernel_busy_pct", dur > 0 ? 100.0 * kb / dur : 0.0},
                            {"tensor_core_kernel_pct", all > 0 ? 100.0 * tc / all : 0.0},
                            {"kernels", n}});
  }
}

static void AnalyzeMemoryTraffic(const Trace& trace, const StepAnalysis& steps, MemoryTrafficAnalysis& mem) {
  std::vector<Interval> windows = Windows(steps);
  for (const MemcpyEvent& m : trace.memcpys) {
    if (!InWindows(windows, m.start_ns)) continue;
    MemcpyKindStats& s = mem.memcpy_by_kind[MemcpyKindName(m.kind)];
    s.count++;
    s.bytes += m.bytes;
    s.time_ns = AddSat(s.time_ns, m.duration_ns());
    if (m.src_kind == MemoryKind::kPageable || m.dst_kind == MemoryKind::kPageable) {
      s.pageable_count++;
      s.pageable_bytes += m.bytes;
    }
  }
  for (const MemsetEvent& m : trace.memsets) {
    if (!InWindows(windows, m.start_ns)) continue;
    mem.memset_count++;
    mem.memset_bytes += m.bytes;
    mem.memset_time_ns = AddSat(mem.memset_time_ns, m.duration_ns());
  }
}

static int64_t StepIndexAt(const StepAnalysis& steps, TimeNs t) {
  auto it = std::upper_bound(steps.steps.begin(), steps.steps.end(), t,
                             [](TimeNs x, const StepWindow& s) { return x < s.start_ns; });
  if (it == steps.steps.begin()) return -1;
  --it;
  return t < it->end_ns ? static_cast<int64_t>(it - steps.steps.begin()) : -1;
}

static void AnalyzeSyncs(const Trace& trace, const StepAnalysis& steps, SyncAnalysis& out) {
  std::vector<Interval> windows = Windows(steps);
  // Memcpy records by correlation, to tell synchronous D2H copies and to apply nsys's
  // "H2D of 64 KB or less is not a sync" exclusion.
  std::unordered_map<int64_t, const MemcpyEvent*> memcpy_by_corr;
  for (const MemcpyEvent& m : trace.memcpys)
    if (m.correlation >= 0) memcpy_by_corr[m.correlation] = &m;

  for (const ApiCall& a : trace.api_calls) {
    if (!InWindows(windows, a.start_ns)) continue;
    std::string_view name = trace.str(a.name);
    const ApiRole role = ClassifyApi(name);
    std::string label;
    if (role == ApiRole::kSync) {
      label = std::string(name);
    } else if (role == ApiRole::kMemcpySync) {
      auto it = memcpy_by_corr.find(a.correlation);
      if (it != memcpy_by_corr.end() && it->second->kind == MemcpyKind::kHtoD && it->second->bytes <= 64 * 1024)
        continue;  // nsys cuda_memcpy_sync rule: small H2D copies are staged, not a real sync
      if (it != memcpy_by_corr.end() && it->second->kind == MemcpyKind::kDtoD) continue;  // device-side only
      label = std::string(name);
      if (it != memcpy_by_corr.end()) label += std::string(" ") + MemcpyKindName(it->second->kind);
    } else {
      continue;
    }
    out.api_sync_count++;
    out.by_api[label]++;
    out.api_sync_time_ns = AddSat(out.api_sync_time_ns, a.duration_ns());
    if (out.points.size() < kMaxSyncPoints)
      out.points.push_back({a.start_ns, a.end_ns, label, a.tid, StepIndexAt(steps, a.start_ns)});
  }
  for (const SyncEvent& s : trace.syncs) {
    if (s.type == SyncType::kStreamWaitEvent) continue;  // not host-blocking
    if (!InWindows(windows, s.start_ns)) continue;
    out.cuda_sync_event_count++;
  }
  // Kineto writes a cuda_sync record for the same sync as its runtime call; count the API
  // calls when there are any, else the CUPTI records.
  uint64_t n = out.api_sync_count > 0 ? out.api_sync_count : out.cuda_sync_event_count;
  if (out.api_sync_count == 0) {
    for (const SyncEvent& s : trace.syncs) {
      if (s.type == SyncType::kStreamWaitEvent || !InWindows(windows, s.start_ns)) continue;
      std::string label = std::string("cuda_sync:") + SyncTypeName(s.type);
      out.by_api[label]++;
      out.api_sync_time_ns = AddSat(out.api_sync_time_ns, s.end_ns - s.start_ns);
      if (out.points.size() < kMaxSyncPoints)
        out.points.push_back({s.start_ns, s.end_ns, label, s.tid, StepIndexAt(steps, s.start_ns)});
    }
  }
  out.syncs_per_step = steps.steps.empty() ? 0.0 : static_cast<double>(n) / steps.steps.size();
}

static void AnalyzeLaunches(const Trace& trace, const StepAnalysis& steps, const GpuTimeAnalysis& gpu,
                            LaunchAnalysis& out) {
  std::vector<Interval> windows = Windows(steps);
  out.kernels = gpu.kernel_count;
  out.kernels_per_step = steps.steps.empty() ? 0.0 : static_cast<double>(gpu.kernel_count) / steps.steps.size();
  for (const ApiCall& a : trace.api_calls) {
    if (!InWindows(windows, a.start_ns) || ClassifyApi(trace.str(a.name)) != ApiRole::kLaunch) continue;
    out.launch_api_calls++;
    out.launch_api_time_ns = AddSat(out.launch_api_time_ns, a.duration_ns());
  }
  std::vector<TimeNs> d;
  for (const KernelEvent& k : trace.kernels) {
    if (!InWindows(windows, k.start_ns)) continue;
    d.push_back(k.duration_ns());
    if (k.graph_id != 0) out.graph_launched_kernels++;
  }
  if (!d.empty()) {
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    out.median_kernel_ns = d[d.size() / 2];
    out.pct_kernels_under_10us = 100.0 * gpu.kernels_under_10us / static_cast<double>(d.size());
  }
}

// Roofline and MFU (analyzers/roofline/). The op tree is built here until the rank's analysis
// context owns it.
static roofline::RooflineResult AnalyzeRooflineOf(const Trace& trace, const StepAnalysis& steps,
                                                  const AnalysisOptions& options) {
  roofline::RooflineOptions ro;
  ro.gpu_override = options.gpu_override;
  std::vector<GpuPeak> custom;
  if (!options.gpu_peaks_path.empty()) {
    auto loaded = LoadGpuPeaksTsv(options.gpu_peaks_path);
    if (loaded.ok()) {
      custom = std::move(loaded).value();
      ro.peaks = &custom;
    }
  }
  const OpTree tree = OpTree::Build(trace);
  return roofline::AnalyzeRoofline(trace, tree, steps, ro);
}

StatusOr<RankAnalysis> AnalyzeTrace(const Trace& trace, const AnalysisOptions& options) {
  RankAnalysis ra;
  ra.rank = trace.metadata.rank;
  ra.input_path = trace.metadata.path;
  ra.format = trace.metadata.format;
  ra.input_events = trace.metadata.event_count;

  try {
    std::regex check(options.step_range_pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return Status::Error("invalid step range pattern (ECMAScript regex): " + options.step_range_pattern);
  }
  LaunchIndex launches(trace);
  ra.steps = DetectSteps(trace, options, launches);
  nlohmann::json per_step;
  AnalyzeGpuTime(trace, ra.steps, launches, ra.gpu, per_step);
  AnalyzeMemoryTraffic(trace, ra.steps, ra.memory);
  AnalyzeSyncs(trace, ra.steps, ra.syncs);
  AnalyzeLaunches(trace, ra.steps, ra.gpu, ra.launches);

  // Per-step sync counts, next to the per-step GPU numbers.
  std::vector<uint64_t> syncs_per_step(ra.steps.steps.size(), 0);
  for (const SyncPoint& p : ra.syncs.points)
    if (p.step_index >= 0) syncs_per_step[p.step_index]++;
  for (size_t i = 0; i < per_step.size() && i < syncs_per_step.size(); ++i) per_step[i]["syncs"] = syncs_per_step[i];
  ra.extra["per_step"] = std::move(per_step);

  const bool no_gpu_activity = trace.kernels.empty() && trace.memcpys.empty() && trace.memsets.empty();
  ra.extra["gpu_activity_recorded"] = !no_gpu_activity;

  AnalyzePrecision(trace, ra);
  ra.roofline = std::make_shared<const roofline::RooflineResult>(AnalyzeRooflineOf(trace, ra.steps, options));
  Diagnose(trace, options, ra);
  std::stable_sort(ra.findings.begin(), ra.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.est_saving_pct > b.est_saving_pct; });
  return ra;
}

}  // namespace ampscope
