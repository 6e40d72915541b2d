// The rank checks of analyzers/integrity/integrity.h.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "analyzers/integrity/integrity.h"
#include "analyzers/integrity/warmup.h"
#include "base/saturating.h"
#include "trace/classify/trust_roles.h"

namespace ampscope {

namespace {

using Strings = std::vector<std::string>;

// What an unreliable idle/launch picture makes unreliable: the report's idle numbers and the
// findings read from them.
const Strings kIdleMetrics = {"gpu.busy_pct", "gpu.idle_pct", "gpu.idle_breakdown_pct", "launches"};
const Strings kIdleFindings = {"launch_bound",          "low_gpu_utilization", "host_device_sync",
                               "gpu_idle_at_step_start", "dataloader_bottleneck", "pageable_h2d_copies",
                               "allocation_churn",       "exposed_communication", "straggler",
                               "host_bound",             "queued_work_stalled"};
// What one-time work in the window makes unreliable besides the idle picture: estimates that
// include the host-launch idle inside a chain or an optimizer step.
const Strings kLaunchIdleFindings = {"unfused_elementwise_chains", "unfused_optimizer", "zero_grad_fills"};
// What counts of GPU work make unreliable when some of it is missing.
const Strings kCountMetrics = {"steps.kernels_per_step", "syncs.per_step", "memory_traffic.h2d_bytes_per_step",
                               "gpu.kernel_time_by_category_pct", "tensor_cores.kernel_time_pct"};
const Strings kCountFindings = {"unfused_elementwise_chains", "unfused_optimizer", "zero_grad_fills", "cast_overhead",
                                "grad_scaler_skipped_steps"};

Strings Join(std::initializer_list<const Strings*> lists) {
  Strings out;
  for (const Strings* l : lists) out.insert(out.end(), l->begin(), l->end());
  return out;
}

std::string StepName(const StepWindow& w) { return fmt::format("step {}", w.number); }

IntegrityStatus Worst(IntegrityStatus a, IntegrityStatus b) { return std::max(a, b); }

double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// ---- warm-up and cold start ------------------------------------------------------------------
IntegrityCheck WarmupCheck(const RankContext& ctx, const RankAnalysis& ra) {
  IntegrityCheck c;
  c.id = "warmup";
  std::vector<const FlaggedStep*> left_out, kept;
  for (const FlaggedStep& f : ra.steps.flagged)
    if (f.kind == StepFlagKind::kWarmup) (f.excluded ? left_out : kept).push_back(&f);
  std::vector<std::string> parts;
  std::vector<int64_t> numbers;
  for (const FlaggedStep* f : left_out) numbers.push_back(f->window.number);
  for (const FlaggedStep* f : kept) numbers.push_back(f->window.number);
  if (!left_out.empty()) {
    c.status = IntegrityStatus::kWarn;
    std::string steps;
    for (const FlaggedStep* f : left_out) steps += (steps.empty() ? "" : "; ") + StepName(f->window) + ": " + f->reason;
    parts.push_back(fmt::format("{} warm-up step{} left out of the analysed window ({})", left_out.size(),
                                left_out.size() == 1 ? "" : "s", steps));
  }
  if (!kept.empty()) {
    c.status = IntegrityStatus::kFail;
    std::string steps;
    for (const FlaggedStep* f : kept) steps += (steps.empty() ? "" : "; ") + StepName(f->window) + ": " + f->reason;
    parts.push_back(fmt::format("{} warm-up step{} kept in the analysed window{} ({}): step time, idle and launch "
                                "figures include one-time work",
                                kept.size(), kept.size() == 1 ? " is" : "s are",
                                ctx.options().first_step || ctx.options().last_step ? " (--steps chose it)" : " (--include-warmup)",
                                steps));
    c.affects = Join({&kIdleMetrics, &kIdleFindings, &kLaunchIdleFindings});
    c.affects.insert(c.affects.begin(), "steps.time_us");
  }
  // The analysed window itself: how much of it is one-time work.
  const ColdStartMeter meter(ctx.trace());
  ColdStartWork total;
  for (const Interval& w : ctx.windows()) {
    const ColdStartWork part = meter.In(w.start_ns, w.end_ns);
    total.first_launch_min_ns = total.first_launches == 0 ? part.first_launch_min_ns
                                : part.first_launches == 0 ? total.first_launch_min_ns
                                                           : std::min(total.first_launch_min_ns, part.first_launch_min_ns);
    total.first_launch_max_ns = std::max(total.first_launch_max_ns, part.first_launch_max_ns);
    total.first_launches += part.first_launches;
    SatAccumulate(total.first_launch_ns, part.first_launch_ns);
    for (size_t r = 0; r < kColdStartRoles; ++r) {
      total.api_calls[r] += part.api_calls[r];
      SatAccumulate(total.api_ns[r], part.api_ns[r]);
    }
    total.mallocs += part.mallocs;
    SatAccumulate(total.malloc_ns, part.malloc_ns);
  }
  const double share = Pct(static_cast<double>(total.one_time_ns()), static_cast<double>(ctx.window_ns()));
  const std::string what = total.Describe();
  if (share >= kColdStartFailPct) {
    c.status = IntegrityStatus::kFail;
    parts.push_back(fmt::format("the analysed window is a cold start: {:.0f}% of it ({} of {}) is one-time CUDA work ({})",
                                share, DurationText(total.one_time_ns()), DurationText(ctx.window_ns()), what));
    SetField(c.values, {"cold_start", true});
    for (const std::string& a : Join({&kIdleMetrics, &kIdleFindings, &kLaunchIdleFindings}))
      if (std::find(c.affects.begin(), c.affects.end(), a) == c.affects.end()) c.affects.push_back(a);
  } else if (share >= kColdStartWarnPct) {
    c.status = Worst(c.status, IntegrityStatus::kWarn);
    parts.push_back(fmt::format("{:.1f}% of the analysed window ({}) is one-time CUDA work ({}): launch and idle "
                                "figures include start-up",
                                share, DurationText(total.one_time_ns()), what));
    for (const std::string& a : Join({&kIdleMetrics, &kIdleFindings, &kLaunchIdleFindings}))
      if (std::find(c.affects.begin(), c.affects.end(), a) == c.affects.end()) c.affects.push_back(a);
  }
  c.values.push_back({"warmup_steps", numbers});
  c.values.push_back({"warmup_steps_excluded", static_cast<int64_t>(left_out.size()), Unit::kCount});
  c.values.push_back({"one_time_work_pct_of_window", std::round(share * 100) / 100, Unit::kPct});
  c.values.push_back({"slow_first_launches", static_cast<int64_t>(total.first_launches), Unit::kCount});
  if (c.status == IntegrityStatus::kOk) {
    const size_t n = ra.steps.steps.size();
    parts.push_back(n >= 2 ? fmt::format("no step stands out from the steady state ({} steps); one-time CUDA work is "
                                         "{:.1f}% of the window",
                                         n, share)
                           : fmt::format("{}; one-time CUDA work is {:.1f}% of the window",
                                         n == 1 ? "one step: no steady state to compare it with" : "no steps to compare",
                                         share));
  }
  for (const std::string& p : parts) c.evidence += (c.evidence.empty() ? "" : "; ") + p;
  return c;
}

// Correlation ids per runtime call and the median gap between consecutive ids, counted within
// each analysed step: the id span of its calls over their number, and the gaps inside it.
void IdsWithinSteps(const RankContext& ctx, double* per_call, double* median_gap) {
  std::vector<std::pair<int64_t, int64_t>> by_id;  // (correlation, step)
  for (const ApiCall& a : ctx.trace().api_calls) {
    const int64_t step = ctx.StepAt(a.start_ns);
    if (a.correlation >= 0 && step >= 0) by_id.emplace_back(a.correlation, step);
  }
  std::sort(by_id.begin(), by_id.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
  by_id.erase(std::unique(by_id.begin(), by_id.end()), by_id.end());
  std::vector<int64_t> gaps;
  double span = 0;
  for (size_t i = 0; i < by_id.size(); ++i) {
    const bool first = i == 0 || by_id[i - 1].second != by_id[i].second;
    span += first ? 1.0 : static_cast<double>(by_id[i].first - by_id[i - 1].first);
    if (!first) gaps.push_back(by_id[i].first - by_id[i - 1].first);
  }
  *per_call = by_id.empty() ? 0.0 : span / static_cast<double>(by_id.size());
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    *median_gap = static_cast<double>(gaps[gaps.size() / 2]);
  }
}

}  // namespace

// ---- sampled or thinned traces ----------------------------------------------------------------
IntegrityCheck CheckSampling(const RankContext& ctx) {
  IntegrityCheck c;
  c.id = "sampling";
  const Trace& t = ctx.trace();
  std::vector<int64_t> ids;
  ids.reserve(t.api_calls.size());
  for (const ApiCall& a : t.api_calls)
    if (a.correlation >= 0) ids.push_back(a.correlation);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Launches whose kernel (or copy, memset) was not recorded. The GPU work's correlation ids
  // sorted (8 B an activity; a hash set took ~30, alive beside the analysis' per-step results).
  uint64_t launches = 0, without = 0;
  {
    std::vector<int64_t> gpu_ids;
    gpu_ids.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
    for (const KernelEvent& k : t.kernels) gpu_ids.push_back(k.correlation);
    for (const MemcpyEvent& m : t.memcpys) gpu_ids.push_back(m.correlation);
    for (const MemsetEvent& m : t.memsets) gpu_ids.push_back(m.correlation);
    std::sort(gpu_ids.begin(), gpu_ids.end());
    for (size_t i = 0; i < t.api_calls.size(); ++i) {
      const ApiCall& a = t.api_calls[i];
      if (ctx.api_role(i) != ApiRole::kLaunch || a.correlation < 0 || IsGraphLaunchApi(t.str(a.name))) continue;
      ++launches;
      if (!std::binary_search(gpu_ids.begin(), gpu_ids.end(), a.correlation)) ++without;
    }
  }
  const double without_pct = Pct(static_cast<double>(without), static_cast<double>(launches));
  const size_t calls = ids.size();
  double per_call = 0, median_gap = 0;
  if (ctx.steps().sampling.steps_in_trace > 0) {
    // The reader kept some steps only (StepSampling): the ids between two kept steps are the
    // left-out steps', not a thinned trace's. Judge the ids within each analysed step.
    IdsWithinSteps(ctx, &per_call, &median_gap);
  } else if (calls >= 2) {
    per_call = static_cast<double>(ids.back() - ids.front() + 1) / static_cast<double>(calls);
    // The gaps between consecutive ids, in place of the ids (read no more after this).
    for (size_t i = 0; i + 1 < calls; ++i) ids[i] = ids[i + 1] - ids[i];
    ids.pop_back();
    std::nth_element(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(ids.size() / 2), ids.end());
    median_gap = static_cast<double>(ids[ids.size() / 2]);
  }
  const bool judged = calls >= kSamplingMinCalls;
  std::vector<std::string> parts;
  if (judged && per_call >= kSampledIdsPerCallFail && median_gap >= kSampledMedianGapFail) {
    c.status = IntegrityStatus::kFail;
    parts.push_back(fmt::format("the trace is sampled: it keeps 1 runtime call per {:.0f} correlation ids (median gap "
                                "{:.0f}; a full trace keeps nearly every one), so GPU idle time, per-step counts and the "
                                "findings read from them cannot be trusted",
                                per_call, median_gap));
  } else if (judged && per_call >= kSampledIdsPerCallWarn && median_gap >= kSampledMedianGapWarn) {
    c.status = IntegrityStatus::kWarn;
    parts.push_back(fmt::format("the trace may be thinned: 1 runtime call per {:.0f} correlation ids (median gap {:.0f})",
                                per_call, median_gap));
  }
  if (launches > 0 && without > 0 && (without_pct >= 10.0 && without >= 10)) {
    c.status = IntegrityStatus::kFail;
    parts.push_back(fmt::format("{} of {} kernel launches ({:.1f}%) have no recorded GPU work", without, launches, without_pct));
  } else if (launches > 0 && without >= 5 && without_pct >= 1.0) {
    c.status = Worst(c.status, IntegrityStatus::kWarn);
    parts.push_back(fmt::format("{} of {} kernel launches ({:.1f}%) have no recorded GPU work", without, launches, without_pct));
  }
  if (c.status != IntegrityStatus::kOk) c.affects = Join({&kIdleMetrics, &kCountMetrics, &kIdleFindings, &kCountFindings});
  if (parts.empty())
    parts.push_back(!judged ? fmt::format("{} runtime calls with correlation ids: too few to judge; {} of {} launches "
                                          "without recorded GPU work",
                                          calls, without, launches)
                            : fmt::format("1 runtime call per {:.1f} correlation ids (median gap {:.0f}); {} of {} launches "
                                          "without recorded GPU work",
                                          per_call, median_gap, without, launches));
  for (const std::string& p : parts) c.evidence += (c.evidence.empty() ? "" : "; ") + p;
  c.values = {{"correlation_ids_per_runtime_call", std::round(per_call * 10) / 10},
              {"median_correlation_gap", median_gap},
              {"runtime_calls", static_cast<int64_t>(calls), Unit::kCount},
              {"launches", static_cast<int64_t>(launches), Unit::kCount},
              {"launches_without_gpu_work", static_cast<int64_t>(without), Unit::kCount}};
  return c;
}

namespace {

// ---- empty or partial steps -------------------------------------------------------------------
IntegrityCheck EmptyStepsCheck(const RankAnalysis& ra) {
  IntegrityCheck c;
  c.id = "empty_steps";
  const std::vector<StepMetrics>& steps = ra.per_step;
  std::vector<uint64_t> counts;
  for (const StepMetrics& s : steps) counts.push_back(s.kernels);
  std::vector<uint64_t> sorted = counts;
  std::sort(sorted.begin(), sorted.end());
  const uint64_t median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  // A step without kernels is empty when other steps have some (even when most steps are empty
  // and the median is 0); when none has any, the trace recorded no GPU work at all.
  const bool any_kernels = !sorted.empty() && sorted.back() > 0;
  std::vector<int64_t> empty, partial;
  for (const StepMetrics& s : steps) {
    if (s.kernels == 0 && any_kernels) empty.push_back(s.number);
    else if (steps.size() >= 3 && s.kernels * 2 < median) partial.push_back(s.number);
  }
  const size_t bad = empty.size() + partial.size();
  if (bad > 0) {
    c.status = 4 * bad >= steps.size() ? IntegrityStatus::kFail : IntegrityStatus::kWarn;
    c.evidence = fmt::format("{} of {} analysed steps have {}GPU work recorded (median {} kernels per step): per-step "
                             "averages mix in steps whose GPU work is missing",
                             bad, steps.size(), partial.empty() ? "no " : empty.empty() ? "under half the usual " : "no or little ",
                             median);
    c.affects = {"steps.time_us"};
    c.affects.insert(c.affects.end(), kCountMetrics.begin(), kCountMetrics.end());
    c.affects.insert(c.affects.end(), kIdleMetrics.begin(), kIdleMetrics.end());
    c.affects.insert(c.affects.end(), kCountFindings.begin(), kCountFindings.end());
    c.affects.insert(c.affects.end(), kIdleFindings.begin(), kIdleFindings.end());
  } else {
    c.evidence = steps.empty()   ? "no steps: nothing to compare"
                 : !any_kernels ? "no analysed step has kernels recorded: nothing to compare (the trace has no GPU work in its steps)"
                                : fmt::format("every analysed step has GPU work (median {} kernels per step)", median);
  }
  c.values = {{"steps", static_cast<int64_t>(steps.size()), Unit::kCount},
              {"empty_steps", empty},
              {"partial_steps", partial},
              {"median_kernels_per_step", static_cast<int64_t>(median), Unit::kCount}};
  return c;
}

// ---- dropped events ---------------------------------------------------------------------------
IntegrityCheck DroppedEventsCheck(const RankContext& ctx, const RankAnalysis& ra) {
  IntegrityCheck c;
  c.id = "dropped_events";
  const auto& entries = ra.input.diagnostics.entries();
  auto count = [&](DiagCode code) -> uint64_t {
    auto it = entries.find(DiagnosticInfoOf(code).id);
    return it == entries.end() ? 0 : it->second.count;
  };
  const uint64_t activity = count(DiagCode::kCuptiDroppedRecords) + count(DiagCode::kCuptiBuffersRefused);
  const uint64_t nvtx = count(DiagCode::kNvtxEventsDropped);
  const bool stopped_early = count(DiagCode::kProfilerStoppedEarly) > 0;
  const uint64_t damaged = count(DiagCode::kTruncatedFile) + count(DiagCode::kCorruptChunk);
  uint64_t markers = 0;
  std::set<std::string> marker_names;
  for (const Range& r : ctx.trace().ranges) {
    const std::string_view n = ctx.trace().str(r.name);
    if (!IsProfilerLossMarker(n)) continue;
    ++markers;
    if (marker_names.size() < 3) marker_names.insert(std::string(n));
  }
  std::vector<std::string> parts;
  if (activity > 0) parts.push_back(fmt::format("the profiler dropped {} activity records (CUPTI buffers full)", activity));
  if (stopped_early)
    parts.push_back("the profiler's log says CUPTI stopped collecting early (GPU buffers exhausted): GPU activity after that is missing");
  if (damaged > 0) parts.push_back("the input is truncated or has damaged chunks: the events after the damage are lost");
  if (markers > 0) {
    std::string names;
    for (const std::string& n : marker_names) names += (names.empty() ? "" : ", ") + n;
    parts.push_back(fmt::format("{} profiler overflow/drop marker{} ({})", markers, markers == 1 ? "" : "s", names));
  }
  if (nvtx > 0) parts.push_back(fmt::format("{} NVTX events dropped (ranges and steps may be missing)", nvtx));
  const double events = static_cast<double>(std::max<uint64_t>(1, ra.input.events));
  if (damaged > 0 || stopped_early || static_cast<double>(activity) >= 0.01 * events) {
    c.status = IntegrityStatus::kFail;
  } else if (activity > 0 || markers > 0 || nvtx > 0) {
    c.status = IntegrityStatus::kWarn;
  }
  if (c.status != IntegrityStatus::kOk) {
    c.affects = Join({&kIdleMetrics, &kCountMetrics, &kIdleFindings, &kCountFindings});
    if (nvtx > 0) c.affects.insert(c.affects.begin(), "steps.count");
  }
  for (const std::string& p : parts) c.evidence += (c.evidence.empty() ? "" : "; ") + p;
  if (parts.empty()) c.evidence = "no dropped records, overflow markers or damaged input reported";
  c.values = {{"dropped_activity_records", static_cast<int64_t>(activity), Unit::kCount},
              {"dropped_nvtx_events", static_cast<int64_t>(nvtx), Unit::kCount},
              {"overflow_markers", static_cast<int64_t>(markers), Unit::kCount},
              {"damaged_input", damaged > 0},
              {"profiler_stopped_early", stopped_early}};
  return c;
}

// ---- CUDA graphs ------------------------------------------------------------------------------
IntegrityCheck CudaGraphsCheck(const RankContext& ctx) {
  IntegrityCheck c;
  c.id = "cuda_graphs";
  const Trace& t = ctx.trace();
  std::vector<int64_t> with_kernels;  // the kernels' correlation ids, sorted (8 B a kernel, not a hash set's ~30)
  with_kernels.reserve(t.kernels.size());
  uint64_t graph_kernels = 0;
  for (const KernelEvent& k : t.kernels) {
    with_kernels.push_back(k.correlation);
    if (k.graph_id != 0) ++graph_kernels;
  }
  std::sort(with_kernels.begin(), with_kernels.end());
  uint64_t graph_launches = 0, empty = 0;
  for (const ApiCall& a : t.api_calls) {
    if (!IsGraphLaunchApi(t.str(a.name))) continue;
    ++graph_launches;
    if (a.correlation < 0 || !std::binary_search(with_kernels.begin(), with_kernels.end(), a.correlation)) ++empty;
  }
  const double empty_pct = Pct(static_cast<double>(empty), static_cast<double>(graph_launches));
  if (graph_launches == 0) {
    c.evidence = graph_kernels > 0 ? fmt::format("{} graph-launched kernels; no graph launch calls recorded", graph_kernels)
                                   : "no CUDA-graph launches";
  } else if (empty == 0) {
    c.evidence = fmt::format("every one of {} CUDA-graph launches has its kernels recorded", graph_launches);
  } else {
    c.status = empty_pct >= 50.0 ? IntegrityStatus::kFail : IntegrityStatus::kWarn;
    c.evidence = fmt::format("{} of {} CUDA-graph launches ({:.0f}%) have no recorded kernels: the replayed work is "
                             "missing, so the GPU looks idle while it ran (record graph kernels: CUPTI "
                             "CONCURRENT_KERNEL with graph node tracing, or nsys --cuda-graph-trace=node)",
                             empty, graph_launches, empty_pct);
    c.affects = {"gpu.busy_pct", "gpu.idle_pct", "gpu.kernel_busy_pct", "gpu.idle_breakdown_pct",
                 "gpu.kernel_time_by_category_pct", "tensor_cores.kernel_time_pct", "launches"};
    c.affects.insert(c.affects.end(), kIdleFindings.begin(), kIdleFindings.end());
  }
  c.values = {{"graph_launches", static_cast<int64_t>(graph_launches), Unit::kCount},
              {"graph_launches_without_kernels", static_cast<int64_t>(empty), Unit::kCount},
              {"graph_kernels", static_cast<int64_t>(graph_kernels), Unit::kCount}};
  return c;
}

// ---- steps the profiler cut -------------------------------------------------------------------
IntegrityCheck CutStepsCheck(const RankAnalysis& ra) {
  IntegrityCheck c;
  c.id = "cut_steps";
  std::vector<const FlaggedStep*> cut;
  for (const FlaggedStep& f : ra.steps.flagged)
    if (f.kind == StepFlagKind::kCut) cut.push_back(&f);
  std::vector<int64_t> numbers;
  for (const FlaggedStep* f : cut) numbers.push_back(f->window.number);
  const size_t all = ra.steps.detected + cut.size();
  if (cut.empty()) {
    c.evidence = ra.steps.steps.empty() ? "no steps" : "no step was cut by the start or end of the profile";
  } else {
    // One cut step at an end is what stopping a profiler does; many mean GPU events are missing.
    c.status = cut.size() > 1 && 4 * cut.size() >= all ? IntegrityStatus::kFail : IntegrityStatus::kWarn;
    std::string list;
    for (size_t i = 0; i < cut.size() && i < 3; ++i)
      list += (list.empty() ? "" : "; ") + StepName(cut[i]->window) + ": " + cut[i]->reason;
    if (cut.size() > 3) list += fmt::format("; and {} more", cut.size() - 3);
    c.evidence = fmt::format("{} of {} steps left out as cut ({})", cut.size(), all, list);
    if (c.status == IntegrityStatus::kFail) {
      c.evidence += ": most steps' GPU work is missing, the rest may not be typical";
      c.affects = {"steps.count", "steps.time_us"};
    }
  }
  c.values = {{"cut_steps", numbers}, {"steps_detected", static_cast<int64_t>(all), Unit::kCount}};
  return c;
}

}  // namespace

TraceIntegrity CheckRankIntegrity(const RankContext& ctx, const RankAnalysis& ra) {
  TraceIntegrity out;
  out.checks.push_back(WarmupCheck(ctx, ra));
  // Made before the diagnosis when it ran (AnalyzeRank: the queued-stall rule reads it), else here.
  const IntegrityCheck* sampling = ra.integrity.Find("sampling");
  out.checks.push_back(sampling != nullptr ? *sampling : CheckSampling(ctx));
  out.checks.push_back(EmptyStepsCheck(ra));
  out.checks.push_back(DroppedEventsCheck(ctx, ra));
  out.checks.push_back(CudaGraphsCheck(ctx));
  out.checks.push_back(CutStepsCheck(ra));
  return out;
}

}  // namespace ampscope
