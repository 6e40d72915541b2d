// The facts every diagnosis rule family reads, built once per rank from the analysis context
// and the core analyzers' results, and the sink the rules add findings and checklist items to.
// Rules are free functions of (Facts, FindingSink) that return typed outcomes (rules.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/context.h"
#include "analyzers/diagnosis/diagnosis.h"
#include "analyzers/diagnosis/catalog.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "analyzers/graph/transforms.h"
#include "trace/classify/host_roles.h"

namespace ampscope::diagnosis {

double Round(double v, int digits = 2);
inline double Ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }
FindingSeverity SeverityForSaving(double pct);

// Categories whose kernels are bound by memory bandwidth (MB-01).
bool IsMemoryBound(KernelCategory c);
// Kernels a fused kernel (torch.compile / a fused op) would merge into one pass (CK-FU).
bool IsFusable(KernelCategory c);
bool IsMatmulClass(KernelCategory c);

// The runtime calls (indices into trace.api_calls, sorted) of the context's sync points that are
// GradScaler's (`scaler`) or not: what removing those syncs removes. Never a blocking input copy's
// (.to('cuda') from pageable memory): that is the pageable-copy finding's, whose fix removes it.
class Facts;
std::vector<uint32_t> SyncPointCalls(const Facts& in, bool scaler);

// precision.cc's full-precision op groups (`fp32_ops_top`) as evidence records.
std::vector<FieldList> OpRecords(const std::vector<OpPrecision>& ops);

// Per analysed step: GradScaler and optimizer kernels launched in it, idle at its start.
// Indexed like ra.steps.steps, which holds each step's times and number (not repeated here: one
// of these a step is alive through every replay).
struct StepFacts {
  int updates = 0, unscales = 0;
  int optimizer_ranges = 0;
  int optimizer_kernels = 0;           // launched inside Optimizer.step ranges
  int optimizer_category_kernels = 0;  // any multi_tensor_apply optimizer kernel in the step
  int per_param_optimizer_kernels = 0; // optimizer-range kernels that are not multi_tensor_apply
  bool fused_optimizer = false;
  TimeNs idle_at_start_ns = 0;
};

// The GPU the rank ran on and its peak-table row.
struct GpuFacts {
  int32_t device = 0;
  const Device* info = nullptr;
  std::vector<GpuPeak> table;         // the run's peak table (--gpu-peaks, else the built-in one)
  DeviceInfo row;                     // the device's row: InputInfo's lookup (device_peak.h)
  const GpuPeak* peak = nullptr;      // null: not in the table (else &*row.peak)
  bool amd = false;
};

// GPU idle time by cause (context's gap causes, summed) and the host's own busy time.
struct IdleFacts {
  std::array<TimeNs, kIdleCauses> ns{};
  TimeNs host_active_ns = 0;  // host busy outside sync points, inside the windows
  bool host_active_known = false;
};

// What kind of run this is: the facts the advice depends on (docs/findings.md, "Facts").
enum class RunKind : uint8_t { kUnknown, kTraining, kInference };
struct RunFacts {
  RunKind kind = RunKind::kUnknown;
  std::string kind_basis;             // what told the kind ("backward ops", "no backward, no optimizer step" ...)
  std::string optimizer;              // the class that ran ("SGD", "AdamW"), from Optimizer.step#<class>.step; "" unknown
  OptimizerOptions optimizer_options; // what that class offers (foreach=, fused=)
  bool fused_optimizer = false;       // fused optimizer kernels ran (role optimizer_fused)
  bool foreach_optimizer = false;     // multi_tensor_apply optimizer kernels ran
  bool dataloader = false;            // DataLoader ranges exist
  int cc_major = -1, cc_minor = -1;   // NVIDIA compute capability; -1 unknown or not NVIDIA
  bool arch_inferred = false;         // cc from kernel names (a lower bound), not device properties
};

