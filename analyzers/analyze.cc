#include "analyzers/analyze.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <unordered_map>
#include <utility>

#include "analyzers/collectives/collectives.h"
#include "analyzers/context/op_tree.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/integrity/integrity.h"
#include "analyzers/ncu/ncu_analysis.h"
#include "analyzers/peaks/device_peak.h"
#include "analyzers/precision/precision.h"
#include "analyzers/roofline/roofline.h"
#include "base/parallel.h"
#include "base/saturating.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/counter_roles.h"
#include "trace/classify/host_roles.h"

namespace ampscope {

namespace {

constexpr size_t kMaxSyncPoints = 10000;

TimeNs OverlapWithWindows(const std::vector<Interval>& merged, const std::vector<Interval>& windows) {
  TimeNs total = 0;
  for (const Interval& w : windows) SatAccumulate(total, OverlapNs(merged, w.start_ns, w.end_ns));
  return total;
}

// ---------------------------------------------------------------------------------------
// GPU time

void AnalyzeGpuTime(const RankContext& ctx, GpuTimeAnalysis& gpu) {
  const Trace& trace = ctx.trace();
  const std::vector<Interval>& windows = ctx.windows();
  gpu.window_ns = ctx.window_ns();
  if (windows.empty()) return;

  // A process usually drives one GPU. When it drives several, the headline is the mean over
  // the devices that did any work, so busy + idle still add up to the window.
  const BusyIntervals& bi = ctx.busy();
  const std::map<int32_t, std::vector<Interval>>& merged_all = bi.all_by_device;
  size_t ndev = std::max<size_t>(1, merged_all.size());
  TimeNs busy = 0, kbusy = 0, mcbusy = 0, msbusy = 0;
  gpu.busy_by_device_ns = bi.in_windows_by_device;
  for (const auto& [dev, b] : bi.in_windows_by_device) SatAccumulate(busy, b);
  std::vector<const std::vector<Interval>*> merged_kernels;  // by device
  for (int32_t dev : bi.kernel_devices()) merged_kernels.push_back(&bi.kernels(dev));
  for (const std::vector<Interval>* m : merged_kernels) SatAccumulate(kbusy, OverlapWithWindows(*m, windows));
  for (const auto& [dev, m] : bi.memcpy_by_device) SatAccumulate(mcbusy, OverlapWithWindows(m, windows));
  for (const auto& [dev, m] : bi.memset_by_device) SatAccumulate(msbusy, OverlapWithWindows(m, windows));
  gpu.busy_ns = busy / static_cast<TimeNs>(ndev);
  gpu.kernel_busy_ns = kbusy / static_cast<TimeNs>(ndev);
  gpu.memcpy_busy_ns = mcbusy / static_cast<TimeNs>(ndev);
  gpu.memset_busy_ns = msbusy / static_cast<TimeNs>(ndev);

  // Idle breakdown: the complement of busy inside the windows, split by HTA's rules. With no
  // GPU work at all, the whole window is "other" idle.
  const std::vector<IdleGap>& gaps = ctx.idle_gaps();
  TimeNs idle_sum[3] = {0, 0, 0};
  uint64_t idle_count[3] = {0, 0, 0};
  for (const IdleGap& g : gaps) {
    SatAccumulate(idle_sum[static_cast<int>(g.kind)], g.end_ns - g.start_ns);
    idle_count[static_cast<int>(g.kind)]++;
  }
  if (merged_all.empty()) {
    idle_sum[2] = gpu.window_ns;
    idle_count[2] = windows.size();
  }
  gpu.idle.host_wait_ns = idle_sum[0] / static_cast<TimeNs>(ndev);
  gpu.idle.kernel_wait_ns = idle_sum[1] / static_cast<TimeNs>(ndev);
  // "other" takes the rounding remainder so that busy + idle == window exactly.
  gpu.idle.other_ns = SaturatingSub(SaturatingSub(SaturatingSub(gpu.window_ns, gpu.busy_ns), gpu.idle.host_wait_ns), gpu.idle.kernel_wait_ns);
  if (gpu.idle.other_ns < 0) gpu.idle.other_ns = 0;
  gpu.idle.host_wait_gaps = idle_count[0];
  gpu.idle.kernel_wait_gaps = idle_count[1];
  gpu.idle.other_gaps = idle_count[2];
  // gpu.idle_gaps and gpu.idle_gap_causes (what the exporters draw) are the context's own
  // vectors, handed over once the analysis is done (AnalyzeTrace), not copied here: at ~2 gaps
  // a step they were the largest per-step copy alive during the diagnosis.

  // Kernel time by category and precision (kernel durations clipped to the windows).
  const std::vector<uint8_t>& in_window = ctx.kernels().in_window;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    if (!in_window[i]) continue;
    const KernelEvent& k = trace.kernels[i];
    TimeNs d = ctx.ClippedNs(k.start_ns, k.end_ns);
    const KernelClass& c = ctx.kernel_class(i);
    SatAccumulate(gpu.kernel_time_by_category_ns[static_cast<size_t>(c.category)], d);
    SatAccumulate(gpu.kernel_time_by_precision_ns[static_cast<size_t>(c.precision)], d);
    SatAccumulate(gpu.kernel_time_total_ns, d);
    gpu.kernel_count++;
    if (k.end_ns - k.start_ns < 10'000) gpu.kernels_under_10us++;
  }
}

// Per-step numbers for charts, gates and the integrity checks (one StepMetrics a step, with the
// step's sync points counted in place), on the same merged intervals as the GPU time's.
void AnalyzeStepMetrics(const RankContext& ctx, std::vector<StepMetrics>& per_step_out) {
  const Trace& trace = ctx.trace();
  const StepAnalysis& steps = ctx.steps();
  if (ctx.windows().empty()) return;
  const BusyIntervals& bi = ctx.busy();
  const std::map<int32_t, std::vector<Interval>>& merged_all = bi.all_by_device;
  const size_t ndev = std::max<size_t>(1, merged_all.size());
  std::vector<const std::vector<Interval>*> merged_kernels;  // by device
  for (int32_t dev : bi.kernel_devices()) merged_kernels.push_back(&bi.kernels(dev));
  per_step_out.clear();
  per_step_out.reserve(steps.steps.size());
  for (const StepWindow& s : steps.steps) {
    TimeNs b = 0, kb = 0;
    for (const auto& [dev, m] : merged_all) SatAccumulate(b, OverlapNs(m, s.start_ns, s.end_ns));
    for (const std::vector<Interval>* m : merged_kernels) SatAccumulate(kb, OverlapNs(*m, s.start_ns, s.end_ns));
    b /= static_cast<TimeNs>(ndev);
    kb /= static_cast<TimeNs>(ndev);
    TimeNs tc = 0, all = 0;
    uint64_t n = 0;
    auto lo = std::lower_bound(trace.kernels.begin(), trace.kernels.end(), s.start_ns,
                               [](const KernelEvent& k, TimeNs t) { return k.start_ns < t; });
    for (auto it = lo; it != trace.kernels.end() && it->start_ns < s.end_ns; ++it) {
      TimeNs d = std::min(it->end_ns, s.end_ns) - it->start_ns;
      SatAccumulate(all, d);
      ++n;
      if (ctx.kernel_class(static_cast<size_t>(it - trace.kernels.begin())).tensor_core == TensorCoreUse::kYes)
        SatAccumulate(tc, d);
    }
    double dur = static_cast<double>(s.duration_ns());
    StepMetrics m;
    m.number = s.number;
    m.name = s.name;
    m.start_ns = s.start_ns;
    m.end_ns = s.end_ns;
    m.busy_pct = dur > 0 ? 100.0 * b / dur : 0.0;
    m.kernel_busy_pct = dur > 0 ? 100.0 * kb / dur : 0.0;
    m.tensor_core_kernel_pct = all > 0 ? 100.0 * tc / all : 0.0;
    m.kernels = n;
    per_step_out.push_back(std::move(m));
  }
  // The sync points of each step (every point, not only the first kMaxSyncPoints kept in
  // ra.syncs.points).
  for (const SyncPoint& p : ctx.sync_points())
    if (p.step_index >= 0 && static_cast<size_t>(p.step_index) < per_step_out.size()) per_step_out[static_cast<size_t>(p.step_index)].syncs++;
}

void AnalyzeMemoryTraffic(const RankContext& ctx, MemoryTrafficAnalysis& mem) {
  const Trace& trace = ctx.trace();
  for (const MemcpyEvent& m : trace.memcpys) {
    if (!ctx.InWindows(m.start_ns)) continue;
    MemcpyKindStats& s = mem.memcpy_by_kind[MemcpyKindName(m.kind)];
    s.count++;
    s.bytes += m.bytes;
    SatAccumulate(s.time_ns, m.duration_ns());
    if (m.src_kind == MemoryKind::kPageable || m.dst_kind == MemoryKind::kPageable) {
      s.pageable_count++;
      s.pageable_bytes += m.bytes;
    }
  }
  for (const MemsetEvent& m : trace.memsets) {
    if (!ctx.InWindows(m.start_ns)) continue;
    mem.memset_count++;
    mem.memset_bytes += m.bytes;
    SatAccumulate(mem.memset_time_ns, m.duration_ns());
  }
}

// The report's sync numbers count the context's sync points (the one definition), so the
// report's syncs per step and the sync finding always agree.
void AnalyzeSyncs(const RankContext& ctx, SyncAnalysis& out) {
  const Trace& trace = ctx.trace();
  for (const SyncEvent& s : trace.syncs) {
    if (s.type == SyncType::kStreamWaitEvent) continue;  // not host-blocking
    if (!ctx.InWindows(s.start_ns)) continue;
    out.cuda_sync_event_count++;
  }
  // CUPTI's records are the points only in traces without runtime calls (context.cc).
  const bool from_api_calls = !trace.api_calls.empty();
  for (const SyncPoint& p : ctx.sync_points()) {
    if (from_api_calls) out.api_sync_count++;
    out.by_api[p.api]++;
    if (p.input_copy) out.input_copy_count++;
    SatAccumulate(out.api_sync_time_ns, p.blocked_ns);
    if (out.points.size() < kMaxSyncPoints) out.points.push_back(p);
  }
  const size_t steps = ctx.steps().steps.size();
  out.syncs_per_step = steps == 0 ? 0.0 : static_cast<double>(ctx.sync_points().size()) / static_cast<double>(steps);
}

void AnalyzeLaunches(const RankContext& ctx, const GpuTimeAnalysis& gpu, LaunchAnalysis& out) {
  const Trace& trace = ctx.trace();
  const StepAnalysis& steps = ctx.steps();
  out.kernels = gpu.kernel_count;
  out.kernels_per_step = steps.steps.empty() ? 0.0 : static_cast<double>(gpu.kernel_count) / steps.steps.size();
  for (size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCall& a = trace.api_calls[i];
    if (ctx.api_role(i) != ApiRole::kLaunch || !ctx.InWindows(a.start_ns)) continue;
    out.launch_api_calls++;
    SatAccumulate(out.launch_api_time_ns, a.duration_ns());
  }
  std::vector<TimeNs> d;
  const std::vector<uint8_t>& in_window = ctx.kernels().in_window;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    if (!in_window[i]) continue;
    const KernelEvent& k = trace.kernels[i];
    d.push_back(k.duration_ns());
    if (k.graph_id != 0) out.graph_launched_kernels++;
  }
  if (!d.empty()) {
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    out.median_kernel_ns = d[d.size() / 2];
    out.pct_kernels_under_10us = 100.0 * gpu.kernels_under_10us / static_cast<double>(d.size());
  }
}

// Sampled Tensor Core activity (PM sampling: counters trace/classify's counter roles call tensor
// active, such as tensor_active_pct): the mean of the
// samples inside each step (what the Chrome/Perfetto "Tensor Core active per step" counter draws).
std::vector<std::optional<double>> TensorActivePerStep(const Trace& trace, const std::vector<StepWindow>& steps) {
  std::vector<std::optional<double>> values;
  if (steps.empty() || trace.counters.empty()) return values;
  std::vector<double> sum(steps.size(), 0.0);
  std::vector<uint64_t> n(steps.size(), 0);
  std::unordered_map<StringId, bool> tensor;  // counter name -> measures the tensor pipe (trace/classify)
  bool any = false;
  for (const CounterSample& s : trace.counters) {
    auto role = tensor.find(s.name);
    if (role == tensor.end())
      role = tensor.emplace(s.name, CounterRoleOf(trace.str(s.name)) == CounterRole::kTensorActive).first;
    if (!role->second || !std::isfinite(s.value)) continue;
    any = true;
    auto it = std::upper_bound(steps.begin(), steps.end(), s.time_ns,
                               [](TimeNs t, const StepWindow& w) { return t < w.start_ns; });
    if (it == steps.begin()) continue;
    --it;
    if (s.time_ns >= it->end_ns) continue;
    size_t i = static_cast<size_t>(it - steps.begin());
    sum[i] += s.value;
    n[i]++;
  }
  if (!any) return values;
  values.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i)
    if (n[i] > 0) values[i] = sum[i] / static_cast<double>(n[i]);
  return values;
}

