// Facts shared by the rule families (facts.h).
#include "analyzers/diagnosis/facts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/peaks/device_peak.h"
#include "base/saturating.h"
#include "base/tensor_cores.h"
#include "base/units.h"

namespace ampscope::diagnosis {

double Round(double v, int digits) {
  const double p = std::pow(10.0, digits);
  return std::round(v * p) / p;
}

std::vector<uint32_t> SyncPointCalls(const Facts& in, bool scaler) {
  std::vector<uint32_t> calls;
  const std::vector<SyncPoint>& points = in.ctx.sync_points();
  for (uint32_t i = 0; i < in.t.api_calls.size(); ++i) {
    const ApiCall& a = in.t.api_calls[i];
    const ApiRole role = in.ctx.api_role(i);
    if (role != ApiRole::kSync && !in.ctx.BlockingCopy(i)) continue;
    auto it = std::upper_bound(points.begin(), points.end(), a.start_ns, [](TimeNs t, const SyncPoint& p) { return t < p.start_ns; });
    if (it == points.begin()) continue;
    --it;
    if (it->tid == a.tid && a.start_ns < it->end_ns && it->scaler == scaler && !it->input_copy) calls.push_back(i);
  }
  return calls;
}

FindingSeverity SeverityForSaving(double pct) {
  if (pct >= kCriticalSavingPct) return FindingSeverity::kCritical;
  if (pct >= kWarningSavingPct) return FindingSeverity::kWarning;
  return FindingSeverity::kInfo;
}

bool IsMemoryBound(KernelCategory c) {
  switch (c) {
    case KernelCategory::kElementwise:
    case KernelCategory::kReduction:
    case KernelCategory::kCast:
    case KernelCategory::kNormalization:
    case KernelCategory::kSoftmax:
    case KernelCategory::kMemcpyLike:
    case KernelCategory::kLayoutTransform:
    case KernelCategory::kOptimizer:
    case KernelCategory::kAmpScaler:
      return true;
    default:
      return false;
  }
}
bool IsFusable(KernelCategory c) {
  return c == KernelCategory::kElementwise || c == KernelCategory::kCast || c == KernelCategory::kReduction;
}
bool IsMatmulClass(KernelCategory c) {
  return c == KernelCategory::kGemm || c == KernelCategory::kConv || c == KernelCategory::kAttention;
}

std::vector<FieldList> OpRecords(const std::vector<OpPrecision>& ops) {
  std::vector<FieldList> out;
  for (const OpPrecision& o : ops) {
    std::vector<FieldList> kernels;
    for (const OpKernel& k : o.kernels)
      kernels.push_back({{"name", k.name}, {"count", k.count, Unit::kCount}, {"time_us", k.time_us, Unit::kUs},
                         {"precision", PrecisionName(k.precision)}, {"tensor_core", TensorCoreUseName(k.tensor_core)}});
    out.push_back({{"name", o.name}, {"dtype", PrecisionName(o.dtype)}, {"calls", o.calls, Unit::kCount},
                   {"kernel_time_us", o.kernel_time_us, Unit::kUs}, {"pct_of_eligible", o.pct_of_eligible, Unit::kPct},
                   {"kernels", kernels}});
  }
  return out;
}

// ---------------------------------------------------------------------------------------

Facts::Facts(const RankContext& context, const RankAnalysis& analysis)
    : Facts(context, analysis, RunPeakTable(context.options())) {}

Facts::Facts(const RankContext& context, const RankAnalysis& analysis, const std::vector<GpuPeak>& peaks)
    : ctx(context), t(context.trace()), ra(analysis) {
  window_ns = ctx.window_ns();
  nsteps = std::max<size_t>(1, ra.steps.steps.size());
  kernel_total_ns = ctx.kernels().in_window_ns;
  rocm_ns = ctx.kernels().rocm_in_window_ns;
  busy_in_windows_ns = ctx.busy().main_in_windows_ns;
  BuildGpu(peaks);
  BuildSteps();
  BuildIdle();
  BuildRun();
}

// Training or inference from what only training does: autograd (backward) nodes, an optimizer
// step (its ranges, or optimizer / GradScaler kernels). Inference only when host ops were
// recorded (a trace without cpu_ops cannot show a backward pass).
void Facts::BuildRun() {
  const HostRanges& host = ctx.host();
  for (const std::string& name : host.optimizer_names) {
    const std::string_view cls = OptimizerClassOfRange(name);
    if (!cls.empty()) {
      run.optimizer = std::string(cls);
      break;
    }
  }
  run.optimizer_options = OptimizerOptionsOf(run.optimizer);
  bool optimizer_kernels = false;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const KernelClass& c = cls(i);
    run.fused_optimizer = run.fused_optimizer || c.role == KernelRole::kOptimizerFused;
    run.foreach_optimizer = run.foreach_optimizer || c.role == KernelRole::kOptimizerForeach;
    optimizer_kernels = optimizer_kernels || c.category == KernelCategory::kOptimizer || c.category == KernelCategory::kAmpScaler ||
                        c.role == KernelRole::kOptimizerPerParam;
  }
  run.dataloader = !host.dataloader.empty();
  if (gpu.info != nullptr && gpu.info->vendor != GpuVendor::kAmd && gpu.info->cc_major > 0) {
    run.cc_major = gpu.info->cc_major;
    run.cc_minor = gpu.info->cc_minor;
    run.arch_inferred = !gpu.info->arch_basis.empty();
  }
  const bool backward = ctx.op_tree().stats().backward_roots > 0;
  const bool optimizer = !host.optimizer_steps.empty() || optimizer_kernels;
  if (backward || optimizer) {
    run.kind = RunKind::kTraining;
    run.kind_basis = backward && optimizer ? "backward ops and an optimizer step" : backward ? "backward ops" : "an optimizer step";
  } else if (!t.cpu_ops.empty()) {
    run.kind = RunKind::kInference;
    run.kind_basis = "no backward ops, no optimizer step";
  } else {
    run.kind_basis = "no host ops recorded: training or inference unknown";
  }
}