class Facts {
 public:
  // `peaks`: the run's peak table as the rank's driver loaded it (RunPeakTable); without it, it
  // is loaded here.
  Facts(const RankContext& context, const RankAnalysis& ra, const std::vector<GpuPeak>& peaks);
  Facts(const RankContext& context, const RankAnalysis& ra);
  Facts(const Facts&) = delete;
  Facts& operator=(const Facts&) = delete;

  const RankContext& ctx;
  const Trace& t;
  const RankAnalysis& ra;
  TimeNs window_ns = 0;
  size_t nsteps = 1;  // at least 1 (per-step divisions)
  TimeNs kernel_total_ns = 0, rocm_ns = 0, busy_in_windows_ns = 0;
  GpuFacts gpu;
  RunFacts run;
  std::vector<StepFacts> steps;
  IdleFacts idle;

  bool InWindow(size_t kernel) const { return ctx.kernels().in_window[kernel] != 0; }
  const KernelClass& cls(size_t kernel) const { return ctx.kernel_class(kernel); }
  // Index into host().optimizer_steps of the Optimizer.step range around host time t on tid, or -1.
  int64_t OptimizerRangeAt(TimeNs t, int64_t tid) const;
  // The optimizer range around kernel i's launch, or -1.
  int64_t OptimizerRangeOfKernel(size_t i) const;
  // The Optimizer.zero_grad range (index into host().zero_grad) around kernel i's launch, or -1.
  int64_t ZeroGradRangeOfKernel(size_t i) const;
  double PctOfWindow(double ns) const { return window_ns > 0 ? 100.0 * ns / static_cast<double>(window_ns) : 0.0; }
  TimeNs CauseNs(IdleCause c) const { return idle.ns[static_cast<size_t>(c)]; }
  double CausePct(IdleCause c) const { return PctOfWindow(static_cast<double>(CauseNs(c))); }
  // The n longest pieces of the gaps where cause c has its time (CausePieces), by start. Cut from
  // the gaps when asked (a few rules ask once each), not kept through the replays.
  std::vector<std::pair<TimeNs, TimeNs>> TopRanges(IdleCause c, size_t n = 8) const;
  FieldList CausesJson() const;
  // A time point on the trace clock said relative to what a reader knows: "in step 7 at +12.345 ms",
  // else "at +12.345 ms into the analysed window" (texts never carry the trace clock's epoch).
  std::string WhenText(TimeNs t) const;
  // Sum of the durations of in-window kernels that `pick` selects.
  TimeNs KernelNs(const std::function<bool(size_t)>& pick) const;
  std::vector<KernelTime> TopKernels(const std::function<bool(size_t)>& pick, size_t n = 5) const;
  std::string KernelList(const std::vector<KernelTime>& top, size_t n = 3) const;
  // Peak ratio fp32 SIMT / fp16 Tensor Core of this GPU (what moving fp32 math to Tensor
  // Cores can gain at best). Unknown GPU: the most conservative ratio in the table.
  double SimtToTcRatio(std::string* basis) const;
  double TcKernelPct() const;
  const OpLevelPrecision* OpLevel() const;

  bool training() const { return run.kind == RunKind::kTraining; }
  bool inference() const { return run.kind == RunKind::kInference; }
  // bf16 Tensor Cores: NVIDIA from sm80 (Ampere) on; AMD CDNA matrix cores. False when unknown.
  bool Bf16TensorCores() const;
  // The vendor's words for advice: an AMD (ROCm) run gets no cuDNN or Tensor Core wording.
  // "Tensor Cores" | "matrix cores (MFMA)"; "Tensor Core" | "matrix-core" as an adjective;
  // "Tensor-Core" | "matrix-core" (as in "-eligible"); "cuDNN" | "MIOpen"; "cuBLAS/cuBLASLt" |
  // "hipBLASLt/rocBLAS".
  const char* MatrixUnits() const { return gpu.amd ? "matrix cores (MFMA)" : "Tensor Cores"; }
  const char* MatrixUnit() const { return gpu.amd ? "matrix-core" : "Tensor Core"; }
  const char* MatrixUnitHyphen() const { return gpu.amd ? "matrix-core" : "Tensor-Core"; }
  const char* DnnLibrary() const { return gpu.amd ? "MIOpen" : "cuDNN"; }
  const char* BlasLibrary() const { return gpu.amd ? "hipBLASLt/rocBLAS" : "cuBLAS/cuBLASLt"; }
  // The GPU's architecture in words ("sm70", "an AMD GPU", "an unknown GPU").
  std::string ArchName() const;
  // The autocast to advise on this GPU: bf16 from sm80 on (no GradScaler), else fp16 with a
  // GradScaler when training; e.g. "torch.autocast(device_type='cuda', dtype=torch.float16) with
  // torch.amp.GradScaler('cuda') (sm70 has no bf16 Tensor Cores)".
  std::string AutocastAdvice() const;

