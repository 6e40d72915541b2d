// The matrix, the checklist and the findings. See diagnosis.h and docs/findings.md.
//
// Structure: a Diagnoser builds shared facts once (windows, kernel classes, merged GPU busy,
// idle gaps and the host activity behind each of them, sync points, optimizer ranges), then
// each rule family adds findings and fills its checklist item; the matrix is assembled last
// from headline metrics and the findings attached to each dimension.
#include "analyzers/diagnosis.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/analyze.h"
#include "analyzers/gpu_peaks.h"
#include "base/saturating.h"
#include "base/units.h"
#include "base/strings.h"
#include "trace/classify/api_roles.h"
#include "analyzers/roofline/roofline_findings.h"
#include "trace/classify/host_roles.h"

namespace ampscope {
namespace {

using namespace diagnosis;

// ---------------------------------------------------------------------------------------
// The catalogue: every finding id, in the order used to break ranking ties.

enum class Fid {
  kAmpNotInUse,
  kHostSync,
  kDataLoader,
  kIdleAtStepStart,
  kExposedComm,
  kLaunchBound,
  kFp32Gemm,
  kLowGemmTflops,
  kAttentionNotFlash,
  kUnfusedChains,
  kUnfusedOptimizer,
  kLayoutTransforms,
  kPageableH2D,
  kAllocChurn,
  kScalerInitScale,
  kScalerSkips,
  kFp16NoScaler,
  kLossLowPrecision,
  kScalerWithBf16,
  kCastOverhead,
  kMemoryPeak,
  kFragmentation,
  kCommHeavy,
  kLowUtilization,
  kStraggler,  // cross-rank: raised by analyzers/collectives.cc on the job, listed here for its place in ties
  kCount
};

struct CatalogEntry {
  Fid fid;
  const char* id;
  const char* dimension;
  const char* checklist;
};
constexpr CatalogEntry kCatalog[] = {
    {Fid::kAmpNotInUse, "amp_not_in_use", "compute_intensity", "tensor_core_utilization"},
    {Fid::kHostSync, "host_device_sync", "task_parallelism", ""},
    {Fid::kDataLoader, "dataloader_bottleneck", "task_parallelism", "data_pipeline"},
    {Fid::kIdleAtStepStart, "gpu_idle_at_step_start", "task_parallelism", "data_pipeline"},
    {Fid::kExposedComm, "exposed_communication", "task_parallelism", "distributed_sync"},
    {Fid::kLaunchBound, "launch_bound", "instruction_efficiency", ""},
    {Fid::kFp32Gemm, "fp32_gemm_outside_autocast", "compute_intensity", "autocast_coverage"},
    {Fid::kLowGemmTflops, "low_gemm_tflops", "compute_intensity", "tensor_core_utilization"},
    {Fid::kAttentionNotFlash, "attention_not_flash", "memory_bandwidth", ""},
    {Fid::kUnfusedChains, "unfused_elementwise_chains", "memory_bandwidth", "kernel_fusion"},
    {Fid::kUnfusedOptimizer, "unfused_optimizer", "instruction_efficiency", "kernel_fusion"},
    {Fid::kLayoutTransforms, "layout_transforms", "data_locality", ""},
    {Fid::kPageableH2D, "pageable_h2d_copies", "memory_bandwidth", "data_pipeline"},
    {Fid::kAllocChurn, "allocation_churn", "data_locality", "memory_fragmentation"},
    {Fid::kScalerInitScale, "grad_scaler_init_scale_too_high", "compute_intensity", "grad_scaler"},
    {Fid::kScalerSkips, "grad_scaler_skipped_steps", "compute_intensity", "grad_scaler"},
    {Fid::kFp16NoScaler, "fp16_without_grad_scaler", "", "grad_scaler"},
    {Fid::kLossLowPrecision, "loss_or_norm_in_low_precision", "", "autocast_coverage"},
    {Fid::kScalerWithBf16, "grad_scaler_with_bf16", "", "grad_scaler"},
    {Fid::kCastOverhead, "cast_overhead", "memory_bandwidth", "autocast_coverage"},
    {Fid::kMemoryPeak, "memory_peak_near_capacity", "data_locality", "memory_fragmentation"},
    {Fid::kFragmentation, "allocator_fragmentation", "data_locality", "memory_fragmentation"},
    {Fid::kCommHeavy, "communication_heavy", "task_parallelism", "distributed_sync"},
    {Fid::kLowUtilization, "low_gpu_utilization", "task_parallelism", ""},
    {Fid::kStraggler, "straggler", "task_parallelism", "distributed_sync"},
};
static_assert(sizeof(kCatalog) / sizeof(kCatalog[0]) == static_cast<size_t>(Fid::kCount), "catalogue incomplete");

const CatalogEntry& Cat(Fid f) { return kCatalog[static_cast<size_t>(f)]; }

int CatalogOrder(const std::string& id) {
  for (size_t i = 0; i < static_cast<size_t>(Fid::kCount); ++i)
    if (id == kCatalog[i].id) return static_cast<int>(i);
  return static_cast<int>(Fid::kCount);
}

const char* kDimensions[] = {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality",
                             "task_parallelism"};
const char* kChecklist[] = {"tensor_core_utilization", "autocast_coverage", "grad_scaler", "kernel_fusion",
                            "data_pipeline", "distributed_sync", "memory_fragmentation"};

FindingSeverity SeverityForSaving(double pct) {
  if (pct >= kCriticalSavingPct) return FindingSeverity::kCritical;
  if (pct >= kWarningSavingPct) return FindingSeverity::kWarning;
  return FindingSeverity::kInfo;
}

double Round(double v, int digits = 2) {
  const double p = std::pow(10.0, digits);
  return std::round(v * p) / p;
}
double Ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

// precision.cc's full-precision op groups (`fp32_ops_top`) as evidence records.
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

// The unit of each checklist item's value (what the rules below put in ChecklistItem::value).
Unit ChecklistValueUnit(std::string_view id) {
  if (id == "tensor_core_utilization") return Unit::kPctOfKernelTime;
  if (id == "autocast_coverage") return Unit::kPctFp32;
  if (id == "grad_scaler") return Unit::kPctStepsSkipped;
  if (id == "memory_fragmentation") return Unit::kCallsPerStep;
  return Unit::kPctOfStep;  // kernel_fusion, data_pipeline, distributed_sync: est. cost / share of the step
}


// Length of `iv` covered by `merged` (sorted, disjoint).
TimeNs Covered(const std::vector<Interval>& merged, TimeNs s, TimeNs e) { return OverlapNs(merged, s, e); }


// Categories whose kernels are bound by memory bandwidth (MB-01).
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
// Kernels a fused kernel (torch.compile / a fused op) would merge into one pass (CK-FU).
bool IsFusable(KernelCategory c) {
  return c == KernelCategory::kElementwise || c == KernelCategory::kCast || c == KernelCategory::kReduction;
}
bool IsMatmulClass(KernelCategory c) {
  return c == KernelCategory::kGemm || c == KernelCategory::kConv || c == KernelCategory::kAttention;
}

// Causes of GPU idle time, in attribution order (analyzers/context.cc's AttributeGaps).
using Cause = IdleCause;
constexpr size_t kCauses = kIdleCauses;
const char* CauseName(Cause c) { return IdleCauseName(c); }

// Sync points are the context's (the one definition, analyzers/context.cc).
using SyncPointInfo = SyncPoint;

struct StepFacts {
  TimeNs start_ns = 0, end_ns = 0, cpu_start_ns = 0, cpu_end_ns = 0;
  int64_t number = -1;
  int updates = 0, unscales = 0;
  int optimizer_ranges = 0;
  int optimizer_kernels = 0;        // launched inside Optimizer.step ranges
  int optimizer_category_kernels = 0;  // any multi_tensor_apply optimizer kernel in the step
  int per_param_optimizer_kernels = 0; // optimizer-range kernels that are not multi_tensor_apply
  bool fused_optimizer = false;
  bool skipped = false;
  TimeNs idle_at_start_ns = 0;
  TimeNs gpu_busy_ns = 0;
};

class Diagnoser {
 public:
  Diagnoser(const RankContext& c, RankAnalysis& ra)
      : ctx_(c),
        t_(c.trace()),
        o_(c.options()),
        ra_(ra),
        windows_(c.windows()),
        kclass_(c),
        in_window_(c.kernels().in_window),
        busy_(c.busy().main),
        comm_(c.busy().comm),
        compute_(c.busy().compute),
        kernel_launch_(c.kernels().by_launch),
        launch_of_(c.kernels().launch_call),
        dataloader_(c.host().dataloader),
        dataloader_names_(c.host().dataloader_names),
        optimizer_names_(c.host().optimizer_names),
        optimizer_ranges_(c.host().optimizer_steps),
        sync_points_(c.sync_points()),
        blocking_(c.blocking()),
        gaps_(c.idle_gaps()),
        alloc_calls_(c.host().alloc_calls) {}

  void Run() {
    Prepare();
    ComputeGapAttribution();
    ComputeHostActive();
    RuleTensorCores();
    RuleAutocast();
    RuleGemmEfficiency();
    RuleAttention();
    RuleGradScaler();
    RuleFusion();
    RuleMemoryBound();
    RuleDataPipeline();
    RuleSyncs();
    RuleDistributed();
    RuleLaunchAndUtilization();
    RuleMemory();
    BuildMatrix();
    Rank();
  }

 private:
  // ---- shared facts -----------------------------------------------------------------
  void Prepare() {
    window_ns_ = ctx_.window_ns();
    nsteps_ = std::max<size_t>(1, ra_.steps.steps.size());
    device_ = ctx_.busy().main_device;
    device_ptr_ = ctx_.busy().main_device_info;
    const std::string gpu_name = !o_.gpu_override.empty() ? o_.gpu_override : (device_ptr_ ? device_ptr_->name : "");
    if (!o_.gpu_peaks_path.empty()) {
      auto loaded = LoadGpuPeaksTsv(o_.gpu_peaks_path);
      if (loaded.ok()) custom_peaks_ = std::move(loaded).value();
    }
    if (!gpu_name.empty()) {
      // Exact match; the device's SM count and memory tell same-named parts apart (gpu_peaks.h).
      GpuQuery q;
      q.name = gpu_name;
      if (o_.gpu_override.empty() && device_ptr_ != nullptr) {
        q.sm_count = device_ptr_->sm_count;
        q.memory_bytes = device_ptr_->total_memory_bytes;
      }
      peak_ = MatchGpu(q, custom_peaks_.empty() ? BuiltinGpuPeaks() : custom_peaks_).peak;
    }
    amd_ = device_ptr_ != nullptr && device_ptr_->vendor == GpuVendor::kAmd;
    kernel_total_ns_ = ctx_.kernels().in_window_ns;
    rocm_ns_ = ctx_.kernels().rocm_in_window_ns;
    busy_in_windows_ns_ = ctx_.busy().main_in_windows_ns;
    BuildSteps();
  }

  bool InWindows(TimeNs t) const { return ctx_.InWindows(t); }
  // Index of the step whose CPU range contains host time t (the step that launched work at t).
  int64_t StepOfLaunch(TimeNs t) const { return ctx_.StepOfLaunch(t); }

  int64_t OptimizerRangeAt(TimeNs t, int64_t tid) const {
    // Ranges are sorted by start and do not nest (one per optimizer step): check the last few
    // that start at or before t.
    auto it = std::upper_bound(optimizer_ranges_.begin(), optimizer_ranges_.end(), t,
                               [](TimeNs x, const TidRange& r) { return x < r.start_ns; });
    for (int n = 0; it != optimizer_ranges_.begin() && n < 8; ++n) {
      --it;
      if (t < it->end_ns && (tid < 0 || it->tid < 0 || it->tid == tid)) return it - optimizer_ranges_.begin();
    }
    return -1;
  }

  // The op that launched kernel i (its op-tree node, or the nearest cpu_op above it).
  int64_t OpOfKernel(size_t i) const { return ctx_.CpuOpOfKernel(i); }

  void BuildSteps() {
    const auto& s = ra_.steps.steps;
    steps_.resize(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      steps_[i].start_ns = s[i].start_ns;
      steps_[i].end_ns = s[i].end_ns;
      steps_[i].cpu_start_ns = s[i].cpu_start_ns;
      steps_[i].cpu_end_ns = s[i].cpu_end_ns;
      steps_[i].number = s[i].number;
      steps_[i].gpu_busy_ns = Covered(busy_, s[i].start_ns, s[i].end_ns);
    }
    for (const TidRange& r : optimizer_ranges_) {
      const int64_t st = StepOfLaunch(r.start_ns);
      if (st >= 0) steps_[st].optimizer_ranges++;
    }
    for (const auto& [t, ki] : kernel_launch_) {
      const int64_t st = StepOfLaunch(t);
      if (st < 0) continue;
      StepFacts& f = steps_[static_cast<size_t>(st)];
      const KernelClass& c = kclass_[ki];
      if (c.role == KernelRole::kAmpUpdateScale) f.updates++;
      if (c.role == KernelRole::kAmpUnscale) f.unscales++;
      if (c.category == KernelCategory::kOptimizer) f.optimizer_category_kernels++;
      if (c.role == KernelRole::kOptimizerFused) f.fused_optimizer = true;
      const ApiCall& a = t_.api_calls[static_cast<size_t>(launch_of_.at(ki))];
      if (OptimizerRangeAt(t, a.tid) >= 0) {
        f.optimizer_kernels++;
        if (!c.multi_tensor_apply) f.per_param_optimizer_kernels++;
      }
    }
  }