bool Facts::Bf16TensorCores() const {
  if (gpu.amd) return true;
  return HasBf16TensorCores(run.cc_major);
}

std::string Facts::ArchName() const {
  if (gpu.amd) return "an AMD GPU";
  // Inferred from kernel names, the architecture is a lower bound (kernel_arch.h).
  if (run.cc_major > 0)
    return fmt::format("sm{}{}{}", run.cc_major, run.cc_minor, run.arch_inferred ? " (or later: inferred from kernel names)" : "");
  return "an unknown GPU";
}

std::string Facts::AutocastAdvice() const {
  // ROCm builds of PyTorch use the "cuda" device type too.
  if (Bf16TensorCores())
    return fmt::format("torch.autocast(device_type='cuda', dtype=torch.bfloat16){}", training() ? " (bf16 needs no GradScaler)" : "");
  const std::string scaler = training() || run.kind == RunKind::kUnknown ? " with torch.amp.GradScaler('cuda')" : "";
  if (run.cc_major > 0 && run.arch_inferred)
    return fmt::format("torch.autocast(device_type='cuda', dtype=torch.float16){} (the kernel names prove only sm{}{}, which has "
                       "no bf16 Tensor Cores; on {} or newer use dtype=torch.bfloat16 without a scaler)",
                       scaler, run.cc_major, run.cc_minor, Bf16TensorCoreArch());
  if (run.cc_major > 0)
    return fmt::format("torch.autocast(device_type='cuda', dtype=torch.float16){} ({} has no bf16 Tensor Cores)", scaler, ArchName());
  return fmt::format("torch.autocast(device_type='cuda', dtype=torch.float16){} (bf16 only on {} and newer)", scaler, Bf16TensorCoreArch());
}

void Facts::BuildGpu(const std::vector<GpuPeak>& peaks) {
  const AnalysisOptions& o = ctx.options();
  gpu.device = ctx.busy().main_device;
  gpu.info = ctx.busy().main_device_info;
  gpu.table = peaks;
  // The row the input's description found for the main device (the one lookup, also the
  // roofline's and the report's devices[].peak); a device it does not list is looked up alike.
  const Device none;
  gpu.row = DevicePeakOf(ra.input.devices, gpu.device, gpu.info != nullptr ? *gpu.info : none, o.gpu_override, gpu.table);
  gpu.peak = gpu.row.peak ? &*gpu.row.peak : nullptr;
  gpu.amd = gpu.info != nullptr && gpu.info->vendor == GpuVendor::kAmd;
}