 private:
  void BuildGpu(const std::vector<GpuPeak>& peaks);
  void BuildSteps();
  void BuildIdle();
  // Appends to `out` the pieces of gap g where cause `want` has its time (none when gc gives it none).
  void CausePieces(const IdleGap& g, const GapCauses& gc, IdleCause want, std::vector<Interval>& out) const;
  void BuildRun();
};

// Whether a finding stays when its replayed saving is below kMinSavingPct.
enum class SavingGate : uint8_t {
  kKeep,        // the rule raises it on a condition of its own (a count, a share, a threshold)
  kMinSaving,   // the rule raises it for its time: below kMinSavingPct it is dropped
  kResidual,    // what the other findings leave: its saving is what its fix adds to all of
                // theirs (replayed), and below kMinSavingPct it is dropped
};

// A finding's fix: the what-if transform its saving is replayed with (analyzers/graph/).
struct FindingFix {
  size_t finding = 0;  // index into the sink's findings
  graph::Transform transform;
  SavingGate gate = SavingGate::kKeep;
};

// Collects findings (into ra.findings) and checklist items.
class FindingSink {
 public:
  explicit FindingSink(std::vector<Finding>& findings) : findings_(findings) {}
  // Adds finding `id` (catalogued) with the severity its catalogue rule gives for saving_pct;
  // `condition` is the kWarningWhen rule's condition. A finding with a fix (Fix) gets its saving
  // and severity again from the replay (ReplaySavings).
  Finding& Add(std::string_view id, double saving_pct, std::string title, std::string recommendation,
               bool condition = true);
  // Attaches the fix whose replay gives finding f's est_saving_pct: the one line a rule needs
  // to make a saving a consequence of the run's dependencies (docs/whatif.md).
  void Fix(const Finding& f, graph::Transform transform, SavingGate gate = SavingGate::kKeep);
  const std::vector<FindingFix>& fixes() const { return fixes_; }
  // Sets a finding's saving (0-100) and the severity its catalogue rule gives for it.
  void SetSaving(size_t finding, double saving_pct);
  // Drops the findings whose `drop` entry is set (keeps fixes and conditions in step).
  void Drop(const std::vector<uint8_t>& drop);
  ChecklistItem& Item(std::string_view id);
  bool HasFinding(std::string_view checklist) const;
  // The worst severity of the item's findings, a risk counting as a warning.
  FindingSeverity WorstSeverity(std::string_view checklist) const;
  const std::vector<Finding>& findings() const { return findings_; }
  std::vector<ChecklistItem>& items() { return checklist_; }
  // True for a finding its rule rated warning or worse that is info for want of a time saving
  // (a risk: memory near capacity, fp16 without a scaler): its dimension still warns.
  bool IsRisk(std::string_view id) const;

 private:
  FindingSeverity SeverityOf(std::string_view id, double saving_pct, bool condition);

  std::vector<Finding>& findings_;
  std::vector<ChecklistItem> checklist_;
  std::vector<std::string> risks_;
  std::vector<uint8_t> conditions_;  // per finding: the kWarningWhen condition
  std::vector<FindingFix> fixes_;
};

}  // namespace ampscope::diagnosis