// Roofline and MFU (analyzers/roofline/), on the context's op tree.
roofline::RooflineResult AnalyzeRooflineOf(const RankContext& ctx, const InputInfo& input, const std::vector<GpuPeak>& peaks) {
  roofline::RooflineOptions ro;
  ro.gpu_override = ctx.options().gpu_override;
  ro.devices = &input.devices;
  ro.peaks = &peaks;
  return roofline::AnalyzeRoofline(ctx.trace(), ctx.op_tree(), ctx.steps(), ro);
}

// The per-kernel facts exporters draw (class, step, launching op, window membership).
std::shared_ptr<const KernelAnnotations> AnnotateKernels(const RankContext& ctx) {
  const Trace& trace = ctx.trace();
  auto out = std::make_shared<KernelAnnotations>();
  out->classes = ctx.classes().distinct();
  const size_t n = trace.kernels.size();
  out->class_of.resize(n);
  out->step.resize(n);
  out->cpu_op.resize(n);
  out->in_window = ctx.kernels().in_window;
  for (size_t i = 0; i < n; ++i) {
    const KernelEvent& k = trace.kernels[i];
    out->class_of[i] = ctx.classes().IndexOf(k.name);
    out->step[i] = static_cast<int32_t>(ctx.StepAt(k.start_ns));
    out->cpu_op[i] = ctx.CpuOpOfKernel(i);
  }
  return out;
}

}  // namespace