namespace {
// The range of `r` (sorted by start, not nested: one per optimizer call) around host time t on
// thread tid, or -1: checks the last few that start at or before t.
int64_t TidRangeAt(const std::vector<TidRange>& r, TimeNs at, int64_t tid) {
  auto it = std::upper_bound(r.begin(), r.end(), at, [](TimeNs x, const TidRange& v) { return x < v.start_ns; });
  for (int n = 0; it != r.begin() && n < 8; ++n) {
    --it;
    if (at < it->end_ns && (tid < 0 || it->tid < 0 || it->tid == tid)) return it - r.begin();
  }
  return -1;
}
}  // namespace

int64_t Facts::OptimizerRangeAt(TimeNs at, int64_t tid) const { return TidRangeAt(ctx.host().optimizer_steps, at, tid); }

int64_t Facts::OptimizerRangeOfKernel(size_t i) const {
  const int64_t call = ctx.kernels().launch_call[i];
  if (call < 0) return -1;
  const ApiCall& a = t.api_calls[static_cast<size_t>(call)];
  return OptimizerRangeAt(a.start_ns, a.tid);
}

int64_t Facts::ZeroGradRangeOfKernel(size_t i) const {
  const int64_t call = ctx.kernels().launch_call[i];
  if (call < 0) return -1;
  const ApiCall& a = t.api_calls[static_cast<size_t>(call)];
  return TidRangeAt(ctx.host().zero_grad, a.start_ns, a.tid);
}

void Facts::BuildSteps() {
  steps.resize(ra.steps.steps.size());
  for (const TidRange& r : ctx.host().optimizer_steps) {
    const int64_t st = ctx.StepOfLaunch(r.start_ns);
    if (st >= 0) steps[static_cast<size_t>(st)].optimizer_ranges++;
  }
  for (const auto& [at, ki] : ctx.kernels().by_launch) {
    const int64_t st = ctx.StepOfLaunch(at);
    if (st < 0) continue;
    StepFacts& f = steps[static_cast<size_t>(st)];
    const KernelClass& c = cls(ki);
    if (c.role == KernelRole::kAmpUpdateScale) f.updates++;
    if (c.role == KernelRole::kAmpUnscale) f.unscales++;
    if (c.category == KernelCategory::kOptimizer) f.optimizer_category_kernels++;
    if (c.role == KernelRole::kOptimizerFused) f.fused_optimizer = true;
    const ApiCall& a = t.api_calls[static_cast<size_t>(ctx.kernels().launch_call.at(ki))];
    if (OptimizerRangeAt(at, a.tid) >= 0) {
      f.optimizer_kernels++;
      if (!c.multi_tensor_apply) f.per_param_optimizer_kernels++;
    }
  }
}