  // ---- idle attribution ---------------------------------------------------------------
  // Each GPU idle gap inside the steps (host_wait and other; HTA's kernel_wait gaps are the
  // GPU's own launch latency) is split by what the host was doing: DataLoader ranges,
  // pageable copies and allocator calls take the time they overlap; the rest goes to what
  // opened the gap - a sync call that was waiting when the GPU ran dry (host_sync or
  // grad_scaler_sync), a cudaFree, or else the host simply not launching fast enough.
  void ComputeGapAttribution() {
    for (const GapCauses& gc : ctx_.gap_causes()) {
      const IdleGap& g = gaps_[gc.gap];
      const std::array<TimeNs, kCauses>& part = gc.ns;
      for (size_t c = 0; c < kCauses; ++c) {
        SatAccumulate(cause_ns_[c], part[c]);
        if (part[c] > 0) cause_gaps_[c].push_back({g.start_ns, g.end_ns});
      }
      // Idle at the start of a step: the GPU had nothing to do when the step began.
      auto st = std::lower_bound(steps_.begin(), steps_.end(), g.start_ns,
                                 [](const StepFacts& f, TimeNs x) { return f.start_ns < x; });
      for (; st != steps_.end() && st->start_ns < g.end_ns; ++st) {
        st->idle_at_start_ns = SaturatingAdd(st->idle_at_start_ns, g.end_ns - st->start_ns - std::min(g.end_ns - st->start_ns, Covered(dataloader_, st->start_ns, g.end_ns)));
      }
    }
  }

  // Host time per step that does not wait on the GPU: cpu_ops, runtime calls and DataLoader
  // ranges (all threads), minus the sync points. What the host would still have to do if the
  // syncs were gone: the floor under the step time.
  void ComputeHostActive() {
    std::vector<Interval> active;
    for (const CpuOp& op : t_.cpu_ops) active.push_back({op.start_ns, op.end_ns});
    for (const ApiCall& a : t_.api_calls) active.push_back({a.start_ns, a.end_ns});
    for (const Interval& d : dataloader_) active.push_back(d);
    active = MergeIntervals(std::move(active));
    host_active_known_ = !t_.cpu_ops.empty() || !t_.api_calls.empty();
    std::vector<Interval> pieces;
    for (const Interval& w : windows_) {
      auto it = std::upper_bound(active.begin(), active.end(), w.start_ns, [](TimeNs x, const Interval& iv) { return x < iv.end_ns; });
      for (; it != active.end() && it->start_ns < w.end_ns; ++it)
        pieces.push_back({std::max(w.start_ns, it->start_ns), std::min(w.end_ns, it->end_ns)});
    }
    CutOut(pieces, blocking_);
    for (const Interval& p : pieces) host_active_ns_ = SaturatingAdd(host_active_ns_, p.end_ns - p.start_ns);
  }

  double PctOfWindow(double ns) const { return window_ns_ > 0 ? 100.0 * ns / static_cast<double>(window_ns_) : 0.0; }
  double CausePct(Cause c) const { return PctOfWindow(static_cast<double>(cause_ns_[static_cast<size_t>(c)])); }

  std::vector<std::pair<TimeNs, TimeNs>> TopRanges(Cause c, size_t n = 8) const {
    std::vector<Interval> v = cause_gaps_[static_cast<size_t>(c)];
    std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.end_ns - a.start_ns > b.end_ns - b.start_ns; });
    std::vector<std::pair<TimeNs, TimeNs>> out;
    for (size_t i = 0; i < v.size() && i < n; ++i) out.emplace_back(v[i].start_ns, v[i].end_ns);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<TimeSpan> RangesJson(const std::vector<std::pair<TimeNs, TimeNs>>& r) const {
    std::vector<TimeSpan> a;
    for (const auto& [s, e] : r) a.push_back({NsToUsRounded3(s), NsToUsRounded3(e), NsToUsRounded3(e - s)});
    return a;
  }

  // ---- findings and checklist plumbing -------------------------------------------------
  Finding& Add(Fid f, FindingSeverity sev, double saving_pct, std::string title, std::string recommendation) {
    Finding x;
    x.id = Cat(f).id;
    x.dimension = Cat(f).dimension;
    x.checklist = Cat(f).checklist;
    x.severity = sev;
    x.est_saving_pct = Round(std::max(0.0, saving_pct), 2);
    x.title = std::move(title);
    x.recommendation = std::move(recommendation);
    ra_.findings.push_back(std::move(x));
    return ra_.findings.back();
  }

  ChecklistItem& Item(const char* id) {
    for (ChecklistItem& c : checklist_)
      if (c.id == id) return c;
    checklist_.push_back({});
    checklist_.back().id = id;
    return checklist_.back();
  }

  double TcKernelPct() const {
    if (ra_.tensor_cores.kernel_time_pct) return *ra_.tensor_cores.kernel_time_pct;
    TimeNs tcns = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i)
      if (in_window_[i] && kclass_[i].tensor_core == TensorCoreUse::kYes) tcns = SaturatingAdd(tcns, t_.kernels[i].duration_ns());
    return kernel_total_ns_ > 0 ? 100.0 * static_cast<double>(tcns) / static_cast<double>(kernel_total_ns_) : 0.0;
  }
  std::optional<double> TcActivePct() const {
    return ra_.tensor_cores.active_pct;
  }
  const OpLevelPrecision* OpLevel() const {
    const OpLevelPrecision& o = ra_.precision.op_level;
    return ra_.precision.computed && o.available ? &o : nullptr;
  }
  // Peak ratio fp32 SIMT / fp16 Tensor Core of this GPU (what moving fp32 math to Tensor
  // Cores can gain at best). Unknown GPU: the most conservative ratio in the table.
  double SimtToTcRatio(std::string* basis) const {
    if (peak_ != nullptr && peak_->fp16_tflops > 0) {
      *basis = fmt::format("{} peaks: fp32 {} / fp16 Tensor Core {} TFLOP/s", peak_->id, peak_->fp32_tflops, peak_->fp16_tflops);
      return peak_->fp32_tflops / peak_->fp16_tflops;
    }
    double worst = 0;
    std::string id;
    for (const GpuPeak& p : BuiltinGpuPeaks()) {
      if (p.fp32_tflops / p.fp16_tflops > worst) {
        worst = p.fp32_tflops / p.fp16_tflops;
        id = p.id;
      }
    }
    *basis = "GPU not in the peak table: the most conservative ratio in it (" + id + ")";
    return worst;
  }

