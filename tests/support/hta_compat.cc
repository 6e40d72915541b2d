// HTA's temporal and idle-time breakdowns, reproduced so that our interval machinery can be
// checked against the numbers HTA computes on the same real traces (shared/traces/README.md).
// Definitions: hta/analyzers/breakdown_analysis.py, hta/trace_analysis.py.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "support/hta_compat.h"

#include "analyzers/context/context.h"
#include "trace/classify/host_roles.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope {

HtaBreakdown ComputeHtaBreakdown(const Trace& trace, int32_t stream) {
  HtaBreakdown out;
  LaunchIndex launches(trace);
  // HTA keeps GPU work launched inside the profiled steps, before the last ProfilerStep starts.
  TimeNs first_step = std::numeric_limits<TimeNs>::min(), last_step = std::numeric_limits<TimeNs>::max();
  {
    std::vector<TimeNs> starts;
    for (const Range& r : trace.ranges)
      if (r.kind == RangeKind::kCpuAnnotation && ClassifyHostRange(trace.str(r.name)) == HostRangeRole::kProfilerStep)
        starts.push_back(r.start_ns);
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    if (!starts.empty()) {
      first_step = starts.front();
      last_step = starts.back();
    }
  }
  struct Ev {
    TimeNs start, end, launch;
    int32_t stream;
    bool compute;
  };
  std::vector<Ev> evs;
  auto add = [&](TimeNs s, TimeNs e, int64_t corr, int32_t st, bool compute) {
    int64_t api = launches.Find(corr);
    if (api < 0) return;
    TimeNs launch = trace.api_calls[api].start_ns;
    if (launch < first_step || launch >= last_step) return;
    evs.push_back({s, e, launch, st, compute});
  };
  // HTA's COMPUTATION kernels: everything but NCCL collectives (one classification per name).
  std::unordered_map<StringId, bool> compute_by_name;
  for (const KernelEvent& k : trace.kernels) {
    auto it = compute_by_name.find(k.name);
    if (it == compute_by_name.end())
      it = compute_by_name.emplace(k.name, ClassifyKernel(trace.str(k.name)).role != KernelRole::kNcclCollective).first;
    add(k.start_ns, k.end_ns, k.correlation, k.stream, it->second);
  }
  for (const MemcpyEvent& m : trace.memcpys) add(m.start_ns, m.end_ns, m.correlation, m.stream, false);
  for (const MemsetEvent& m : trace.memsets) add(m.start_ns, m.end_ns, m.correlation, m.stream, false);
  if (evs.empty()) return out;
  std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.start < b.start; });

  std::vector<Interval> all, compute;
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  for (const Ev& e : evs) {
    all.push_back({e.start, e.end});
    if (e.compute) compute.push_back({e.start, e.end});
    lo = std::min(lo, e.start);
    hi = std::max(hi, e.end);
  }
  std::vector<Interval> merged_all = MergeIntervals(all), merged_compute = MergeIntervals(compute);
  TimeNs busy = 0, comp = 0;
  for (const Interval& iv : merged_all) busy = SaturatingAdd(busy, iv.end_ns - iv.start_ns);
  for (const Interval& iv : merged_compute) comp = SaturatingAdd(comp, iv.end_ns - iv.start_ns);
  out.kernel_span_ns = hi - lo;
  out.idle_ns = out.kernel_span_ns - busy;
  out.compute_ns = comp;
  out.non_compute_ns = busy - comp;

  // Idle breakdown on one stream: consecutive events, gap = start - previous end.
  TimeNs prev_end = std::numeric_limits<TimeNs>::min();
  for (const Ev& e : evs) {
    if (e.stream != stream) continue;
    if (prev_end != std::numeric_limits<TimeNs>::min()) {
      TimeNs gap = e.start - prev_end;
      if (gap >= 0) {  // HTA counts back-to-back events (gap 0) as kernel_wait gaps
        if (e.launch > prev_end) {
          out.host_wait_ns = SaturatingAdd(out.host_wait_ns, gap);
          out.host_wait_gaps++;
        } else if (gap < kKernelWaitThresholdNs) {
          out.kernel_wait_ns = SaturatingAdd(out.kernel_wait_ns, gap);
          out.kernel_wait_gaps++;
        } else {
          out.other_ns = SaturatingAdd(out.other_ns, gap);
        }
      }
    }
    prev_end = e.end;
  }
  return out;
}

}  // namespace ampscope