// Each GPU idle gap inside the steps (host_wait and other; HTA's kernel_wait gaps are the GPU's
// own launch latency) is split by what the host was doing (context.cc's AttributeGaps); the
// rules read the sums per cause. Then the host's own busy time, outside the sync points: the
// floor under the step time if the syncs were gone.
void Facts::BuildIdle() {
  const std::vector<Interval>& dataloader = ctx.host().dataloader;
  for (const GapCauses gc : ctx.gap_causes()) {
    const IdleGap& g = ctx.idle_gaps()[gc.gap];
    for (size_t c = 0; c < kIdleCauses; ++c) SatAccumulate(idle.ns[c], gc.ns[c]);
    // Idle at the start of a step: the GPU had nothing to do when the step began.
    const std::vector<StepWindow>& windows = ra.steps.steps;
    auto st = std::lower_bound(windows.begin(), windows.end(), g.start_ns,
                               [](const StepWindow& w, TimeNs x) { return w.start_ns < x; });
    for (; st != windows.end() && st->start_ns < g.end_ns; ++st) {
      const TimeNs len = g.end_ns - st->start_ns;
      TimeNs& idle_at_start = steps[static_cast<size_t>(st - windows.begin())].idle_at_start_ns;
      idle_at_start = SaturatingAdd(idle_at_start, len - std::min(len, OverlapNs(dataloader, st->start_ns, g.end_ns)));
    }
  }
  // Host activity: the context's (ops, runtime calls, DataLoader ranges, merged).
  const std::vector<Interval>& active = ctx.host().active;
  idle.host_active_known = !t.cpu_ops.empty() || !t.api_calls.empty();
  std::vector<Interval> pieces;
  for (const Interval& w : ctx.windows()) {
    auto it = std::upper_bound(active.begin(), active.end(), w.start_ns, [](TimeNs x, const Interval& iv) { return x < iv.end_ns; });
    for (; it != active.end() && it->start_ns < w.end_ns; ++it)
      pieces.push_back({std::max(w.start_ns, it->start_ns), std::min(w.end_ns, it->end_ns)});
  }
  CutOut(pieces, ctx.blocking());
  for (const Interval& p : pieces) idle.host_active_ns = SaturatingAdd(idle.host_active_ns, p.end_ns - p.start_ns);
}

// Where in a gap each cause's time lies (what a finding's time ranges show): the parts of the
// gap inside DataLoader ranges, pageable copies and allocator calls, in that order (as
// AttributeGaps cuts them), and what they leave for the cause that opened the gap. A sync's
// ranges are then the GPU idle after it, never the DataLoader range that followed.
void Facts::CausePieces(const IdleGap& g, const GapCauses& gc, IdleCause want, std::vector<Interval>& out) const {
  if (gc.ns[static_cast<size_t>(want)] <= 0) return;
  std::vector<Interval> rest = {{g.start_ns, g.end_ns}};
  const std::pair<IdleCause, const std::vector<Interval>*> cuts[] = {{IdleCause::kDataLoader, &ctx.host().dataloader},
                                                                     {IdleCause::kPageable, &ctx.host().pageable_h2d_calls},
                                                                     {IdleCause::kAlloc, &ctx.host().alloc_calls_merged}};
  for (const auto& cut : cuts) {
    std::vector<Interval> inside;
    for (const Interval& p : rest) {
      auto it = std::upper_bound(cut.second->begin(), cut.second->end(), p.start_ns,
                                 [](TimeNs x, const Interval& iv) { return x < iv.end_ns; });
      for (; it != cut.second->end() && it->start_ns < p.end_ns; ++it)
        inside.push_back({std::max(p.start_ns, it->start_ns), std::min(p.end_ns, it->end_ns)});
    }
    if (cut.first == want) {
      out.insert(out.end(), inside.begin(), inside.end());
      return;
    }
    CutOut(rest, *cut.second);
  }
  for (IdleCause c : {IdleCause::kSync, IdleCause::kScalerSync, IdleCause::kHost, IdleCause::kHostUntraced, IdleCause::kOther})
    if (c == want) out.insert(out.end(), rest.begin(), rest.end());
}

std::vector<std::pair<TimeNs, TimeNs>> Facts::TopRanges(IdleCause c, size_t n) const {
  std::vector<Interval> v;
  for (const GapCauses gc : ctx.gap_causes()) CausePieces(ctx.idle_gaps()[gc.gap], gc, c, v);
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.end_ns - a.start_ns > b.end_ns - b.start_ns; });
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (size_t i = 0; i < v.size() && i < n; ++i) out.emplace_back(v[i].start_ns, v[i].end_ns);
  std::sort(out.begin(), out.end());
  return out;
}

FieldList Facts::CausesJson() const {
  FieldList c;
  for (size_t i = 0; i < kIdleCauses; ++i)
    c.push_back({IdleCauseName(static_cast<IdleCause>(i)), Round(PctOfWindow(static_cast<double>(idle.ns[i]))), Unit::kPct});
  return c;
}

TimeNs Facts::KernelNs(const std::function<bool(size_t)>& pick) const {
  TimeNs ns = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i)
    if (InWindow(i) && pick(i)) ns = SaturatingAdd(ns, t.kernels[i].duration_ns());
  return ns;
}