namespace {

// The rank's analysis without the idle gaps and their causes (gpu.idle_gaps,
// gpu.idle_gap_causes), which stay in the context: the callers copy or move them in.
// ra.steps must hold the context's steps already: a copy, or the context's own, lent
// (RankContext::LendSteps). `after_diagnosis` (may be empty) runs once the diagnosis is done:
// AnalyzeTrace drops the op tree there, which nothing after the diagnosis reads.
void AnalyzeRankKeepingGaps(const RankContext& ctx, RankAnalysis& ra, const std::function<void()>& after_diagnosis) {
  const Trace& trace = ctx.trace();
  // The roofline reads only the context, and the analyzers up to the diagnosis (and the
  // diagnosis' facts) write other fields: with a second thread it runs beside them. The
  // diagnosis' rules read both.
  // The run's peak table (--gpu-peaks FILE, else the built-in one), loaded once for the input's
  // description, the roofline and the diagnosis' facts.
  const std::vector<GpuPeak> peaks = RunPeakTable(ctx.options());
  // The input's description holds the devices' peak rows, which the roofline reads: first.
  ra.input = DescribeInput(trace, ctx.options(), peaks);
  std::shared_ptr<const roofline::RooflineResult> roof;
  Beside roofline(ctx.options().threads > 1, [&ctx, &roof, &input = std::as_const(ra.input), &peaks] {
    roof = std::make_shared<const roofline::RooflineResult>(AnalyzeRooflineOf(ctx, input, peaks));
  });
  ra.rank = trace.metadata.rank;
  ra.input_path = trace.metadata.path;
  ra.format = trace.metadata.format;
  ra.input_events = trace.metadata.event_count;
  ra.step_stats = ComputeStepStats(ra.steps);
  AnalyzeGpuTime(ctx, ra.gpu);
  AnalyzeMemoryTraffic(ctx, ra.memory);
  AnalyzeSyncs(ctx, ra.syncs);
  AnalyzeLaunches(ctx, ra.gpu, ra.launches);

  const bool no_gpu_activity = trace.kernels.empty() && trace.memcpys.empty() && trace.memsets.empty();
  ra.gpu_activity_recorded = !no_gpu_activity;

  ra.tensor_active_per_step_pct = TensorActivePerStep(trace, ra.steps.steps);
  AnalyzePrecision(trace, ctx.classes(), ctx.op_tree(), ra);
  ra.kernels = AnnotateKernels(ctx);
  ExtractCollectives(ctx, ra);
  // An Nsight Compute CSV given with --ncu, joined to this trace: its ncu_* findings are diagnosed
  // and replayed with the others.
  std::shared_ptr<ncu::NcuResult> joined = JoinNcu(ctx);
  bool inference = false;
  // Whether every launch's GPU work is in the trace: the diagnosis' queued-stall rule reads it.
  ra.integrity.checks = {CheckSampling(ctx)};
  {
    const diagnosis::Facts facts(ctx, ra, peaks);  // reads the context and ra.steps only
    roofline.Join();
    ra.roofline = std::move(roof);
    Diagnose(facts, ra, [&](diagnosis::FindingSink& out) {
      if (joined != nullptr) AddJoinedNcuFindings(ctx, *joined, out);
    });
    inference = facts.inference();
  }
  if (after_diagnosis) after_diagnosis();
  // The per-step numbers (StepMetrics: 104 B and a copy of the name a step) and what reads them
  // (the integrity checks) come after the diagnosis, which reads neither: they are not alive
  // through its replays, nor beside its facts (40 B a step) or the op tree, the analysis' peak on a
  // many-step trace.
  AnalyzeStepMetrics(ctx, ra.per_step);
  ra.integrity = CheckRankIntegrity(ctx, ra);
  ApplyRankIntegrity(inference, ra);
  // Measured kernel metrics (the joined CSV, the trace's counter tracks): the matrix's measured
  // headlines and ra.ncu.
  ApplyMeasuredMetrics(ctx, std::move(joined), ra);
  // Once more with what came after the diagnosis (cold_start_profiled, the measured findings).
  diagnosis::RankFindings(ra.findings);
}

}  // namespace

RankAnalysis AnalyzeRank(const RankContext& ctx) {
  RankAnalysis ra;
  ra.steps = ctx.steps();
  AnalyzeRankKeepingGaps(ctx, ra, {});
  ra.gpu.idle_gaps = ctx.idle_gaps();
  ra.gpu.idle_gap_causes = ctx.gap_causes();
  return ra;
}

StatusOr<RankAnalysis> AnalyzeTrace(const Trace& trace, const AnalysisOptions& options) {
  try {
    std::regex check(options.step_range_pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return Status::Error("invalid step range pattern (ECMAScript regex): " + options.step_range_pattern);
  }
  RankContext ctx(trace, options);
  RankAnalysis ra;
  ctx.LendSteps(ra.steps);
  AnalyzeRankKeepingGaps(ctx, ra, [&ctx] { ctx.ReleaseOpTree(); });
  ctx.ReleaseIdleGaps(ra.gpu.idle_gaps, ra.gpu.idle_gap_causes);
  return ra;
}

}  // namespace ampscope