  struct KernelAgg {
    std::string name;
    uint64_t count = 0;
    TimeNs ns = 0;
  };
  std::vector<KernelTime> TopKernels(const std::function<bool(size_t)>& pick, size_t n = 5) const {
    std::unordered_map<StringId, KernelAgg> agg;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i] || !pick(i)) continue;
      KernelAgg& a = agg[t_.kernels[i].name];
      a.count++;
      a.ns = SaturatingAdd(a.ns, t_.kernels[i].duration_ns());
    }
    std::vector<std::pair<StringId, KernelAgg>> v(agg.begin(), agg.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::vector<KernelTime> out;
    for (size_t i = 0; i < v.size() && i < n; ++i)
      out.push_back({ShortName(t_.str(v[i].first), 160), static_cast<int64_t>(v[i].second.count), NsToUsRounded3(v[i].second.ns)});
    return out;
  }
  std::string KernelList(const std::vector<KernelTime>& top, size_t n = 3) const {
    std::string s;
    for (size_t i = 0; i < top.size() && i < n; ++i) {
      if (i) s += ", ";
      s += ShortName(top[i].name, 70) + fmt::format(" ({:.1f} ms)", top[i].time_us / 1e3);
    }
    return s;
  }

  // ---- compute intensity / Tensor Cores -----------------------------------------------
  void RuleTensorCores() {
    ChecklistItem& item = Item("tensor_core_utilization");
    item.threshold = fmt::format(">= {:.0f}% of kernel time on Tensor Cores", kTensorCorePassPct);
    item.source = "[proj] checklist; Tensor Core kernels by name (trace/kernel_classifier), [kineto] tc_ratio";
    tc_pct_ = TcKernelPct();
    if (kernel_total_ns_ == 0) {
      item.status = CheckStatus::kUnknown;
      item.evidence = "no GPU kernels in the analysed steps";
      item.how_to_know = "profile with CUDA activities enabled (torch.profiler activities=[CPU, CUDA]) or record with ampscope record";
      return;
    }
    if (amd_ || (rocm_ns_ > kernel_total_ns_ / 2)) {
      item.status = CheckStatus::kUnknown;
      item.evidence = "an AMD (ROCm) trace: kernel names do not tell NVIDIA Tensor Core use";
      item.how_to_know = "analyse a trace from an NVIDIA GPU";
      return;
    }
    const int cc = device_ptr_ ? device_ptr_->cc_major : -1;
    item.value = Round(tc_pct_);
    const std::optional<double> active = TcActivePct();
    // Matmul-class work (GEMM, conv, attention) by precision. AMP is in use when some of it runs
    // in fp16/bf16 (or fp8/int8); what is left in fp32/tf32 is what AMP would speed up.
    std::string basis;
    const double simt_ratio = SimtToTcRatio(&basis);
    const double tf32_ratio = peak_ != nullptr && peak_->tf32_tflops > 0 ? peak_->tf32_tflops / peak_->fp16_tflops : 0.5;
    TimeNs matmul = 0, lowp_matmul = 0;
    double full_matmul_saving = 0;  // ns AMP would save on the fp32/tf32 matmul kernels
    TimeNs full_matmul = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i] || !IsMatmulClass(kclass_[i].category)) continue;
      const TimeNs d = t_.kernels[i].duration_ns();
      matmul = SaturatingAdd(matmul, d);
      const Precision p = kclass_[i].precision;
      if (p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8 || p == Precision::kInt8) {
        lowp_matmul = SaturatingAdd(lowp_matmul, d);
        continue;
      }
      full_matmul = SaturatingAdd(full_matmul, d);
      const bool tc = kclass_[i].tensor_core == TensorCoreUse::kYes || p == Precision::kTf32;
      full_matmul_saving += static_cast<double>(d) * (1.0 - (tc ? tf32_ratio : simt_ratio));
    }
    const TimeNs non_tc_matmul = full_matmul;
    const OpLevelPrecision* op = OpLevel();
    double eligible_pct = matmul > 0 ? 100.0 * static_cast<double>(matmul) / static_cast<double>(kernel_total_ns_) : 0.0;
    TimeNs eligible_ns = non_tc_matmul;
    std::string eligible_basis = "GEMM/conv/attention kernels not on Tensor Cores";
    if (op != nullptr && op->eligible_kernel_time_pct.value_or(0.0) > 0) {
      eligible_pct = *op->eligible_kernel_time_pct;
      const TimeNs op_eligible = static_cast<TimeNs>(op->eligible_kernel_time_us * 1e3);
      if (lowp_matmul * 100 < matmul * static_cast<TimeNs>(kAmpNotInUseTcPct) && op_eligible > eligible_ns) {
        eligible_ns = op_eligible;
        eligible_basis = "kernel time of bottom-most Tensor-Core-eligible ops ([kineto] tc_eligible_ops_kernel_ratio)";
      }
    }
    std::string ev = fmt::format("{:.1f}% of kernel time in Tensor Core kernels", tc_pct_);
    if (active) ev += fmt::format("; sampled Tensor Active {:.1f}%", *active);
    ev += fmt::format("; Tensor-Core-eligible work {:.1f}% of kernel time", eligible_pct);
    if (cc >= 0) ev += fmt::format("; compute capability {}.{}", cc, device_ptr_->cc_minor);
    if (cc >= 0 && cc < 7) {
      item.status = CheckStatus::kNotApplicable;
      item.evidence = ev + " (no Tensor Cores before Volta, cc 7.0)";
      return;
    }
    // [kineto] "tc_used_ratio == 0 and eligible > 0", generalised: no (< 1%) low-precision
    // matmul work although eligible work exists (an fp32 run on Ampere may still touch Tensor
    // Cores through TF32 or fp32 attention).
    const double lowp_pct = matmul > 0 ? 100.0 * static_cast<double>(lowp_matmul) / static_cast<double>(matmul) : 0.0;
    amp_not_in_use_ = lowp_pct < kAmpNotInUseTcPct && eligible_pct > 0 && eligible_ns > 0;
    if (amp_not_in_use_) {
      const double ratio = simt_ratio;
      // The plugin's eligible-op time (all kernels of eligible ops) at the SIMT ratio when it
      // is the larger measure, else the matmul kernels at their own precision's ratio.
      const double saving_ns = eligible_ns > full_matmul ? static_cast<double>(eligible_ns) * (1.0 - ratio) : full_matmul_saving;
      const double pct = PctOfWindow(saving_ns);
      std::vector<KernelTime> top = TopKernels([&](size_t i) { return IsMatmulClass(kclass_[i].category); });
      Finding& f = Add(Fid::kAmpNotInUse, std::max(FindingSeverity::kWarning, SeverityForSaving(pct)), pct,
                       "AMP not in use: no fp16/bf16 matmul work although Tensor-Core-eligible ops run",
                       fmt::format("Kernels with {:.0f}% of op kernel time are launched by Tensor-Core-eligible ops but none runs "
                                   "in fp16/bf16 (top: {}). Wrap the forward pass and loss in "
                                   "torch.autocast(device_type='cuda', dtype=torch.bfloat16 or torch.float16) and use "
                                   "torch.amp.GradScaler for fp16{}.",
                                   eligible_pct, KernelList(top),
                                   (peak_ && peak_->tf32_tflops > 0) ? "; at least allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, "
                                                                       "torch.backends.cudnn.allow_tf32 = True)"
                                                                     : ""));
      f.evidence = {{"tensor_core_kernel_time_pct", Round(tc_pct_), Unit::kPct},
                    {"low_precision_matmul_pct", Round(lowp_pct), Unit::kPct},
                    {"eligible_kernel_time_pct", Round(eligible_pct), Unit::kPct},
                    {"eligible_kernel_time_us", NsToUsRounded3(eligible_ns), Unit::kUs},
                    {"eligible_basis", eligible_basis},
                    {"top_kernels", top},
                    {"estimate", fmt::format("fp32/tf32 matmul time x (1 - its peak / fp16-TC peak: SIMT {:.3f}, TF32 {:.3f}), or the "
                                             "eligible-op time x (1 - {:.3f}) when larger; {}",
                                             simt_ratio, tf32_ratio, ratio, basis)}};
      item.status = CheckStatus::kFail;
      item.evidence = ev + "; AMP not in use";
      return;
    }
    item.status = tc_pct_ >= kTensorCorePassPct ? CheckStatus::kPass : tc_pct_ >= kTensorCoreFailPct ? CheckStatus::kWarn : CheckStatus::kFail;
    item.evidence = ev;
  }

  // ---- autocast coverage -------------------------------------------------------------
  void RuleAutocast() {
    ChecklistItem& item = Item("autocast_coverage");
    item.threshold = fmt::format("fp32 share of Tensor-Core-eligible op time < {:.0f}% (warn >= {:.0f}%), no fp32 SIMT GEMM share >= {:.0f}%, "
                                 "loss/norm ops in fp32",
                                 kAutocastFp32FailPct, kAutocastFp32WarnPct, kFp32SimtGemmSharePct);
    item.source = "[heur] CK-AC / CI-03 (docs/findings.md); autocast op lists (aten/src/ATen/autocast_mode.h)";
    if (kernel_total_ns_ == 0) {
      item.status = CheckStatus::kUnknown;
      item.evidence = "no GPU kernels in the analysed steps";
      item.how_to_know = "profile with CUDA activities enabled";
      return;
    }
    if (amp_not_in_use_) {
      item.status = CheckStatus::kFail;
      item.value = 0;
      item.evidence = "AMP not in use: no Tensor-Core-eligible op runs in fp16/bf16";
      return;
    }
    // Kernel view: fp32 SIMT GEMMs/convs.
    TimeNs simt = 0, gemm = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i]) continue;
      if (kclass_[i].category == KernelCategory::kGemm || kclass_[i].category == KernelCategory::kConv) {
        gemm = SaturatingAdd(gemm, t_.kernels[i].duration_ns());
        if (kclass_[i].fp32_simt_gemm) simt = SaturatingAdd(simt, t_.kernels[i].duration_ns());
      }
    }
    simt_share_ = gemm > 0 ? 100.0 * static_cast<double>(simt) / static_cast<double>(gemm) : 0.0;
    // Op view (record_shapes): fp32 share of eligible op time.
    const OpLevelPrecision* op = OpLevel();
    std::optional<double> fp32_ops;
    std::vector<OpPrecision> fp32_top;
    if (op != nullptr && op->has_input_types) {
      if (op->fp32_share_pct && *op->fp32_share_pct >= 0) fp32_ops = *op->fp32_share_pct;
      fp32_top = op->fp32_ops_top;
    }
    // Loss / norm ops in reduced precision (autocast keeps them in fp32).
    LossNormCheck();

    std::vector<std::string> parts;
    parts.push_back(fmt::format("fp32 SIMT GEMM/conv share {:.1f}% of GEMM/conv time", simt_share_));
    if (fp32_ops) parts.push_back(fmt::format("fp32 share of Tensor-Core-eligible op kernel time {:.1f}%", *fp32_ops));
    if (lowp_loss_ops_ > 0) parts.push_back(fmt::format("{} loss/norm op calls in fp16/bf16", lowp_loss_ops_));
    item.evidence = fmt::format("{}", fmt::join(parts, "; "));
    const double fp32 = fp32_ops ? *fp32_ops : simt_share_;
    item.value = Round(fp32);

    if (simt_share_ >= kFp32SimtGemmSharePct || (fp32_ops && *fp32_ops >= kAutocastFp32FailPct && simt > 0)) {
      std::string basis;
      const double ratio = SimtToTcRatio(&basis);
      const double pct = PctOfWindow(static_cast<double>(simt) * (1.0 - ratio));
      std::vector<KernelTime> top = TopKernels([&](size_t i) { return kclass_[i].fp32_simt_gemm; });
      std::string ops;
      for (size_t i = 0; i < fp32_top.size() && i < 3; ++i)
        ops += fmt::format("{}{} ({} calls, {:.1f} ms)", i ? ", " : "", fp32_top[i].name, fp32_top[i].calls,
                           fp32_top[i].kernel_time_us / 1e3);
      Finding& f = Add(Fid::kFp32Gemm, std::max(FindingSeverity::kWarning, SeverityForSaving(pct)), pct,
                       fmt::format("{:.0f}% of GEMM/conv time runs in fp32 on CUDA cores", simt_share_),
                       fmt::format("fp32 SIMT GEMMs {} {}run outside autocast or with fp32 inputs. Run these layers under "
                                   "torch.autocast (remove autocast(enabled=False) / .float() around them), or at least set "
                                   "torch.set_float32_matmul_precision('high') so they use TF32 Tensor Cores.",
                                   KernelList(top), ops.empty() ? "" : "launched by " + ops + " "));
      f.evidence = {{"fp32_simt_gemm_share_pct", Round(simt_share_), Unit::kPct},
                    {"fp32_simt_gemm_time_us", NsToUsRounded3(simt), Unit::kUs},
                    {"top_kernels", top},
                    {"fp32_ops", OpRecords(fp32_top)},
                    {"estimate", fmt::format("fp32 SIMT GEMM time x (1 - fp32/fp16-TC peak ratio {:.3f}); {}", ratio, basis)}};
      item.status = CheckStatus::kFail;
      return;
    }
    if (lowp_loss_ops_ > 0) {
      Finding& f = Add(Fid::kLossLowPrecision, FindingSeverity::kWarning, 0.0,
                       "Loss / normalization ops run in fp16/bf16",
                       fmt::format("{} calls of {} take fp16/bf16 inputs; autocast would run them in fp32. This is what "
                                   "model.half() / manual casts do. Keep the model in fp32 and use torch.autocast, or "
                                   "compute the loss on logits.float().",
                                   lowp_loss_ops_, fmt::join(lowp_loss_names_, ", ")));
      f.evidence = {{"ops", lowp_loss_names_}, {"calls", lowp_loss_ops_, Unit::kCount}, {"kernel_time_us", NsToUsRounded3(lowp_loss_ns_), Unit::kUs}};
      item.status = CheckStatus::kWarn;
      return;
    }
    if (fp32 >= kAutocastFp32FailPct) {
      item.status = CheckStatus::kFail;
    } else if (fp32 >= kAutocastFp32WarnPct) {
      item.status = CheckStatus::kWarn;
    } else {
      item.status = CheckStatus::kPass;
    }
    if (!fp32_ops) item.evidence += " (op dtypes unknown: profile with record_shapes=True to check each op)";
  }

  void LossNormCheck() {
    std::set<std::string> names;
    for (const CpuOp& op : t_.cpu_ops) {
      if (!InWindows(op.start_ns) || op.input_types == kNoString) continue;
      std::string_view n = t_.str(op.name);
      if (!IsAutocastFp32Op(n)) continue;
      const Precision p = PrecisionFromTypeTags(t_.str(op.input_types));
      if (p == Precision::kFp16 || p == Precision::kBf16) {
        ++lowp_loss_ops_;
        names.insert(std::string(n));
      }
    }
    lowp_loss_names_.assign(names.begin(), names.end());
  }

  // ---- GEMM efficiency and attention, from the roofline's per-op rows (issue 14) ---------
  void RuleGemmEfficiency() {
    gemm_eff_known_ = false;
    if (ra_.roofline == nullptr) {
      gemm_eff_reason_ = "the roofline was not computed";
      return;
    }
    roofline::GemmPolicy policy;
    policy.low_pct = kLowGemmEfficiencyPct;
    policy.min_gflop = kLargeGemmFlops / 1e9;
    policy.dim_alignment = kDimAlignment;
    if (ra_.roofline->gpu.peak) policy.sm_count = ra_.roofline->gpu.peak->sm_count;
    if (device_ptr_ != nullptr && device_ptr_->sm_count > 0) policy.sm_count = device_ptr_->sm_count;
    const roofline::GemmAssessment g = roofline::AssessGemms(*ra_.roofline, policy);
    if (!g.known) {
      gemm_eff_reason_ = g.reason;
      return;
    }
    gemm_eff_known_ = true;
    gemm_eff_pct_ = g.efficiency_pct;
    const double pct = PctOfWindow(g.saving_ns);
    if (g.low.empty() || pct < kMinSavingPct) return;
    std::vector<FieldList> low;
    std::set<roofline::GemmCause> causes;
    std::string worst;
    for (size_t i = 0; i < g.low.size() && i < 6; ++i) {
      const roofline::LowGemm& l = g.low[i];
      const roofline::OpRow& r = *l.row;
      causes.insert(l.cause);
      low.push_back({{"op", r.id.op}, {"input_dims", r.id.input_dims}, {"precision", PrecisionName(r.id.precision)},
                     {"calls", r.timing.count, Unit::kCount}, {"time_us", Round(r.timing.kernel_time_us, 3), Unit::kUs},
                     r.timing.tflops ? Field("achieved_tflops", Round(*r.timing.tflops, 1), Unit::kTflops)
                                     : Field("achieved_tflops", Value()),
                     {"efficiency_pct", Round(l.efficiency_pct, 1), Unit::kPct}, {"dims_multiple_of_8", l.aligned},
                     {"bound", r.roof.bound}, {"output_tiles", Round(l.tiles, 0), Unit::kCount},
                     {"cause", roofline::GemmCauseName(l.cause)}});
      if (i < 3) worst += fmt::format("{}{} {} ({:.0f}% of attainable, {})", i ? "; " : "", r.id.op, r.id.input_dims,
                                      l.efficiency_pct, roofline::GemmCauseName(l.cause));
    }
    std::string advice;
    if (causes.count(roofline::GemmCause::kMisaligned))
      advice += "M/N/K not multiples of 8, which fp16/bf16 Tensor Core kernels need for full speed [NV-guide]: pad "
                "hidden, vocabulary and FFN sizes to multiples of 8 (64 is better). ";
    if (causes.count(roofline::GemmCause::kMemoryBound))
      advice += "Memory-bound shapes (FLOP per byte below the GPU's ridge point): too few rows per weight; a larger "
                "batch or sequence per GEMM, or fusing the GEMMs that share an input, raises the intensity. ";
    if (causes.count(roofline::GemmCause::kTooFewTiles))
      advice += fmt::format("Too few 128x128 output tiles to fill the GPU's {} SMs: batch the small GEMMs (one bmm or a "
                            "grouped GEMM) or grow the batch. ",
                            policy.sm_count);
    if (causes.count(roofline::GemmCause::kFp32))
      advice += "fp32 GEMMs in a run whose other GEMMs use fp16/bf16: run them under torch.autocast (see "
                "fp32_gemm_outside_autocast). ";
    if (causes.count(roofline::GemmCause::kOther))
      advice += fmt::format("Shapes that fill whole waves of tiles reach the {:.0f}% this trace's best GEMMs do. ",
                            g.target_pct);
    if (!advice.empty()) advice.pop_back();
    Finding& f = Add(Fid::kLowGemmTflops, SeverityForSaving(pct), pct,
                     fmt::format("Large GEMMs reach under {:.0f}% of what the {} attains at their FLOP per byte",
                                 kLowGemmEfficiencyPct, ra_.roofline->gpu.peak->id),
                     worst + ". " + advice);
    f.evidence = {{"large_gemm_efficiency_pct", Round(gemm_eff_pct_), Unit::kPct},
                  {"low_efficiency_gemm_time_us", NsToUsRounded3(static_cast<TimeNs>(g.low_time_ns)), Unit::kUs},
                  {"target_efficiency_pct", Round(g.target_pct), Unit::kPct},
                  {"gemms", low},
                  {"estimate", "sum over GEMM shapes below the threshold of time - ideal time / target, ideal = "
                               "FLOPs / min(peak, FLOP per byte x HBM bandwidth) (docs/roofline.md)"}};
  }

  void RuleAttention() {
    if (ra_.roofline == nullptr || ra_.roofline->attention.empty()) return;
    roofline::AttentionPolicy policy;
    if (device_ptr_ != nullptr) {
      policy.vendor = device_ptr_->vendor;
      policy.cc_major = device_ptr_->cc_major;
    }
    const roofline::AttentionAssessment a = roofline::AssessAttention(*ra_.roofline, policy);
    const double pct = PctOfWindow(a.saving_us * 1e3);
    if (a.slow.empty() || pct < kMinSavingPct) return;
    std::vector<FieldList> calls;
    bool math = false, efficient = false;
    for (const roofline::AttentionUse* u : a.slow) {
      math = math || u->impl == AttentionImpl::kMath;
      efficient = efficient || u->impl == AttentionImpl::kEfficient;
      calls.push_back({{"op", u->op}, {"implementation", AttentionImplName(u->impl)}, {"pass", u->backward ? "backward" : "forward"},
                       {"calls", u->calls, Unit::kCount}, {"time_us", Round(u->kernel_time_us, 3), Unit::kUs},
                       {"input_dims", u->input_dims}, {"input_types", u->input_types}});
    }
    std::string advice;
    if (math)
      advice += "scaled_dot_product_attention fell back to the math path, which materialises the N x N scores: it does "
                "so when no fused kernel accepts the inputs (an explicit attn_mask with a fused-incompatible shape or "
                "dtype, fp32 inputs, head dim over 256, or a backend disabled with torch.nn.attention.sdpa_kernel). ";
    if (efficient)
      advice += "It runs the memory-efficient kernel although this GPU has flash attention: pass is_causal=True instead "
                "of a causal attn_mask, keep q/k/v fp16/bf16 and contiguous in the last dim, and check "
                "torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION) accepts the call (it raises the reason). ";
    advice += a.availability + ".";
    Finding& f = Add(Fid::kAttentionNotFlash, SeverityForSaving(pct), pct,
                     fmt::format("Attention runs without a flash kernel ({:.1f}% of the window)",
                                 PctOfWindow(a.slow_time_us * 1e3)),
                     advice);
    f.evidence = {{"attention_time_us", Round(a.slow_time_us, 3), Unit::kUs},
                  {"calls", calls},
                  {"flash_available", a.flash_available},
                  {"estimate", fmt::format("attention time x (1 - 1/{:.0f}): flash attention is at least {:.0f}x "
                                           "faster than the math path [heur; FlashAttention-2 reports 2-4x]",
                                           policy.speedup, policy.speedup)}};
  }

  // ---- GradScaler -------------------------------------------------------------------------
  void RuleGradScaler() {
    ChecklistItem& item = Item("grad_scaler");
    item.threshold = fmt::format("GradScaler present for fp16; no run of >= {} skipped steps at the start (init_scale 1024-65536); "
                                 "skip rate after step {} <= {:.0f}%",
                                 kStartSkipsMin, kScalerWarmupSteps, kSkipRatePct);
    item.source = "[proj] init_scale 1024..65536; [heur] skip rate; GradScaler kernels (torch/amp/grad_scaler.py)";
    TimeNs fp16 = 0, bf16 = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i] || !IsMatmulClass(kclass_[i].category)) continue;
      if (kclass_[i].precision == Precision::kFp16) fp16 = SaturatingAdd(fp16, t_.kernels[i].duration_ns());
      if (kclass_[i].precision == Precision::kBf16) bf16 = SaturatingAdd(bf16, t_.kernels[i].duration_ns());
    }
    int updates = 0, unscales = 0;
    bool fused = false;
    for (const StepFacts& f : steps_) {
      updates += f.updates;
      unscales += f.unscales;
      fused = fused || f.fused_optimizer;
    }
    if (steps_.empty()) {
      for (size_t i = 0; i < t_.kernels.size(); ++i) {
        if (!in_window_[i]) continue;
        updates += kclass_[i].role == KernelRole::kAmpUpdateScale;
        unscales += kclass_[i].role == KernelRole::kAmpUnscale;
      }
    }
    const bool scaler = updates > 0 || unscales > 0;
    const double lowp = static_cast<double>(fp16 + bf16);
    const double fp16_share = lowp > 0 ? 100.0 * static_cast<double>(fp16) / lowp : 0.0;
    const bool fp16_run = fp16 > 0 && fp16_share >= kFp16ShareForScalerPct;
    item.evidence = fmt::format("{} amp_update_scale and {} unscale kernels in {} steps; fp16 {:.0f}% / bf16 {:.0f}% of low-precision GEMM time",
                                updates, unscales, steps_.size(), fp16_share, lowp > 0 ? 100.0 - fp16_share : 0.0);
    if (kernel_total_ns_ == 0) {
      item.status = CheckStatus::kUnknown;
      item.how_to_know = "profile with CUDA activities enabled";
      return;
    }
    if (!fp16_run && !scaler) {
      item.status = CheckStatus::kNotApplicable;
      item.evidence += lowp > 0 ? " (bf16 run: no loss scaling needed)" : " (no fp16 compute)";
      return;
    }
    if (fp16_run && !scaler) {
      Finding& f = Add(Fid::kFp16NoScaler, FindingSeverity::kWarning, 0.0, "fp16 training without a GradScaler",
                       fmt::format("{:.0f}% of the low-precision GEMM time is fp16 and no GradScaler kernels "
                                   "(amp_update_scale_cuda_kernel, _amp_foreach_non_finite_check_and_unscale_) run: small "
                                   "gradients underflow in fp16. Use torch.amp.GradScaler('cuda') (scaler.scale(loss).backward(); "
                                   "scaler.step(opt); scaler.update()), or switch autocast to bfloat16.",
                                   fp16_share));
      f.evidence = {{"fp16_gemm_time_us", NsToUsRounded3(fp16), Unit::kUs}, {"bf16_gemm_time_us", NsToUsRounded3(bf16), Unit::kUs}, {"scaler_kernels", 0, Unit::kCount}};
      item.status = CheckStatus::kFail;
      item.value = 0;
      return;
    }
    // Scaler present: skipped steps (update kernel but no optimizer work).
    bool can_tell = !fused && !steps_.empty();
    bool have_opt_signal = !optimizer_ranges_.empty();
    if (!have_opt_signal) {
      for (const StepFacts& f : steps_) have_opt_signal = have_opt_signal || f.optimizer_category_kernels > 0;
    }
    can_tell = can_tell && have_opt_signal;
    std::vector<size_t> skipped;
    if (can_tell) {
      for (size_t i = 0; i < steps_.size(); ++i) {
        StepFacts& f = steps_[i];
        const bool has_opt = optimizer_ranges_.empty() ? f.optimizer_category_kernels > 0 : f.optimizer_kernels > 0;
        f.skipped = f.updates > 0 && !has_opt;
        if (f.skipped) skipped.push_back(i);
      }
    }
    // Consecutive skips from the first analysed step, when the window starts near step 0.
    size_t start_run = 0;
    const bool near_start = !steps_.empty() && steps_.front().number >= 0 && steps_.front().number < kScalerWarmupSteps;
    if (near_start)
      while (start_run < steps_.size() && steps_[start_run].skipped) ++start_run;
    int steady = 0, steady_skipped = 0;
    TimeNs start_skip_ns = 0, steady_skip_ns = 0;
    for (size_t i = 0; i < steps_.size(); ++i) {
      const TimeNs d = steps_[i].end_ns - steps_[i].start_ns;
      if (i < start_run) {
        start_skip_ns = SaturatingAdd(start_skip_ns, d);
        continue;
      }
      if (steps_[i].number >= 0 && steps_[i].number < kScalerWarmupSteps && near_start) continue;  // warm-up
      ++steady;
      if (steps_[i].skipped) {
        ++steady_skipped;
        steady_skip_ns = SaturatingAdd(steady_skip_ns, d);
      }
    }
    const double skip_rate = steady > 0 ? 100.0 * steady_skipped / steady : 0.0;
    item.value = Round(skip_rate);
    item.evidence += fmt::format("; {} skipped steps (update kernel, no optimizer kernels): {} at the start, {:.1f}% of {} steps after warm-up",
                                 skipped.size(), start_run, skip_rate, steady);
    item.status = CheckStatus::kPass;
    if (!can_tell) {
      item.status = fp16_run ? CheckStatus::kUnknown : CheckStatus::kPass;
      item.evidence += fused ? "; fused optimizer: skipped steps happen on the device and cannot be seen in the trace"
                             : "; skipped steps unknown (no Optimizer.step ranges or optimizer kernels)";
      if (fp16_run) {
        item.how_to_know = fused ? "log scaler.get_scale() per step (a halving = a skipped step)"
                                 : "profile with torch.profiler (record_function ranges Optimizer.step#...) so optimizer work per step is visible";
      }
    }
    if (start_run >= static_cast<size_t>(kStartSkipsMin)) {
      const double pct = PctOfWindow(static_cast<double>(start_skip_ns));
      Finding& f = Add(Fid::kScalerInitScale, std::max(FindingSeverity::kWarning, SeverityForSaving(pct)), pct,
                       fmt::format("GradScaler skipped the first {} steps: initial scale too high", start_run),
                       fmt::format("Steps {}..{} ran amp_update_scale_cuda_kernel but no optimizer kernels: each found inf/NaN "
                                   "gradients and halved the scale, so init_scale was at least 2^{} = {}x above a scale that "
                                   "works. Use GradScaler(init_scale=65536) or lower (1024..65536).",
                                   steps_.front().number, steps_[start_run - 1].number, start_run, 1ll << std::min<size_t>(start_run, 62)));
      std::vector<int64_t> nums;
      for (size_t i = 0; i < start_run; ++i) nums.push_back(steps_[i].number);
      f.evidence = {{"skipped_steps", nums}, {"inferred_scale_factor_too_high", std::pow(2.0, static_cast<double>(start_run)), Unit::kFactor},
                    {"wasted_time_us", NsToUsRounded3(start_skip_ns), Unit::kUs}};
      item.status = CheckStatus::kFail;
    }
    if (steady > 0 && skip_rate > kSkipRatePct) {
      const double pct = PctOfWindow(static_cast<double>(steady_skip_ns));
      std::vector<int64_t> nums;
      for (size_t i : skipped)
        if (i >= start_run) nums.push_back(steps_[i].number);
      Finding& f = Add(Fid::kScalerSkips, std::max(FindingSeverity::kWarning, SeverityForSaving(pct)), pct,
                       fmt::format("GradScaler skips {:.0f}% of steps after warm-up", skip_rate),
                       fmt::format("Steps {} found inf/NaN gradients: their forward and backward were wasted and the scale "
                                   "keeps collapsing. Find the overflow source (fp16 activations, loss computed in fp16, a "
                                   "too-high learning rate), compute the loss in fp32, or train in bf16.",
                                   fmt::format("[{}]", fmt::join(nums, ","))));
      f.evidence = {{"skipped_steps", nums}, {"skip_rate_pct", Round(skip_rate), Unit::kPct}, {"steps_after_warmup", steady, Unit::kCount},
                    {"wasted_time_us", NsToUsRounded3(steady_skip_ns), Unit::kUs}};
      item.status = CheckStatus::kFail;
    }
    if (!fp16_run && scaler && lowp > 0) {
      // bf16 with a scaler: its kernels and its found_inf sync are unnecessary.
      TimeNs scaler_ns = 0;
      for (size_t i = 0; i < t_.kernels.size(); ++i)
        if (in_window_[i] && kclass_[i].category == KernelCategory::kAmpScaler) scaler_ns = SaturatingAdd(scaler_ns, t_.kernels[i].duration_ns());
      const double pct = PctOfWindow(static_cast<double>(SaturatingAdd(scaler_ns, cause_ns_[static_cast<size_t>(Cause::kScalerSync)])));
      Finding& f = Add(Fid::kScalerWithBf16, FindingSeverity::kInfo, pct, "GradScaler used with bf16",
                       "bf16 has fp32's exponent range, so loss scaling is not needed: drop the GradScaler (call loss.backward() "
                       "and optimizer.step() directly) and save its unscale/update kernels and its per-step found_inf .item() sync.");
      f.evidence = {{"scaler_kernel_time_us", NsToUsRounded3(scaler_ns), Unit::kUs}, {"scaler_sync_idle_us", NsToUsRounded3(cause_ns_[static_cast<size_t>(Cause::kScalerSync)]), Unit::kUs},
                    {"bf16_share_pct", Round(100.0 - fp16_share), Unit::kPct}};
    }
  }

  // ---- kernel fusion ----------------------------------------------------------------------
  void RuleFusion() {
    ChecklistItem& item = Item("kernel_fusion");
    item.threshold = fmt::format("no runs of >= {} memory-bound kernels or per-parameter optimizer kernels costing >= {:.0f}% of the step",
                                 kMinChainKernels, kWarningSavingPct);
    item.source = "[proj] CK-FU; estimate [heur]";
    if (kernel_total_ns_ == 0) {
      item.status = CheckStatus::kUnknown;
      item.how_to_know = "profile with CUDA activities enabled";
      return;
    }
    // Kernels per stream in start order, outside optimizer ranges.
    std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> by_stream;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i]) continue;
      auto li = launch_of_.find(i);
      if (li != launch_of_.end()) {
        const ApiCall& a = t_.api_calls[static_cast<size_t>(li->second)];
        if (OptimizerRangeAt(a.start_ns, a.tid) >= 0) continue;
      }
      by_stream[{t_.kernels[i].device, t_.kernels[i].stream}].push_back(i);
    }
    struct Chain {
      std::vector<size_t> k;
      TimeNs saving = 0;
    };
    std::vector<Chain> chains;
    double saving = 0;
    std::vector<Interval> host_idle = MergeIntervals(cause_gaps_[static_cast<size_t>(Cause::kHost)]);
    // Kernels on either side of a host sync cannot become one kernel without removing the sync.
    auto sync_between = [&](size_t a, size_t b) {
      auto la = launch_of_.find(a), lb = launch_of_.find(b);
      if (la == launch_of_.end() || lb == launch_of_.end()) return false;
      const TimeNs s = t_.api_calls[static_cast<size_t>(la->second)].start_ns;
      const TimeNs e = t_.api_calls[static_cast<size_t>(lb->second)].start_ns;
      auto it = std::upper_bound(sync_points_.begin(), sync_points_.end(), s,
                                 [](TimeNs x, const SyncPointInfo& p) { return x < p.start_ns; });
      return it != sync_points_.end() && it->start_ns < e;
    };
    for (auto& [key, v] : by_stream) {
      std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return t_.kernels[a].start_ns < t_.kernels[b].start_ns; });
      size_t i = 0;
      while (i < v.size()) {
        if (!IsFusable(kclass_[v[i]].category)) {
          ++i;
          continue;
        }
        size_t j = i + 1;
        while (j < v.size() && IsFusable(kclass_[v[j]].category) && !sync_between(v[j - 1], v[j])) ++j;
        if (j - i >= static_cast<size_t>(kMinChainKernels)) {
          Chain c;
          TimeNs sum = 0, mx = 0;
          for (size_t x = i; x < j; ++x) {
            const TimeNs d = t_.kernels[v[x]].duration_ns();
            sum = SaturatingAdd(sum, d);
            mx = std::max(mx, d);
            c.k.push_back(v[x]);
          }
          // One fused pass costs about its largest member, and the GPU no longer waits for the
          // host to launch the members (idle inside the chain that the attribution gave to
          // host launches; idle for other reasons, e.g. another stream, stays).
          const TimeNs span_start = t_.kernels[v[i]].start_ns, span_end = t_.kernels[v[j - 1]].end_ns;
          c.saving = (sum - mx) + Covered(host_idle, span_start, span_end);
          saving += static_cast<double>(c.saving);
          chains.push_back(std::move(c));
        }
        i = j;
      }
    }
    const double chain_pct = PctOfWindow(saving);
    double total_pct = 0;
    if (!chains.empty() && chain_pct >= kMinSavingPct) {
      total_pct += chain_pct;
      std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) { return a.saving > b.saving; });
      std::vector<FieldList> top;
      std::vector<std::pair<TimeNs, TimeNs>> ranges;
      std::string example;
      for (size_t c = 0; c < chains.size() && c < 5; ++c) {
        std::vector<std::string> ks;
        std::set<std::string> ops;
        for (size_t x : chains[c].k) {
          ks.push_back(ShortName(t_.str(t_.kernels[x].name), 80));
          const int64_t op = OpOfKernel(x);
          if (op >= 0) ops.insert(std::string(t_.str(t_.cpu_ops[op].name)));
        }
        const KernelEvent& first = t_.kernels[chains[c].k.front()];
        const KernelEvent& last = t_.kernels[chains[c].k.back()];
        ranges.emplace_back(first.start_ns, last.end_ns);
        top.push_back({{"kernels", ks}, {"ops", std::vector<std::string>(ops.begin(), ops.end())}, {"stream", first.stream},
                       {"start_us", NsToUsRounded3(first.start_ns), Unit::kUs}, {"end_us", NsToUsRounded3(last.end_ns), Unit::kUs}, {"saving_us", NsToUsRounded3(chains[c].saving), Unit::kUs}});
        if (c == 0)
          example = fmt::format("{} kernels on stream {} at {:.3f} ms ({})", chains[c].k.size(), first.stream, Ms(first.start_ns),
                                fmt::join(std::vector<std::string>(ops.begin(), ops.end()), ", "));
      }
      Finding& f = Add(Fid::kUnfusedChains, SeverityForSaving(chain_pct), chain_pct,
                       fmt::format("{:.1f} chains per step of >= {} memory-bound kernels between GEMMs",
                                   static_cast<double>(chains.size()) / nsteps_, kMinChainKernels),
                       fmt::format("Each chain reads and writes the same tensors once per kernel; the largest is {}. Fuse them: "
                                   "torch.compile the module (Inductor emits one triton_*_fused_* kernel per chain), or use "
                                   "fused ops (F.gelu, nn.LayerNorm/RMSNorm, F.scaled_dot_product_attention) instead of "
                                   "hand-written formulas.",
                                   example));
      f.evidence = {{"chains", chains.size(), Unit::kCount}, {"chains_per_step", Round(static_cast<double>(chains.size()) / nsteps_), Unit::kPerStep},
                    {"top_chains", top},
                    {"estimate", "per chain: sum of its kernel times - the longest (one fused pass) + host-launch idle inside it"}};
      f.time_ranges = ranges;
    }
    // Per-parameter optimizer kernels.
    double opt_kernels = 0, per_param = 0;
    for (const StepFacts& s : steps_) {
      opt_kernels += s.optimizer_kernels;
      per_param += s.per_param_optimizer_kernels;
    }
    const double per_step = per_param / nsteps_;
    const double share = opt_kernels > 0 ? 100.0 * per_param / opt_kernels : 0.0;
    if (per_step >= kUnfusedOptimizerMinKernels && share >= kUnfusedOptimizerSharePct) {
      // Idle inside the optimizer's GPU span: launch overhead that a foreach/fused step removes.
      TimeNs idle = 0, busy = 0;
      std::vector<std::pair<TimeNs, TimeNs>> ranges;
      for (const TidRange& r : optimizer_ranges_) {
        TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
        for (auto it = std::lower_bound(kernel_launch_.begin(), kernel_launch_.end(), std::make_pair(r.start_ns, uint32_t{0}));
             it != kernel_launch_.end() && it->first < r.end_ns; ++it) {
          const KernelEvent& k = t_.kernels[it->second];
          if (!in_window_[it->second]) continue;
          first = std::min(first, k.start_ns);
          last = std::max(last, k.end_ns);
        }
        if (last <= first) continue;
        const TimeNs b = Covered(busy_, first, last);
        busy = SaturatingAdd(busy, b);
        idle = SaturatingAdd(idle, (last - first) - b);
        ranges.emplace_back(first, last);
      }
      const double pct = PctOfWindow(static_cast<double>(idle));
      total_pct += pct;
      Finding& f = Add(Fid::kUnfusedOptimizer, SeverityForSaving(pct), pct,
                       fmt::format("Per-parameter optimizer: {:.0f} kernels per step in {}", per_step,
                                   optimizer_names_.empty() ? std::string("Optimizer.step") : *optimizer_names_.begin()),
                       fmt::format("The optimizer launches {:.0f} small elementwise kernels per step, one set per parameter; the GPU "
                                   "idles {:.1f} ms per step between them. Use the multi-tensor or fused implementation: "
                                   "torch.optim.AdamW(params, foreach=True) or fused=True (one multi_tensor_apply_kernel launch "
                                   "per group of tensors).",
                                   per_step, Ms(idle) / nsteps_));
      f.evidence = {{"per_parameter_kernels_per_step", Round(per_step), Unit::kPerStep}, {"optimizer_kernels_per_step", Round(opt_kernels / nsteps_), Unit::kPerStep},
                    {"optimizer_gpu_busy_us", NsToUsRounded3(busy), Unit::kUs}, {"optimizer_gpu_idle_us", NsToUsRounded3(idle), Unit::kUs},
                    {"estimate", "GPU idle inside the optimizer's kernel span (launch overhead a fused step removes)"}};
      f.time_ranges = ranges;
    }
    item.value = Round(total_pct);
    item.evidence = fmt::format("{} memory-bound chains (est. {:.1f}% of step); {:.0f} per-parameter optimizer kernels per step",
                                chains.size(), chain_pct, per_step);
    const FindingSeverity worst = WorstSeverity("kernel_fusion");
    item.status = worst == FindingSeverity::kInfo ? (HasFinding("kernel_fusion") ? CheckStatus::kWarn : CheckStatus::kPass)
                                                  : CheckStatus::kFail;
  }

  bool HasFinding(const std::string& checklist) const {
    for (const Finding& f : ra_.findings)
      if (f.checklist == checklist) return true;
    return false;
  }
  FindingSeverity WorstSeverity(const std::string& checklist) const {
    FindingSeverity w = FindingSeverity::kInfo;
    for (const Finding& f : ra_.findings)
      if (f.checklist == checklist && f.severity > w) w = f.severity;
    return w;
  }

  // ---- memory bandwidth: casts ------------------------------------------------------------
  void RuleMemoryBound() {
    TimeNs mem = 0, mat = 0, cast = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i]) continue;
      const TimeNs d = t_.kernels[i].duration_ns();
      if (IsMemoryBound(kclass_[i].category)) mem = SaturatingAdd(mem, d);
      if (IsMatmulClass(kclass_[i].category)) mat = SaturatingAdd(mat, d);
      if (kclass_[i].category == KernelCategory::kCast) cast = SaturatingAdd(cast, d);
    }
    mem_bound_pct_ = kernel_total_ns_ > 0 ? 100.0 * static_cast<double>(mem) / static_cast<double>(kernel_total_ns_) : 0.0;
    mem_vs_gemm_ = mat > 0 ? static_cast<double>(mem) / static_cast<double>(mat) : (mem > 0 ? 1e9 : 0.0);
    const double cast_pct = PctOfWindow(static_cast<double>(cast));
    cast_pct_ = cast_pct;
    if (cast_pct > kCastSharePct && !amp_not_in_use_) {
      std::vector<KernelTime> top = TopKernels([&](size_t i) { return kclass_[i].category == KernelCategory::kCast; });
      Finding& f = Add(Fid::kCastOverhead, SeverityForSaving(cast_pct), cast_pct,
                       fmt::format("Dtype casts take {:.1f}% of the step", cast_pct),
                       fmt::format("Cast kernels ({}) move every tensor twice. Enter autocast once per step (not per "
                                   "micro-batch: its weight-cast cache is cleared on exit), keep frozen weights in fp16/bf16, "
                                   "and avoid .half()/.float() round trips between layers.",
                                   KernelList(top)));
      f.evidence = {{"cast_time_us", NsToUsRounded3(cast), Unit::kUs}, {"cast_pct_of_step", Round(cast_pct), Unit::kPctOfStep}, {"top_kernels", top},
                    {"estimate", "all cast kernel time (upper bound)"}};
    }
  }

  // ---- data pipeline ----------------------------------------------------------------------
  void RuleDataPipeline() {
    ChecklistItem& item = Item("data_pipeline");
    item.threshold = fmt::format("exposed DataLoader time <= {:.0f}% of step [kineto]; GPU idle at step start <= {:.0f}% [heur]; "
                                 "no pageable H2D copies [nsys]",
                                 kDataLoaderPct, kIdleAtStepStartPct);
    item.source = "[kineto] DataLoader/step > 5%; [nsys] cuda_memcpy_async pageable copies";
    // Exposed DataLoader: its ranges minus GPU activity and runtime calls (the TensorBoard
    // plugin's step breakdown, where Kernel/Memcpy/Memset/Runtime take precedence).
    std::vector<Interval> runtime;
    for (const ApiCall& a : t_.api_calls) runtime.push_back({a.start_ns, a.end_ns});
    runtime = MergeIntervals(std::move(runtime));
    TimeNs dl_total = 0, dl_exposed = 0;
    for (const Interval& w : windows_) {
      std::vector<Interval> pieces;
      auto it = std::upper_bound(dataloader_.begin(), dataloader_.end(), w.start_ns, [](TimeNs x, const Interval& iv) { return x < iv.end_ns; });
      for (; it != dataloader_.end() && it->start_ns < w.end_ns; ++it)
        pieces.push_back({std::max(w.start_ns, it->start_ns), std::min(w.end_ns, it->end_ns)});
      for (const Interval& p : pieces) dl_total = SaturatingAdd(dl_total, p.end_ns - p.start_ns);
      CutOut(pieces, busy_);
      CutOut(pieces, runtime);
      for (const Interval& p : pieces) dl_exposed = SaturatingAdd(dl_exposed, p.end_ns - p.start_ns);
    }
    const double dl_pct = PctOfWindow(static_cast<double>(dl_exposed));
    const double dl_raw_pct = PctOfWindow(static_cast<double>(dl_total));
    TimeNs idle_start = 0;
    for (const StepFacts& s : steps_) idle_start = SaturatingAdd(idle_start, s.idle_at_start_ns);
    const double idle_start_pct = PctOfWindow(static_cast<double>(idle_start));
    // Pageable H2D copies.
    uint64_t pg_count = 0, pg_bytes = 0, pinned_bytes = 0;
    TimeNs pg_ns = 0, pinned_ns = 0;
    for (const MemcpyEvent& m : t_.memcpys) {
      if (!InWindows(m.start_ns) || m.kind != MemcpyKind::kHtoD) continue;
      if (m.src_kind == MemoryKind::kPageable) {
        ++pg_count;
        pg_bytes += m.bytes;
        pg_ns = SaturatingAdd(pg_ns, m.duration_ns());
      } else if (m.src_kind == MemoryKind::kPinned && m.bytes >= (1u << 20)) {
        pinned_bytes += m.bytes;
        pinned_ns = SaturatingAdd(pinned_ns, m.duration_ns());
      }
    }
    item.value = Round(dl_pct);
    std::string ev = dataloader_.empty() ? std::string("no DataLoader ranges")
                                         : fmt::format("DataLoader {:.1f}% of step ({:.1f}% exposed: GPU idle and no runtime call)", dl_raw_pct, dl_pct);
    ev += fmt::format("; GPU idle at step start {:.1f}%; {} pageable H2D copies ({:.1f} MB)", idle_start_pct, pg_count, pg_bytes / 1e6);
    item.evidence = ev;
    if (windows_.empty()) {
      item.status = CheckStatus::kUnknown;
      item.how_to_know = "profile several training steps with torch.profiler.schedule so ProfilerStep#N ranges exist";
      return;
    }
    item.status = CheckStatus::kPass;
    if (dl_pct > kDataLoaderPct) {
      Finding& f = Add(Fid::kDataLoader, std::max(FindingSeverity::kWarning, SeverityForSaving(dl_pct)), dl_pct,
                       fmt::format("Input loading takes {:.1f}% of the step while the GPU waits", dl_pct),
                       fmt::format("{} runs {:.1f} ms per step with the GPU idle. Load data in worker processes "
                                   "(DataLoader(num_workers=N, pin_memory=True, persistent_workers=True, prefetch_factor=2+)) "
                                   "and move decoding/augmentation off the training process.",
                                   dataloader_names_.empty() ? std::string("The DataLoader") : *dataloader_names_.begin(),
                                   Ms(dl_exposed) / nsteps_));
      f.evidence = {{"dataloader_pct_of_step", Round(dl_raw_pct), Unit::kPctOfStep}, {"exposed_pct_of_step", Round(dl_pct), Unit::kPctOfStep},
                    {"exposed_per_step_us", NsToUsRounded3(dl_exposed / static_cast<TimeNs>(nsteps_)), Unit::kUs},
                    {"ranges", std::vector<std::string>(dataloader_names_.begin(), dataloader_names_.end())},
                    {"estimate", "DataLoader time not overlapped by GPU work or runtime calls"}};
      f.time_ranges = TopRanges(Cause::kDataLoader);
      item.status = CheckStatus::kFail;
    }
    // Idle at step start not explained by a DataLoader range (a custom loader, host preprocessing).
    if (idle_start_pct > kIdleAtStepStartPct && dl_pct <= kDataLoaderPct) {
      Finding& f = Add(Fid::kIdleAtStepStart, SeverityForSaving(idle_start_pct), idle_start_pct,
                       fmt::format("The GPU is idle for the first {:.1f}% of each step", idle_start_pct),
                       "Each step starts with the GPU idle while the host prepares the batch. Prefetch the next batch "
                       "(a background DataLoader, pin_memory=True and .to(device, non_blocking=True) issued one step ahead) "
                       "and move per-step host work after the forward launch.");
      f.evidence = {{"idle_at_step_start_us_per_step", NsToUsRounded3(idle_start / static_cast<TimeNs>(nsteps_)), Unit::kUsPerStep}};
      item.status = CheckStatus::kFail;
    }
    if (pg_count > 0) {
      double pinned_bw = pinned_ns > 0 ? static_cast<double>(pinned_bytes) / static_cast<double>(pinned_ns) : 0.0;  // bytes/ns = GB/s
      std::string bw_basis = "pinned H2D copies in this trace";
      if (pinned_bw <= 0) {
        pinned_bw = peak_ ? peak_->pcie_per_direction_gbs() : 16.0;
        bw_basis = peak_ ? fmt::format("{} PCIe per direction", peak_->id) : "PCIe Gen3 x16 per direction (GPU unknown)";
      }
      double saving = 0;
      for (const MemcpyEvent& m : t_.memcpys) {
        if (!InWindows(m.start_ns) || m.kind != MemcpyKind::kHtoD || m.src_kind != MemoryKind::kPageable) continue;
        saving += std::max(0.0, static_cast<double>(m.duration_ns()) - static_cast<double>(m.bytes) / pinned_bw);
      }
      saving += static_cast<double>(cause_ns_[static_cast<size_t>(Cause::kPageable)]);
      const double pct = PctOfWindow(saving);
      Finding& f = Add(Fid::kPageableH2D, SeverityForSaving(pct), pct,
                       fmt::format("{:.1f} pageable host-to-device copies per step ({:.1f} MB/step at {:.1f} GB/s)",
                                   static_cast<double>(pg_count) / nsteps_, pg_bytes / 1e6 / nsteps_,
                                   pg_ns > 0 ? static_cast<double>(pg_bytes) / static_cast<double>(pg_ns) : 0.0),
                       "Copies from pageable memory are staged by the driver and block the host (cudaMemcpyAsync returns only "
                       "after the transfer). Use DataLoader(pin_memory=True) (or tensor.pin_memory()) and "
                       ".to('cuda', non_blocking=True).");
      f.evidence = {{"copies", pg_count, Unit::kCount}, {"bytes", pg_bytes, Unit::kBytes}, {"time_us", NsToUsRounded3(pg_ns), Unit::kUs},
                    {"pinned_bandwidth_gbs", Round(pinned_bw), Unit::kGbs}, {"pinned_bandwidth_basis", bw_basis},
                    {"estimate", "per copy: duration - bytes / pinned bandwidth, plus the GPU idle while the host was in the copy"}};
      if (item.status == CheckStatus::kPass) item.status = CheckStatus::kWarn;
    }
    dl_exposed_pct_ = dl_pct;
  }

  // ---- host-device syncs ------------------------------------------------------------------
  void RuleSyncs() {
    int64_t beyond = 0, scaler = 0;
    std::map<std::string, int64_t> labels;
    std::map<std::string, int64_t> waited;
    for (const SyncPointInfo& p : sync_points_) {
      if (p.scaler) {
        ++scaler;
        continue;
      }
      ++beyond;
      labels[p.label]++;
      if (!p.waited_for.empty()) waited[p.waited_for]++;
    }
    syncs_beyond_per_step_ = static_cast<double>(beyond) / nsteps_;
    if (syncs_beyond_per_step_ <= kSyncsBeyondScalerPerStep) return;
    // What removing them could recover: the idle they opened, but the step cannot get shorter
    // than the GPU's busy time or the host's own (non-waiting) work.
    const TimeNs sync_idle = cause_ns_[static_cast<size_t>(Cause::kSync)];
    const TimeNs floor = std::max(busy_in_windows_ns_, host_active_known_ ? host_active_ns_ : TimeNs{0});
    const TimeNs bound = std::max<TimeNs>(0, window_ns_ - floor);
    const TimeNs est = std::min(sync_idle, bound);
    const double pct = PctOfWindow(static_cast<double>(est));
    std::vector<std::pair<int64_t, std::string>> by_count;
    for (const auto& [l, n] : labels) by_count.push_back({n, l});
    std::sort(by_count.rbegin(), by_count.rend());
    std::vector<FieldList> calls;
    std::string top;
    for (size_t i = 0; i < by_count.size() && i < 5; ++i) {
      calls.push_back({{"call", by_count[i].second}, {"count", by_count[i].first, Unit::kCount}});
      if (i < 2) top += fmt::format("{}{} x {}", i ? "; " : "", by_count[i].first, by_count[i].second);
    }
    std::vector<std::pair<int64_t, std::string>> wv;
    for (const auto& [l, n] : waited) wv.push_back({n, l});
    std::sort(wv.rbegin(), wv.rend());
    std::vector<FieldList> after;
    for (size_t i = 0; i < wv.size() && i < 3; ++i) after.push_back({{"kernel", wv[i].second}, {"count", wv[i].first, Unit::kCount}});
    Finding& f = Add(Fid::kHostSync, SeverityForSaving(pct), pct,
                     fmt::format("{:.1f} host-device syncs per step beyond GradScaler's (GPU idle {:.1f}% of the step after them)",
                                 syncs_beyond_per_step_, CausePct(Cause::kSync)),
                     fmt::format("Each sync drains the GPU queue, so the GPU waits for the host to launch the next work "
                                 "({:.2f} ms of idle per step). Top: {}. Remove .item()/.cpu()/.tolist()/print(tensor) and "
                                 "data-dependent Python branches from the step (keep metrics on the GPU and read them every N "
                                 "steps); see torch.cuda.set_sync_debug_mode('warn').",
                                 Ms(sync_idle) / nsteps_, top));
    f.evidence = {{"syncs_per_step_beyond_scaler", Round(syncs_beyond_per_step_), Unit::kPerStep},
                  {"grad_scaler_syncs", scaler, Unit::kCount},
                  {"sync_calls", calls},
                  {"waited_for_kernels", after},
                  {"idle_after_syncs_pct", Round(CausePct(Cause::kSync)), Unit::kPct},
                  {"host_wait_pct", Round(PctOfWindow(static_cast<double>(ra_.gpu.idle.host_wait_ns))), Unit::kPct},
                  {"gpu_busy_pct", Round(PctOfWindow(static_cast<double>(busy_in_windows_ns_))), Unit::kPct},
                  {"host_active_pct", Round(PctOfWindow(static_cast<double>(host_active_ns_))), Unit::kPct},
                  {"estimate", "min(GPU idle opened by these syncs, step time - max(GPU busy, host time outside syncs))"}};
    f.time_ranges = TopRanges(Cause::kSync);
  }

  // ---- distributed ------------------------------------------------------------------------
  void RuleDistributed() {
    ChecklistItem& item = Item("distributed_sync");
    item.threshold = fmt::format("exposed communication < {:.0f}% of step with comm/compute overlap >= {:.0f}% [heur]; "
                                 "communication <= {:.0f}% of step [kineto]",
                                 kExposedCommFailPct, kCommOverlapPct, kCommSharePct);
    item.source = "[kineto] communication/step > 10%; [HTA] comm/compute overlap; [nsys] nccl_gpu_overlap_trace";
    TimeNs comm_in = 0, overlapped = 0;
    uint64_t collectives = 0;
    std::vector<std::pair<TimeNs, TimeNs>> exposed_ranges;
    for (const Interval& w : windows_) comm_in = SaturatingAdd(comm_in, Covered(comm_, w.start_ns, w.end_ns));
    for (const Interval& c : comm_) {
      for (const Interval& w : windows_) {
        const TimeNs s = std::max(c.start_ns, w.start_ns), e = std::min(c.end_ns, w.end_ns);
        if (e <= s) continue;
        const TimeNs ov = Covered(compute_, s, e);
        overlapped = SaturatingAdd(overlapped, ov);
        if (e - s - ov > 0) exposed_ranges.emplace_back(s, e);
      }
    }
    for (size_t i = 0; i < t_.kernels.size(); ++i)
      if (in_window_[i] && kclass_[i].category == KernelCategory::kCommunication) ++collectives;
    const int ws = t_.metadata.world_size;
    if (collectives == 0 && ws <= 1) {
      item.status = CheckStatus::kNotApplicable;
      item.evidence = ws == 1 ? "world size 1, no communication kernels" : "single process, no communication kernels";
      return;
    }
    const double share = PctOfWindow(static_cast<double>(comm_in));
    const double overlap = comm_in > 0 ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(comm_in) : 100.0;
    const TimeNs exposed = comm_in - overlapped;
    const double exposed_pct = PctOfWindow(static_cast<double>(exposed));
    item.value = Round(exposed_pct);
    item.evidence = fmt::format("{:.1f} collectives per step; communication {:.1f}% of step; overlap with compute {:.1f}% (HTA); "
                                "exposed {:.1f}% of step",
                                static_cast<double>(collectives) / nsteps_, share, overlap, exposed_pct);
    if (collectives == 0) {
      item.status = CheckStatus::kUnknown;
      item.how_to_know = "world size > 1 but no NCCL kernels recorded: profile with CUDA activities on every rank";
      return;
    }
    item.status = CheckStatus::kPass;
    std::vector<KernelTime> top = TopKernels([&](size_t i) { return kclass_[i].category == KernelCategory::kCommunication; }, 3);
    if (exposed_pct >= kMinSavingPct && (overlap < kCommOverlapPct || exposed_pct >= kExposedCommFailPct)) {
      Finding& f = Add(Fid::kExposedComm, SeverityForSaving(exposed_pct), exposed_pct,
                       fmt::format("{:.1f}% of the step is communication the GPU waits for (overlap {:.0f}%)", exposed_pct, overlap),
                       fmt::format("{} run with no compute alongside. Let DDP overlap them with backward (do not all-reduce "
                                   "gradients by hand after backward; tune bucket_cap_mb; gradient_as_bucket_view=True), use "
                                   "no_sync() for gradient accumulation, or compress gradients (bf16/fp16 comm hook).",
                                   KernelList(top)));
      f.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct},
                    {"exposed_us_per_step", NsToUsRounded3(exposed / static_cast<TimeNs>(nsteps_)), Unit::kUsPerStep},
                    {"collectives_per_step", Round(static_cast<double>(collectives) / nsteps_), Unit::kPerStep}, {"top_kernels", top},
                    {"estimate", "communication kernel time not overlapped by compute kernels (what full overlap would hide)"}};
      std::sort(exposed_ranges.begin(), exposed_ranges.end(), [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
      if (exposed_ranges.size() > 8) exposed_ranges.resize(8);
      std::sort(exposed_ranges.begin(), exposed_ranges.end());
      f.time_ranges = exposed_ranges;
      item.status = (overlap < kCommOverlapPct && exposed_pct >= kExposedCommFailPct) ? CheckStatus::kFail : CheckStatus::kWarn;
    } else if (share > kCommSharePct) {
      Finding& f = Add(Fid::kCommHeavy, FindingSeverity::kInfo, exposed_pct,
                       fmt::format("Communication takes {:.1f}% of the step (overlapped {:.0f}%)", share, overlap),
                       "Communication is well overlapped but large: gradient accumulation (fewer all-reduces per sample), a "
                       "larger per-GPU batch, or gradient compression would shrink it.");
      f.evidence = {{"communication_pct_of_step", Round(share), Unit::kPctOfStep}, {"overlap_pct", Round(overlap), Unit::kPct}, {"top_kernels", top}};
      item.status = CheckStatus::kWarn;
    }
    comm_overlap_pct_ = overlap;
  }

  // ---- launch-bound / utilization ---------------------------------------------------------
  void RuleLaunchAndUtilization() {
    const double busy_pct = PctOfWindow(static_cast<double>(busy_in_windows_ns_));
    busy_pct_ = busy_pct;
    const double small_pct = ra_.launches.pct_kernels_under_10us > 0 ? ra_.launches.pct_kernels_under_10us : SmallKernelPct();
    small_kernel_pct_ = small_pct;
    TimeNs host = cause_ns_[static_cast<size_t>(Cause::kHost)];
    const TimeNs bound = std::max<TimeNs>(0, window_ns_ - busy_in_windows_ns_);
    if (small_pct > kLaunchBoundSmallPct && busy_pct < kLaunchBoundBusyPct && kernel_total_ns_ > 0) {
      const TimeNs est = std::min(host, bound);
      const double pct = PctOfWindow(static_cast<double>(est));
      std::vector<KernelTime> top = TopKernels([&](size_t i) { return t_.kernels[i].duration_ns() < kSmallKernelNs; }, 5);
      Finding& f = Add(Fid::kLaunchBound, std::max(FindingSeverity::kWarning, SeverityForSaving(pct)), pct,
                       fmt::format("Launch-bound: {:.0f}% of kernels run under 10 us and the GPU is busy {:.0f}% of the step",
                                   small_pct, busy_pct),
                       fmt::format("The host cannot launch {:.0f} kernels per step (median {:.1f} us) as fast as the GPU runs "
                                   "them: the GPU waits {:.1f} ms per step for launches. Capture the step in a CUDA graph "
                                   "(torch.compile(mode='reduce-overhead') or torch.cuda.graphs), fuse small ops "
                                   "(torch.compile), or give each kernel more work (larger batch).",
                                   ra_.launches.kernels_per_step > 0 ? ra_.launches.kernels_per_step : static_cast<double>(KernelsInWindow()) / nsteps_,
                                   static_cast<double>(ra_.launches.median_kernel_ns) / 1e3, Ms(host) / nsteps_));
      f.evidence = {{"kernels_under_10us_pct", Round(small_pct), Unit::kPct}, {"gpu_busy_pct", Round(busy_pct), Unit::kPct},
                    {"host_launch_idle_pct", Round(CausePct(Cause::kHost)), Unit::kPct}, {"top_small_kernels", top},
                    {"estimate", "min(GPU idle waiting for launches, step time - GPU busy time)"}};
      f.time_ranges = TopRanges(Cause::kHost);
      host = 0;
    }
    // Low utilization not explained by a more specific finding.
    if (busy_pct < kBusyBadPct && window_ns_ > 0) {
      double explained = 0;
      for (const Finding& f : ra_.findings)
        if (f.dimension == "task_parallelism" || f.id == "launch_bound" || f.id == "allocation_churn" || f.id == "pageable_h2d_copies")
          explained += f.est_saving_pct;
      const double residual = std::max(0.0, (100.0 - busy_pct) - explained -
                                                CausePct(Cause::kScalerSync));
      std::vector<std::pair<TimeNs, TimeNs>> long_gaps;
      for (const IdleGap& g : gaps_)
        if (g.device == device_ && static_cast<double>(g.end_ns - g.start_ns) >= kLongGapNs) long_gaps.emplace_back(g.start_ns, g.end_ns);
      if (residual >= kMinSavingPct && (explained < (100.0 - busy_pct) / 2 || !long_gaps.empty())) {
        Finding& f = Add(Fid::kLowUtilization, std::max(FindingSeverity::kWarning, SeverityForSaving(residual)), residual,
                         fmt::format("The GPU is busy only {:.0f}% of the step", busy_pct),
                         fmt::format("The GPU idles {:.1f}% of the step for reasons the other findings do not explain "
                                     "(host work between launches {:.1f}%, other {:.1f}%){}. Increase the batch size, "
                                     "look for host work in the step (Python, logging, checkpointing), and overlap input with compute.",
                                     residual, PctOfWindow(static_cast<double>(host)), CausePct(Cause::kOther),
                                     long_gaps.empty() ? "" : fmt::format("; {} idle gaps of >= 500 ms [nsys gpu_gaps]", long_gaps.size())));
        f.evidence = {{"gpu_busy_pct", Round(busy_pct), Unit::kPct},
                      {"idle_by_cause_pct", CausesJson()},
                      {"long_gaps", RangesJson(long_gaps)}};
        f.time_ranges = long_gaps;
      }
    }
  }

  double SmallKernelPct() const {
    uint64_t n = 0, small = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i]) continue;
      ++n;
      if (t_.kernels[i].duration_ns() < kSmallKernelNs) ++small;
    }
    return n ? 100.0 * small / n : 0.0;
  }
  uint64_t KernelsInWindow() const {
    uint64_t n = 0;
    for (uint8_t b : in_window_) n += b;
    return n;
  }
  FieldList CausesJson() const {
    FieldList c;
    for (size_t i = 0; i < kCauses; ++i) c.push_back({CauseName(static_cast<Cause>(i)), Round(PctOfWindow(static_cast<double>(cause_ns_[i]))), Unit::kPct});
    return c;
  }

  // ---- memory -----------------------------------------------------------------------------
  void RuleMemory() {
    ChecklistItem& item = Item("memory_fragmentation");
    item.threshold = fmt::format("no cudaMalloc/cudaFree after the first step [heur]; peak allocated <= {:.0f}% of device [kineto]; "
                                 "reserved - allocated < {:.0f}% of reserved or < 1 GiB [heur]",
                                 kMemoryPeakPct, kFragmentationPct);
    item.source = "[heur] DL-04 allocation churn; [kineto] peak memory > 90%; [memory] events (profile_memory=True)";
    // Allocation churn after warm-up.
    int64_t steady_calls = 0, steady_frees = 0;
    std::map<std::string, int64_t> by_name;
    for (const AllocCall& a : alloc_calls_) {
      if (a.step < kWarmupStepsExcluded) continue;
      ++steady_calls;
      by_name[a.name]++;
      if (ClassifyApi(a.name) == ApiRole::kFree) ++steady_frees;
    }
    const size_t steady_steps = steps_.size() > static_cast<size_t>(kWarmupStepsExcluded) ? steps_.size() - kWarmupStepsExcluded : 0;
    std::vector<std::string> parts;
    parts.push_back(steady_steps > 0 ? fmt::format("{:.1f} cudaMalloc/cudaFree calls per step after the first step",
                                                   static_cast<double>(steady_calls) / steady_steps)
                                     : std::string("one step: allocation churn after warm-up unknown"));
    if (steady_calls > 0) {
      const double pct = CausePct(Cause::kAlloc);
      FieldList calls;
      for (const auto& [n, c] : by_name) calls.push_back({n, c, Unit::kCount});
      Finding& f = Add(Fid::kAllocChurn, std::max(steady_frees > 0 ? FindingSeverity::kWarning : FindingSeverity::kInfo, SeverityForSaving(pct)), pct,
                       fmt::format("{:.1f} cudaMalloc/cudaFree calls per step after warm-up", static_cast<double>(steady_calls) / std::max<size_t>(1, steady_steps)),
                       "The caching allocator keeps returning memory to the driver and asking for it again (cudaFree synchronizes "
                       "the device). Remove torch.cuda.empty_cache() from the loop, keep tensor shapes stable (pad variable "
                       "lengths to buckets), or set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.");
      f.evidence = {{"calls_after_warmup", calls}, {"steps_after_warmup", steady_steps, Unit::kCount},
                    {"gpu_idle_from_allocator_pct", Round(pct), Unit::kPct},
                    {"estimate", "GPU idle opened by cudaFree or overlapping cudaMalloc/cudaFree calls"}};
      f.time_ranges = TopRanges(Cause::kAlloc);
    }
    // [memory] events: peak allocated and reserved on the device.
    // Fragmentation is judged when memory is scarcest: at the peak of allocated memory, how
    // much of what the allocator reserved is not in use.
    int64_t peak_alloc = -1, peak_res = -1, alloc_at_peak_res = -1;
    uint64_t events = 0;
    for (const MemoryEvent& m : t_.memory_events) {
      if (m.device < 0) continue;
      if (device_ >= 0 && m.device != device_) continue;
      ++events;
      if (m.total_allocated > peak_alloc || (m.total_allocated == peak_alloc && m.total_reserved > peak_res)) {
        peak_alloc = m.total_allocated;
        peak_res = m.total_reserved;
        alloc_at_peak_res = m.total_allocated;
      }
    }
    const int64_t capacity = device_ptr_ ? device_ptr_->total_memory_bytes : -1;
    if (events > 0 && peak_alloc >= 0) {
      const double peak_pct = capacity > 0 ? 100.0 * static_cast<double>(peak_alloc) / static_cast<double>(capacity) : -1;
      peak_mem_pct_ = peak_pct;
      parts.push_back(capacity > 0 ? fmt::format("peak allocated {:.1f} GB ({:.1f}% of {:.1f} GB)", peak_alloc / 1e9, peak_pct, capacity / 1e9)
                                   : fmt::format("peak allocated {:.1f} GB (device memory unknown)", peak_alloc / 1e9));
      if (peak_pct > kMemoryPeakPct) {
        Finding& f = Add(Fid::kMemoryPeak, FindingSeverity::kWarning, 0.0,
                         fmt::format("Peak allocated memory is {:.1f}% of the GPU's", peak_pct),
                         "The run is close to out-of-memory and the batch cannot grow. Use activation checkpointing "
                         "(torch.utils.checkpoint), AMP for activations, a smaller micro-batch with gradient accumulation, "
                         "or free large resident buffers.");
        f.evidence = {{"peak_allocated_bytes", peak_alloc, Unit::kBytes}, {"device_memory_bytes", capacity, Unit::kBytes}, {"peak_pct", Round(peak_pct), Unit::kPct}};
      }
      if (peak_res > 0 && alloc_at_peak_res >= 0) {
        const int64_t gap = peak_res - alloc_at_peak_res;
        const double frag = 100.0 * static_cast<double>(gap) / static_cast<double>(peak_res);
        frag_pct_ = frag;
        parts.push_back(fmt::format("at peak allocated, {:.1f} GB reserved of which {:.1f}% unallocated", peak_res / 1e9, frag));
        if (frag >= kFragmentationPct && gap >= kFragmentationMinBytes) {
          const double res_pct = capacity > 0 ? 100.0 * static_cast<double>(peak_res) / static_cast<double>(capacity) : 0.0;
          Finding& f = Add(Fid::kFragmentation, res_pct > kMemoryPeakPct ? FindingSeverity::kWarning : FindingSeverity::kInfo, 0.0,
                           fmt::format("{:.1f} GB of reserved GPU memory is not allocated ({:.0f}% of reserved)", gap / 1e9, frag),
                           fmt::format("The caching allocator holds {:.1f} GB it cannot reuse{}: typical of varying tensor "
                                       "shapes. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, bucket sequence "
                                       "lengths, or preallocate the largest batch first.",
                                       gap / 1e9, res_pct > kMemoryPeakPct ? fmt::format(" while reserved memory is at {:.0f}% of the GPU", res_pct) : ""));
          f.evidence = {{"reserved_at_peak_allocated_bytes", peak_res, Unit::kBytes}, {"peak_allocated_bytes", alloc_at_peak_res, Unit::kBytes},
                        {"fragmentation_pct", Round(frag), Unit::kPct}, {"reserved_pct_of_device", Round(res_pct), Unit::kPct}};
        }
      }
    } else {
      parts.push_back("reserved vs allocated unknown (no [memory] events)");
    }
    item.evidence = fmt::format("{}", fmt::join(parts, "; "));
    item.value = steady_steps > 0 ? std::optional<double>(Round(static_cast<double>(steady_calls) / steady_steps)) : std::nullopt;
    const bool any_info = t_.api_calls.size() > 0 || events > 0;
    if (!any_info) {
      item.status = CheckStatus::kUnknown;
      item.how_to_know = "profile with profile_memory=True (and CUDA runtime events) to see allocations";
      return;
    }
    const FindingSeverity worst = WorstSeverity("memory_fragmentation");
    if (!HasFinding("memory_fragmentation")) {
      item.status = CheckStatus::kPass;
      if (events == 0) item.how_to_know = "profile with profile_memory=True to also check reserved vs allocated memory";
    } else {
      item.status = worst == FindingSeverity::kInfo ? CheckStatus::kWarn : CheckStatus::kFail;
    }
    alloc_calls_per_step_ = steady_steps > 0 ? static_cast<double>(steady_calls) / steady_steps : 0.0;
    // Layout transforms around convolutions (data_locality).
    TimeNs layout = 0, conv = 0;
    for (size_t i = 0; i < t_.kernels.size(); ++i) {
      if (!in_window_[i]) continue;
      if (kclass_[i].category == KernelCategory::kLayoutTransform) layout = SaturatingAdd(layout, t_.kernels[i].duration_ns());
      if (kclass_[i].category == KernelCategory::kConv) conv = SaturatingAdd(conv, t_.kernels[i].duration_ns());
    }
    layout_pct_of_conv_ = conv > 0 ? 100.0 * static_cast<double>(layout) / static_cast<double>(conv) : 0.0;
    if (conv > 0 && layout_pct_of_conv_ > kLayoutPctOfConv) {
      const double pct = PctOfWindow(static_cast<double>(layout));
      std::vector<KernelTime> top = TopKernels([&](size_t i) { return kclass_[i].category == KernelCategory::kLayoutTransform; }, 3);
      std::set<std::string> ops;
      for (size_t i = 0; i < t_.kernels.size() && ops.size() < 4; ++i) {
        if (!in_window_[i] || kclass_[i].category != KernelCategory::kLayoutTransform) continue;
        const int64_t op = OpOfKernel(i);
        if (op >= 0) ops.insert(std::string(t_.str(t_.cpu_ops[op].name)));
      }
      Finding& f = Add(Fid::kLayoutTransforms, SeverityForSaving(pct), pct,
                       fmt::format("NCHW<->NHWC transposes cost {:.0f}% of convolution time", layout_pct_of_conv_),
                       fmt::format("cuDNN's Tensor Core convolutions work in NHWC, so every NCHW tensor is transposed in and "
                                   "out ({}{}). Convert the model and inputs to channels_last: "
                                   "model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last).",
                                   KernelList(top), ops.empty() ? "" : fmt::format("; around {}", fmt::join(ops, ", "))));
      f.evidence = {{"layout_transform_time_us", NsToUsRounded3(layout), Unit::kUs}, {"conv_time_us", NsToUsRounded3(conv), Unit::kUs}, {"pct_of_conv", Round(layout_pct_of_conv_), Unit::kPct},
                    {"top_kernels", top}, {"estimate", "all transpose kernel time (channels_last removes them)"}};
    }
  }

  // ---- matrix -----------------------------------------------------------------------------
  static DimensionStatus Worse(DimensionStatus a, DimensionStatus b) {
    auto rank = [](DimensionStatus s) {
      switch (s) {
        case DimensionStatus::kBad: return 3;
        case DimensionStatus::kWarn: return 2;
        case DimensionStatus::kGood: return 1;
        default: return 0;
      }
    };
    return rank(a) >= rank(b) ? a : b;
  }

  DimensionStatus FromFindings(const std::string& dim, std::vector<std::string>* ids) const {
    DimensionStatus s = DimensionStatus::kGood;
    for (const Finding& f : ra_.findings) {
      if (f.dimension != dim) continue;
      ids->push_back(f.id);
      if (f.severity == FindingSeverity::kCritical) s = Worse(s, DimensionStatus::kBad);
      if (f.severity == FindingSeverity::kWarning) s = Worse(s, DimensionStatus::kWarn);
    }
    return s;
  }

  void BuildMatrix() {
    ra_.matrix.clear();
    const bool have_kernels = kernel_total_ns_ > 0;
    for (const char* id : kDimensions) {
      DimensionResult d;
      d.id = id;
      std::vector<std::string> ids;
      const DimensionStatus from_findings = FromFindings(id, &ids);
      d.findings = ids;
      DimensionStatus head = DimensionStatus::kUnknown;
      const std::string dim = id;
      if (dim == "compute_intensity") {
        const std::optional<double> active = TcActivePct();
        d.headline = {"tensor_core_utilization_pct", active ? active : std::optional<double>(Round(tc_pct_)), "%",
                      active ? "measured" : "estimated"};
        if (!have_kernels) d.headline = {"tensor_core_utilization_pct", std::nullopt, "%", "unavailable: no kernels in the steps"};
        if (have_kernels) head = tc_pct_ >= kTensorCorePassPct ? DimensionStatus::kGood : tc_pct_ >= kTensorCoreFailPct ? DimensionStatus::kWarn : DimensionStatus::kBad;
        if (amd_) head = DimensionStatus::kUnknown;
        d.metrics = {{"tensor_core_kernel_time_pct", Round(tc_pct_), Unit::kPct},
                     {"fp32_simt_gemm_share_pct", Round(simt_share_), Unit::kPct},
                     {"large_gemm_efficiency_pct", gemm_eff_known_ ? std::optional<double>(Round(gemm_eff_pct_)) : std::nullopt, Unit::kPct}};
        if (!gemm_eff_known_) d.metrics.push_back({"large_gemm_efficiency_unavailable", gemm_eff_reason_});
        if (active) d.metrics.push_back({"tensor_active_pct", *active, Unit::kPct});
        else d.metrics.push_back({"tensor_active_unavailable", "record with --tensor-metrics to sample Tensor Core activity"});
      } else if (dim == "memory_bandwidth") {
        d.headline = {"memory_bound_kernel_time_pct", have_kernels ? std::optional<double>(Round(mem_bound_pct_)) : std::nullopt, "%",
                      have_kernels ? "estimated" : "unavailable: no kernels in the steps"};
        if (have_kernels)
          head = mem_vs_gemm_ > kMemoryBoundVsGemmBad ? DimensionStatus::kBad : mem_vs_gemm_ > kMemoryBoundVsGemmWarn ? DimensionStatus::kWarn : DimensionStatus::kGood;
        const auto it = ra_.memory.memcpy_by_kind.find("HtoD");
        d.metrics = {{"memory_bound_vs_gemm_time", Round(std::min(mem_vs_gemm_, 1e6), 3), Unit::kFactor},
                     {"cast_pct_of_step", Round(cast_pct_), Unit::kPctOfStep}};
        if (it != ra_.memory.memcpy_by_kind.end()) {
          d.metrics.push_back({"h2d_bytes_per_step", static_cast<double>(it->second.bytes) / nsteps_, Unit::kBytesPerStep});
          d.metrics.push_back({"h2d_achieved_gbs", Round(it->second.achieved_gbs()), Unit::kGbs});
          d.metrics.push_back({"h2d_pageable_copies", it->second.pageable_count, Unit::kCount});
        }
      } else if (dim == "instruction_efficiency") {
        d.headline = {"kernels_under_10us_pct", have_kernels ? std::optional<double>(Round(small_kernel_pct_)) : std::nullopt, "%",
                      have_kernels ? "measured" : "unavailable: no kernels in the steps"};
        if (have_kernels) head = DimensionStatus::kGood;
        double occ_num = 0, occ_den = 0;
        for (size_t i = 0; i < t_.kernels.size(); ++i) {
          if (!in_window_[i] || t_.kernels[i].est_occupancy_pct < 0) continue;
          occ_num += t_.kernels[i].est_occupancy_pct * static_cast<double>(t_.kernels[i].duration_ns());
          occ_den += static_cast<double>(t_.kernels[i].duration_ns());
        }
        d.metrics = {{"kernels_per_step", Round(ra_.launches.kernels_per_step), Unit::kPerStep},
                     {"median_kernel_us", NsToUsRounded3(ra_.launches.median_kernel_ns), Unit::kUs},
                     {"launch_api_time_pct_of_kernel_time",
                      kernel_total_ns_ > 0 ? Round(100.0 * static_cast<double>(ra_.launches.launch_api_time_ns) / static_cast<double>(kernel_total_ns_)) : 0.0, Unit::kPctOfKernelTime},
                     {"est_achieved_occupancy_pct", occ_den > 0 ? std::optional<double>(Round(occ_num / occ_den)) : std::nullopt, Unit::kPct},
                     {"cuda_graph_kernels", ra_.launches.graph_launched_kernels, Unit::kCount},
                     {"pc_sampling", "unavailable: not collected"}};
      } else if (dim == "data_locality") {
        if (peak_mem_pct_ >= 0) {
          d.headline = {"peak_memory_pct_of_device", Round(peak_mem_pct_), "%", "measured"};
        } else {
          d.headline = {"alloc_calls_per_step_after_warmup", Round(alloc_calls_per_step_), "calls",
                        t_.api_calls.empty() ? "unavailable: no runtime events" : "measured"};
        }
        if (!t_.api_calls.empty() || peak_mem_pct_ >= 0 || have_kernels) head = DimensionStatus::kGood;
        d.metrics = {{"alloc_calls_per_step_after_warmup", Round(alloc_calls_per_step_), Unit::kCallsPerStep},
                     {"layout_transform_pct_of_conv", Round(layout_pct_of_conv_), Unit::kPctOfConv},
                     {"reserved_unallocated_pct", frag_pct_ >= 0 ? std::optional<double>(Round(frag_pct_)) : std::nullopt, Unit::kPct}};
        if (peak_mem_pct_ < 0) d.metrics.push_back({"memory_unavailable", "profile with profile_memory=True for peak and reserved memory"});
      } else {
        d.headline = {"gpu_busy_pct", windows_.empty() ? std::nullopt : std::optional<double>(Round(busy_pct_)), "%",
                      windows_.empty() ? "unavailable: no analysed window" : "measured"};
        if (!windows_.empty() && (have_kernels || !t_.memcpys.empty()))
          head = busy_pct_ >= kBusyGoodPct ? DimensionStatus::kGood : busy_pct_ >= kBusyBadPct ? DimensionStatus::kWarn : DimensionStatus::kBad;
        d.metrics = {{"idle_by_cause_pct", CausesJson()},
                     {"syncs_per_step_beyond_grad_scaler", Round(syncs_beyond_per_step_), Unit::kPerStep},
                     {"exposed_dataloader_pct", Round(dl_exposed_pct_), Unit::kPctOfStep},
                     {"comm_compute_overlap_pct", comm_overlap_pct_ >= 0 ? std::optional<double>(Round(comm_overlap_pct_)) : std::nullopt, Unit::kPct},
                     {"host_active_pct", host_active_known_ ? std::optional<double>(Round(PctOfWindow(static_cast<double>(host_active_ns_)))) : std::nullopt, Unit::kPct}};
      }
      d.status = head == DimensionStatus::kUnknown && ids.empty() ? DimensionStatus::kUnknown : Worse(head == DimensionStatus::kUnknown ? DimensionStatus::kGood : head, from_findings);
      ra_.matrix.push_back(std::move(d));
    }
    // Checklist in DESIGN order.
    ra_.checklist.clear();
    for (const char* id : kChecklist) {
      ChecklistItem c = Item(id);
      c.unit = ChecklistValueUnit(id);
      if (c.status == CheckStatus::kUnknown && c.how_to_know.empty()) c.how_to_know = "not enough data in the trace";
      ra_.checklist.push_back(std::move(c));
    }
  }

  void Rank() {
    auto sev = [](FindingSeverity s) { return static_cast<int>(s); };
    std::stable_sort(ra_.findings.begin(), ra_.findings.end(), [&](const Finding& a, const Finding& b) {
      if (a.est_saving_pct != b.est_saving_pct) return a.est_saving_pct > b.est_saving_pct;
      if (a.severity != b.severity) return sev(a.severity) > sev(b.severity);
      return CatalogOrder(a.id) < CatalogOrder(b.id);
    });
  }

  // ---- state ------------------------------------------------------------------------------
  // Kernel classes by kernel index, from the context (the rules index them like a vector).
  class KernelClasses {
   public:
    explicit KernelClasses(const RankContext& c) : c_(c) {}
    const KernelClass& operator[](size_t i) const { return c_.kernel_class(i); }

   private:
    const RankContext& c_;
  };
  // Kernel -> launching API call, from the context, with the map-like find() the rules use.
  class LaunchOf {
   public:
    struct Hit {
      size_t first;
      int64_t second;
    };
    struct It {
      Hit h{0, -1};
      const Hit* operator->() const { return &h; }
      bool operator==(const It& o) const { return (h.second < 0) == (o.h.second < 0); }
      bool operator!=(const It& o) const { return !(*this == o); }
    };
    explicit LaunchOf(const std::vector<int64_t>& v) : v_(v) {}
    It find(size_t i) const { return i < v_.size() ? It{{i, v_[i]}} : It{}; }
    It end() const { return It{}; }
    int64_t at(size_t i) const { return v_.at(i); }

   private:
    const std::vector<int64_t>& v_;
  };

  const RankContext& ctx_;
  const Trace& t_;
  const AnalysisOptions& o_;
  RankAnalysis& ra_;
  const std::vector<Interval>& windows_;
  TimeNs window_ns_ = 0;
  size_t nsteps_ = 1;
  int32_t device_ = 0;
  const Device* device_ptr_ = nullptr;
  std::vector<GpuPeak> custom_peaks_;
  const GpuPeak* peak_ = nullptr;
  bool amd_ = false;
  KernelClasses kclass_;
  const std::vector<uint8_t>& in_window_;
  TimeNs kernel_total_ns_ = 0, rocm_ns_ = 0;
  const std::vector<Interval>& busy_;
  const std::vector<Interval>& comm_;
  const std::vector<Interval>& compute_;
  TimeNs busy_in_windows_ns_ = 0;
  const std::vector<std::pair<TimeNs, uint32_t>>& kernel_launch_;
  LaunchOf launch_of_;
  const std::vector<Interval>& dataloader_;
  const std::set<std::string>& dataloader_names_;
  const std::set<std::string>& optimizer_names_;
  const std::vector<TidRange>& optimizer_ranges_;
  std::vector<StepFacts> steps_;
  const std::vector<SyncPointInfo>& sync_points_;
  const std::vector<Interval>& blocking_;
  const std::vector<IdleGap>& gaps_;
  std::array<TimeNs, kCauses> cause_ns_{};
  std::array<std::vector<Interval>, kCauses> cause_gaps_;
  const std::vector<AllocCall>& alloc_calls_;
  TimeNs host_active_ns_ = 0;
  bool host_active_known_ = false;
  std::vector<ChecklistItem> checklist_;
  // results used by the matrix
  double tc_pct_ = 0, simt_share_ = 0, gemm_eff_pct_ = 0, mem_bound_pct_ = 0, mem_vs_gemm_ = 0, cast_pct_ = 0;
  bool gemm_eff_known_ = false, amp_not_in_use_ = false;
  std::string gemm_eff_reason_;
  int64_t lowp_loss_ops_ = 0;
  TimeNs lowp_loss_ns_ = 0;
  std::vector<std::string> lowp_loss_names_;
  double dl_exposed_pct_ = 0, syncs_beyond_per_step_ = 0, comm_overlap_pct_ = -1, busy_pct_ = 0, small_kernel_pct_ = 0;
  double peak_mem_pct_ = -1, frag_pct_ = -1, alloc_calls_per_step_ = 0, layout_pct_of_conv_ = 0;
};

}  // namespace