std::vector<KernelTime> Facts::TopKernels(const std::function<bool(size_t)>& pick, size_t n) const {
  struct Agg {
    uint64_t count = 0;
    TimeNs ns = 0;
  };
  std::unordered_map<StringId, Agg> agg;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!InWindow(i) || !pick(i)) continue;
    Agg& a = agg[t.kernels[i].name];
    a.count++;
    a.ns = SaturatingAdd(a.ns, t.kernels[i].duration_ns());
  }
  std::vector<std::pair<StringId, Agg>> v(agg.begin(), agg.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  std::vector<KernelTime> out;
  for (size_t i = 0; i < v.size() && i < n; ++i)
    out.push_back({ShortName(t.str(v[i].first), 160), static_cast<int64_t>(v[i].second.count), NsToUsRounded3(v[i].second.ns)});
  return out;
}

std::string Facts::KernelList(const std::vector<KernelTime>& top, size_t n) const {
  std::string s;
  for (size_t i = 0; i < top.size() && i < n; ++i) {
    if (i) s += ", ";
    s += ShortName(top[i].name, 70) + fmt::format(" ({:.1f} ms)", top[i].time_us / 1e3);
  }
  return s;
}

double Facts::SimtToTcRatio(std::string* basis) const {
  if (gpu.peak != nullptr && gpu.peak->fp16_tflops > 0) {
    *basis = fmt::format("{} peaks: fp32 {} / fp16 Tensor Core {} TFLOP/s", gpu.peak->id, gpu.peak->fp32_tflops, gpu.peak->fp16_tflops);
    return gpu.peak->fp32_tflops / gpu.peak->fp16_tflops;
  }
  double worst = 0;
  std::string id;
  for (const GpuPeak& p : gpu.table) {
    if (p.fp16_tflops <= 0) continue;
    if (p.fp32_tflops / p.fp16_tflops > worst) {
      worst = p.fp32_tflops / p.fp16_tflops;
      id = p.id;
    }
  }
  *basis = "GPU not in the peak table: the most conservative ratio in it (" + id + ")";
  return worst;
}

double Facts::TcKernelPct() const {
  if (ra.tensor_cores.kernel_time_pct) return *ra.tensor_cores.kernel_time_pct;
  const TimeNs tcns = KernelNs([&](size_t i) { return cls(i).tensor_core == TensorCoreUse::kYes; });
  return kernel_total_ns > 0 ? 100.0 * static_cast<double>(tcns) / static_cast<double>(kernel_total_ns) : 0.0;
}

const OpLevelPrecision* Facts::OpLevel() const {
  const OpLevelPrecision& o = ra.precision.op_level;
  return ra.precision.computed && o.available ? &o : nullptr;
}

// ---------------------------------------------------------------------------------------

std::string Facts::WhenText(TimeNs t) const {
  const int64_t i = ctx.StepAt(t);
  if (i >= 0) {
    const StepWindow& w = ctx.steps().steps[static_cast<size_t>(i)];
    return fmt::format("in step {} at +{:.3f} ms", w.number, Ms(t - w.start_ns));
  }
  const TimeNs origin = ctx.windows().empty() ? ctx.steps().window_start_ns : ctx.windows().front().start_ns;
  return t >= origin ? fmt::format("at +{:.3f} ms into the analysed window", Ms(t - origin))
                     : fmt::format("{:.3f} ms before the analysed window", Ms(origin - t));
}

FindingSeverity FindingSink::SeverityOf(std::string_view id, double saving_pct, bool condition) {
  const CatalogEntry& e = CatalogEntryOf(id);
  FindingSeverity sev = SeverityForSaving(saving_pct);
  switch (e.severity) {
    case SeverityRule::kBySaving: break;
    case SeverityRule::kAtLeastWarning: sev = std::max(sev, FindingSeverity::kWarning); break;
    case SeverityRule::kWarningWhen: if (condition) sev = std::max(sev, FindingSeverity::kWarning); break;
    case SeverityRule::kInfo: sev = FindingSeverity::kInfo; break;
    case SeverityRule::kProfileWarning: return std::max(sev, FindingSeverity::kWarning);
  }
  // A warning or critical finding carries a saving: without a time estimate (a risk, or a
  // saving that rounds to 0) a finding is advice, and ranks by its saving like the others. A
  // finding that the profile itself misleads (kProfileWarning) stays a warning: its fix is a
  // better profile, not time.
  risks_.erase(std::remove(risks_.begin(), risks_.end(), e.id), risks_.end());
  if (Round(std::max(0.0, saving_pct), 2) <= 0 && sev != FindingSeverity::kInfo) {
    sev = FindingSeverity::kInfo;
    risks_.emplace_back(e.id);
  }
  return sev;
}

Finding& FindingSink::Add(std::string_view id, double saving_pct, std::string title, std::string recommendation,
                          bool condition) {
  const CatalogEntry& e = CatalogEntryOf(id);
  Finding x;
  x.id = std::string(e.id);
  x.dimension = std::string(e.dimension);
  x.checklist = std::string(e.checklist);
  x.severity = SeverityOf(id, saving_pct, condition);
  x.est_saving_pct = Round(std::max(0.0, saving_pct), 2);
  x.title = std::move(title);
  x.recommendation = std::move(recommendation);
  findings_.push_back(std::move(x));
  conditions_.resize(findings_.size() - 1, 1);
  conditions_.push_back(condition ? 1 : 0);
  return findings_.back();
}

void FindingSink::Fix(const Finding& f, graph::Transform transform, SavingGate gate) {
  const size_t i = static_cast<size_t>(&f - findings_.data());
  AMPSCOPE_CHECK(i < findings_.size());
  fixes_.push_back({i, std::move(transform), gate});
}

void FindingSink::SetSaving(size_t finding, double saving_pct) {
  Finding& f = findings_[finding];
  const bool condition = finding < conditions_.size() ? conditions_[finding] != 0 : true;
  f.est_saving_pct = Round(std::max(0.0, saving_pct), 2);
  f.severity = SeverityOf(f.id, f.est_saving_pct, condition);
}

void FindingSink::Drop(const std::vector<uint8_t>& drop) {
  std::vector<Finding> kept;
  std::vector<uint8_t> conditions;
  std::vector<size_t> new_index(findings_.size(), SIZE_MAX);
  for (size_t i = 0; i < findings_.size(); ++i) {
    if (i < drop.size() && drop[i]) {
      risks_.erase(std::remove(risks_.begin(), risks_.end(), findings_[i].id), risks_.end());
      continue;
    }
    new_index[i] = kept.size();
    kept.push_back(std::move(findings_[i]));
    conditions.push_back(i < conditions_.size() ? conditions_[i] : 1);
  }
  findings_ = std::move(kept);
  conditions_ = std::move(conditions);
  std::vector<FindingFix> fixes;
  for (FindingFix& f : fixes_) {
    if (new_index[f.finding] == SIZE_MAX) continue;
    f.finding = new_index[f.finding];
    fixes.push_back(std::move(f));
  }
  fixes_ = std::move(fixes);
}

bool FindingSink::IsRisk(std::string_view id) const {
  return std::find(risks_.begin(), risks_.end(), id) != risks_.end();
}

ChecklistItem& FindingSink::Item(std::string_view id) {
  for (ChecklistItem& c : checklist_)
    if (c.id == id) return c;
  checklist_.push_back({});
  checklist_.back().id = std::string(id);
  return checklist_.back();
}

bool FindingSink::HasFinding(std::string_view checklist) const {
  for (const Finding& f : findings_)
    if (f.checklist == checklist) return true;
  return false;
}

FindingSeverity FindingSink::WorstSeverity(std::string_view checklist) const {
  FindingSeverity w = FindingSeverity::kInfo;
  for (const Finding& f : findings_) {
    if (f.checklist != checklist) continue;
    // A risk counts as the warning its rule rated it (IsRisk): its item fails.
    const FindingSeverity s = IsRisk(f.id) ? std::max(f.severity, FindingSeverity::kWarning) : f.severity;
    w = std::max(w, s);
  }
  return w;
}

}  // namespace ampscope::diagnosis