void Diagnose(const RankContext& context, RankAnalysis& ra) {
  const Trace& trace = context.trace();
  ra.matrix.clear();
  ra.checklist.clear();
  ra.findings.clear();
  Diagnoser(context, ra).Run();
  if (trace.kernels.empty() && trace.memcpys.empty() && trace.memsets.empty()) {
    // A CPU-only run (no CUDA device, or no GPU work): GPU verdicts ("GPU 0% busy") would make
    // a healthy CPU run look broken. Only the host-side input-pipeline check stands (the
    // DataLoader's share of the step needs no GPU); everything else is unknown, with why.
    static const char* kWhy = "no GPU activity was recorded (no CUDA device, or the program did no GPU work)";
    std::vector<Finding> kept;
    for (Finding& f : ra.findings)
      if (f.id == "dataloader_bottleneck") kept.push_back(std::move(f));
    ra.findings = std::move(kept);
    for (DimensionResult& d : ra.matrix) {
      d.status = DimensionStatus::kUnknown;
      d.headline.value.reset();
      d.headline.source = std::string("unavailable: ") + kWhy;
      std::vector<std::string> ids;
      for (const std::string& id : d.findings)
        for (const Finding& f : ra.findings)
          if (f.id == id) ids.push_back(id);
      d.findings = ids;
    }
    for (ChecklistItem& c : ra.checklist) {
      if (c.id == "data_pipeline") continue;
      c.status = CheckStatus::kUnknown;
      c.value.reset();
      c.source = "unavailable";
      c.evidence = kWhy;
      c.how_to_know = "record the program on a machine with a CUDA GPU";
    }
  }
}

}  // namespace ampscope
