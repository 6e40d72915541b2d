// Analyzer results: what analyzers compute from the trace model and reports render.
// Analyzers are pure functions of a Trace (plus options); they never print.
// All times here are ns (fields end in _ns); percentages are 0-100.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyzers/results/collectives_result.h"
#include "analyzers/results/fields.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "base/by_value_iterator.h"
#include "analyzers/integrity/integrity_result.h"
#include "analyzers/results/precision_result.h"
#include "analyzers/results/results.h"
#include "trace/classify/kernel_classifier.h"
#include "trace/model.h"

namespace ampscope {

namespace roofline {
struct RooflineResult;  // analyzers/roofline/roofline_result.h
}
struct MemorySnapshotResult;  // analyzers/results/memory_snapshot_result.h
struct NcuReport;  // trace/formats/ncu/ncu_model.h: an Nsight Compute CSV as read
namespace ncu {
struct NcuResult;  // analyzers/ncu/ncu_result.h: its kernels classified, joined and weighed
}
namespace graph {
struct CriticalPathResult;  // analyzers/graph/critical_path_result.h
}

struct AnalysisOptions {
  // Regex (ECMAScript, matched against the whole name) for user/NVTX ranges that mark a step
  // when there is no ProfilerStep#N.
  std::string step_range_pattern = "(?:[Ss]tep|[Ii]teration|train_step)(?:[ #_:-]*\\d+)?";
  // Only analyse steps with index (0-based position among detected steps) in [first, last].
  // Steps chosen this way are analysed as chosen: warm-up steps among them are named, not left out.
  std::optional<int64_t> first_step;
  std::optional<int64_t> last_step;
  // Keep warm-up and cold-start steps in the analysed window (default: they are left out and the
  // report says which and why; analyzers/integrity/warmup.h).
  bool include_warmup = false;
  // Override the GPU used to look up peaks (e.g. "A100-80GB-SXM4").
  std::string gpu_override;
  // Path of gpu_peaks.tsv-style table; empty = built-in table.
  std::string gpu_peaks_path;
  // Threads one rank's analysis may use: with 2 or more, independent parts (the op tree beside
  // the busy intervals and idle gaps, the roofline beside the other analyzers) run side by
  // side. Never changes a result; not part of a summary.
  int threads = 1;
  // An Nsight Compute CSV of the same run (`analyze TRACE --ncu FILE`): its kernels are joined to
  // the trace's and fill the matrix's measured values (analyzers/ncu/). Not part of a summary.
  std::shared_ptr<const NcuReport> ncu;
};

// Where the steps came from. Without ProfilerStep#N or a step-named range, iterations are read
// from ranges that recur once per iteration (analyzers/context/iterations.h): Optimizer.step#..., the
// DataLoader's __next__, a repeating top-level forward. Values keep their numbers (summaries).
enum class StepSource : uint8_t { kProfilerStep, kNvtx, kInferred, kNone, kOptimizerStep, kDataLoader, kForward };
// "profiler_step" | "nvtx" | "inferred" | "none" | "optimizer_step" | "dataloader" | "forward"
const char* StepSourceName(StepSource s);

struct StepWindow {
  int64_t number = -1;      // N of ProfilerStep#N, else the index
  std::string name;
  TimeNs cpu_start_ns = 0;  // the CPU range
  TimeNs cpu_end_ns = 0;
  TimeNs start_ns = 0;      // analysed window: CPU start .. max(CPU end, end of GPU work launched inside)
  TimeNs end_ns = 0;
  TimeNs duration_ns() const { return end_ns - start_ns; }
};

// A detected step that is not what the analysis assumes a step is: a warm-up or cold-start step
// (longer than the steady state, with one-time CUDA work in it), or a step the profiler cut
// (no or too little of its GPU work recorded).
enum class StepFlagKind : uint8_t { kWarmup, kCut };
const char* StepFlagKindName(StepFlagKind k);  // "warmup" | "cut"
struct FlaggedStep {
  StepWindow window;
  StepFlagKind kind = StepFlagKind::kWarmup;
  bool excluded = true;  // left out of the analysed window (false: kept, --include-warmup or --steps)
  std::string reason;    // one line, durations only (no trace-clock times)
};

struct StepAnalysis {
  StepSource source = StepSource::kNone;
  std::string anchor;       // the range name the iterations were read from (optimizer_step, dataloader, forward)
  size_t detected = 0;      // steps found before any was left out
  std::vector<FlaggedStep> flagged;  // warm-up and cut steps, in step order, excluded or kept
  std::vector<StepWindow> steps;
  // The trace kept these steps' events only, of more (TraceMetadata::step_sampling; its
  // steps_in_trace is 0 when every step is here).
  StepSampling sampling;
  TimeNs window_start_ns = 0;  // first step start (or trace start when there are no steps)
  TimeNs window_end_ns = 0;
  TimeNs window_ns() const { return window_end_ns - window_start_ns; }
};

struct IdleBreakdownNs {
  TimeNs host_wait_ns = 0;
  TimeNs kernel_wait_ns = 0;
  TimeNs other_ns = 0;
  uint64_t host_wait_gaps = 0;
  uint64_t kernel_wait_gaps = 0;
  uint64_t other_gaps = 0;
};

// One idle gap on the GPU (between merged busy intervals), classified with HTA's rules: if the
// launch of the work that ends the gap started after the gap began, the GPU waited for the host
// (host_wait); else a gap under 30 µs is kernel_wait; else other.
enum class IdleKind : uint8_t { kHostWait, kKernelWait, kOther };
const char* IdleKindName(IdleKind k);  // "host_wait" | "kernel_wait" | "other"
struct IdleGap {
  TimeNs start_ns;
  TimeNs end_ns;
  int32_t device;
  IdleKind kind;
  // The work that ends the gap had been queued before it began: its launch call had returned.
  // The GPU then waited for something other than this process's host (a dependency inside a
  // CUDA graph, another process, an activity the trace lacks), so no host wait opened the gap.
  bool queued = false;
};

// What the host was doing while the main GPU idled (host_wait and other gaps), in attribution
// order: DataLoader ranges, pageable copies and allocator calls take the time they overlap; the
// rest goes to what opened the gap (a sync, a cudaFree, or the host not launching fast enough),
// except, in a gap the host opened, stretches of kUntracedHostNs or more with no recorded host
// activity at all (kHostUntraced: Python outside ops, a GIL held elsewhere, I/O; not launch overhead).
enum class IdleCause : uint8_t { kDataLoader, kPageable, kAlloc, kSync, kScalerSync, kHost, kHostUntraced, kOther, kCount };
inline constexpr size_t kIdleCauses = static_cast<size_t>(IdleCause::kCount);
// "data_loader" | "pageable_copy" | "allocator" | "host_sync" | "grad_scaler_sync" | "host_launch" |
// "host_untraced" | "other"
const char* IdleCauseName(IdleCause c);

// The GPU time of one idle gap on the main device, split by cause (RankContext::AttributeGaps).
struct IdleGapCauses {
  uint32_t gap = 0;  // index into GpuTimeAnalysis::idle_gaps
  std::array<TimeNs, kIdleCauses> ns{};
};

// The cause splits of the idle gaps, in gap order, kept sparse: each split's causes with time,
// most often one (the host not launching fast enough), not a slot for each cause. At ~2 gaps a
// step the dense splits (72 B each) were the largest per-step structure of the analysis; a split
// of one cause takes 17 B here. A split is read whole, by value (operator[], the iterators).
class IdleGapCauseTable {
 public:
  // Appends a split (the zero causes are not kept).
  void Add(const IdleGapCauses& split);
  // Room for `splits` splits of one cause each.
  void Reserve(size_t splits);
  // Frees the pieces' growth slack when more than a quarter of it is unused.
  void TrimSlack();
  void clear();

  size_t size() const { return gap_.size(); }
  bool empty() const { return gap_.empty(); }
  uint32_t gap(size_t i) const { return gap_[i]; }
  IdleGapCauses operator[](size_t i) const;
  size_t pieces() const { return piece_ns_.size(); }  // causes with time, all splits
  size_t allocated_bytes() const;

  using Iterator = ByValueIterator<IdleGapCauseTable, IdleGapCauses>;
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  std::vector<uint32_t> gap_;           // per split: index into GpuTimeAnalysis::idle_gaps
  std::vector<uint32_t> first_piece_;   // per split: its first piece (the next split's ends it)
  std::vector<IdleCause> piece_cause_;  // per piece
  std::vector<TimeNs> piece_ns_;        // per piece, never 0
};

struct GpuTimeAnalysis {
  TimeNs window_ns = 0;           // sum of step windows (or the whole trace span without steps)
  TimeNs busy_ns = 0;             // union of kernels + memcpy + memset inside the window
  TimeNs kernel_busy_ns = 0;      // union of kernels alone
  TimeNs memcpy_busy_ns = 0;      // union of memcpy alone
  TimeNs memset_busy_ns = 0;
  IdleBreakdownNs idle;           // window_ns - busy_ns split by HTA's rules; sums exactly to it
  std::array<TimeNs, static_cast<size_t>(KernelCategory::kCount)> kernel_time_by_category_ns{};
  std::array<TimeNs, static_cast<size_t>(Precision::kCount)> kernel_time_by_precision_ns{};
  TimeNs kernel_time_total_ns = 0;  // sum of kernel durations in the window (not merged)
  uint64_t kernel_count = 0;
  uint64_t kernels_under_10us = 0;
  std::map<int32_t, TimeNs> busy_by_device_ns;
  std::vector<IdleGap> idle_gaps;  // every device's gaps in the windows (what the idle tracks draw)
  IdleGapCauseTable idle_gap_causes;  // host_wait / other gaps of the main device, in gap order
};

struct MemcpyKindStats {
  uint64_t count = 0;
  uint64_t bytes = 0;
  TimeNs time_ns = 0;
  uint64_t pageable_count = 0;    // source or destination is pageable host memory
  uint64_t pageable_bytes = 0;
  double achieved_gbs() const { return time_ns > 0 ? double(bytes) / double(time_ns) : 0.0; }
};

struct MemoryTrafficAnalysis {
  std::map<std::string, MemcpyKindStats> memcpy_by_kind;  // key: MemcpyKindName
  uint64_t memset_count = 0;
  uint64_t memset_bytes = 0;
  TimeNs memset_time_ns = 0;
};

// One host-blocking sync point (analyzers/context/context.cc says what counts). A blocking copy
// followed at once by a stream sync on the same thread (.item()) is one point.
struct SyncPoint {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::string api;       // the call(s): "cudaStreamSynchronize", "cudaMemcpyAsync DtoH + cudaStreamSynchronize",
                         // "cuda_sync:stream_sync" (CUPTI record, traces without runtime calls)
  int64_t tid = -1;
  int64_t step_index = -1;  // the step whose CPU range contains start_ns
  std::string label;        // "<outermost op> > <innermost op>: <api>", or api without ops
  std::string waited_for;   // the kernel launched just before (what the host waited for)
  TimeNs blocked_ns = 0;    // host time inside the call(s)
  bool scaler = false;      // GradScaler's found_inf check (the kernel waited for is a scaler kernel)
  // A blocking host-to-device copy (tensor.to('cuda') from pageable memory, or without
  // non_blocking=True: the copy, and the stream sync PyTorch issues after it): a copy problem
  // (pinned memory, non_blocking=True), not a sync the user wrote.
  bool input_copy = false;
};

struct SyncAnalysis {
  uint64_t api_sync_count = 0;            // explicit sync APIs + synchronous memcpy in the window
  uint64_t cuda_sync_event_count = 0;     // CUPTI SYNCHRONIZATION records (excluding stream-wait-event)
  std::map<std::string, uint64_t> by_api;
  TimeNs api_sync_time_ns = 0;            // host time blocked in sync APIs
  double syncs_per_step = 0;
  uint64_t input_copy_count = 0;          // points that are blocking host-to-device copies (SyncPoint::input_copy)
  std::vector<SyncPoint> points;          // capped (first 10000)
};

struct LaunchAnalysis {
  uint64_t kernels = 0;
  double kernels_per_step = 0;
  uint64_t launch_api_calls = 0;
  TimeNs launch_api_time_ns = 0;          // host time in launch APIs
  TimeNs median_kernel_ns = 0;
  double pct_kernels_under_10us = 0;
  uint64_t graph_launched_kernels = 0;
};

// A kernel aggregated by name (for top-N lists and `ampscope kernels`).
struct KernelSummary {
  StringId name = kNoString;
  std::string name_str;
  uint64_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  KernelClass cls;
};

// ---------------------------------------------------------------------------------------
// Matrix, checklist, findings (filled by analyzers/diagnosis.cc)

enum class DimensionStatus : uint8_t { kGood, kWarn, kBad, kUnknown };
const char* DimensionStatusName(DimensionStatus s);  // "good" | "warn" | "bad" | "unknown"

enum class CheckStatus : uint8_t { kPass, kWarn, kFail, kUnknown, kNotApplicable };
const char* CheckStatusName(CheckStatus s);  // "pass" | "warn" | "fail" | "unknown" | "not_applicable"

enum class FindingSeverity : uint8_t { kInfo, kWarning, kCritical };
const char* FindingSeverityName(FindingSeverity s);  // "info" | "warning" | "critical"

struct Headline {
  std::string name;
  std::optional<double> value;   // nullopt -> null in JSON
  std::string unit;
  std::string source;            // "measured" | "estimated" | "unavailable: <why>"
};

struct DimensionResult {
  std::string id;               // compute_intensity, memory_bandwidth, instruction_efficiency, data_locality, task_parallelism
  DimensionStatus status = DimensionStatus::kUnknown;
  Headline headline;
  FieldList metrics;
  // Finding ids: those counted against the dimension, then those of other dimensions that
  // explain its headline (pageable copies explain low GPU busy; diagnosis/matrix.cc). A bad
  // dimension always has one.
  std::vector<std::string> findings;
};

struct ChecklistItem {
  std::string id;               // tensor_core_utilization, autocast_coverage, grad_scaler, kernel_fusion, data_pipeline, distributed_sync, memory_fragmentation
  CheckStatus status = CheckStatus::kUnknown;
  std::optional<double> value;
  Unit unit = Unit::kNone;      // what `value` is in ("% of step", "calls/step", ...)
  std::string threshold;
  std::string source;
  std::string evidence;
  std::string how_to_know;      // when unknown: what would make it known
  // The findings that explain its status: those counted against the item, then those of other
  // items that explain its value (diagnosis/matrix.cc). A failing item always has one.
  std::vector<std::string> findings;
  // A job's item (several ranks): the rank whose value and evidence it shows, the first rank of
  // the worst status (pipeline/job.cc). Absent in a rank's own item.
  std::optional<int32_t> numbers_of_rank;
};

// How far a finding can be trusted: "low" when it rests on a metric a trace-integrity check
// found unreliable (a sampled trace's idle time, a cold start's launch times ...).
enum class Confidence : uint8_t { kHigh, kLow };
const char* ConfidenceName(Confidence c);  // "high" | "low"

struct Finding {
  std::string id;               // stable, catalogued in docs/findings.md
  FindingSeverity severity = FindingSeverity::kInfo;
  std::string dimension;
  std::string checklist;
  std::string title;
  FieldList evidence;            // typed named values (analyzers/results/fields.h)
  std::string recommendation;
  double est_saving_pct = 0;
  std::vector<std::pair<TimeNs, TimeNs>> time_ranges;  // where it shows in the trace (for the Chrome trace)
  Confidence confidence = Confidence::kHigh;
  std::string confidence_reason;  // why low: the integrity checks it rests on ("sampling: ...")
};

// What the analysis decided about each kernel, indexed like trace.kernels: exporters draw these
// next to the kernel instead of classifying or assigning it again.
struct KernelAnnotations {
  std::vector<KernelClass> classes;  // one per distinct kernel name of the trace
  std::vector<uint32_t> class_of;    // per kernel: index into classes
  std::vector<int32_t> step;         // per kernel: the step window containing its start, -1 outside
  std::vector<int64_t> cpu_op;       // per kernel: index into trace.cpu_ops of the op that launched it, -1
  std::vector<uint8_t> in_window;    // per kernel: 1 when it starts inside the analysed windows
  const KernelClass& class_of_kernel(size_t i) const { return classes[class_of[i]]; }
};

// A device the rank used (every listed device when it recorded no GPU work), with the peak row
// found for it in the options' table (--gpu-peaks, else the built-in one; --gpu overrides the
// name): the one lookup the report's `devices[].peak` shows.
struct DeviceInfo {
  Device device;
  std::optional<GpuPeak> peak;  // absent: no row matches
  std::string peak_match;       // how the row was found ("device name", "assumed: ...") or why none was
};

// What the report says about one input, kept so that the trace itself can be dropped once the
// rank is analysed (the report, summaries and merge need only this).
struct InputInfo {
  std::string path;
  SourceFormat format = SourceFormat::kUnknown;
  uint64_t events = 0;          // events seen in the input
  uint64_t bytes = 0;           // size as read (uncompressed bytes for .gz)
  uint64_t file_bytes = 0;      // size of the file on disk (0: unknown)
  int32_t trace_rank = -1;      // the rank the trace names (-1: none)
  int32_t world_size = -1;
  std::string host, driver_version, cuda_runtime_version, cupti_version, framework_version;
  std::vector<DeviceInfo> devices;
  Diagnostics diagnostics;      // the reader's
};
// `peaks`: the run's peak table (analyzers/peaks/device_peak.h, RunPeakTable), loaded once by
// the caller that also gives it to the roofline and the diagnosis; without it, loaded here.
InputInfo DescribeInput(const Trace& trace, const AnalysisOptions& options, const std::vector<GpuPeak>& peaks);
InputInfo DescribeInput(const Trace& trace, const AnalysisOptions& options);

// Everything computed for one trace (one rank).
struct RankAnalysis {
  int32_t rank = -1;
  std::string input_path;
  SourceFormat format = SourceFormat::kUnknown;
  uint64_t input_events = 0;
  StepAnalysis steps;
  GpuTimeAnalysis gpu;
  MemoryTrafficAnalysis memory;
  SyncAnalysis syncs;
  LaunchAnalysis launches;
  std::vector<KernelSummary> top_kernels;    // by total time, all kernels in the window (sorted)
  StepStats step_stats;                      // step-time statistics of `steps`
  std::vector<StepMetrics> per_step;         // one per analysed step
  bool gpu_activity_recorded = false;        // any kernel, memcpy or memset in the trace
  TensorCoreResult tensor_cores;
  PrecisionResult precision;                 // classifier/op-level precision details
  std::vector<DimensionResult> matrix;
  std::vector<ChecklistItem> checklist;
  std::vector<Finding> findings;             // ranked by est_saving_pct, descending
  // The saving if every finding were fixed, % of the window (0-100): one replay of the run's
  // dependency graph with every finding's fix applied at once (analyzers/graph/whatif.h).
  double joint_saving_pct = 0;
  // Per step: the mean of the sampled Tensor Core activity (counter tensor_active_pct, 0-100)
  // inside the step; nullopt for a step without samples; empty when the trace has none.
  std::vector<std::optional<double>> tensor_active_per_step_pct;
  std::shared_ptr<const roofline::RooflineResult> roofline;  // roofline and MFU (null: not computed)
  // The PyTorch memory snapshot given with this rank (analyzers/memory/memory_snapshot.h; null: none).
  std::shared_ptr<const MemorySnapshotResult> memory_snapshot;
  // Measured per-kernel hardware metrics: an Nsight Compute CSV (alone, or joined to this trace
  // with --ncu) or the trace's own hardware-counter tracks (null: neither). Not in summaries.
  std::shared_ptr<const ncu::NcuResult> ncu;
  // The critical path and the replay of the dependency graph (null: not computed).
  std::shared_ptr<const graph::CriticalPathResult> critical_path;
  // Per-kernel facts of this rank (null for the job summary of several ranks).
  std::shared_ptr<const KernelAnnotations> kernels;
  InputInfo input;                           // the file, its format, device and reader facts
  std::vector<CollectiveCall> collectives;   // NCCL calls by start time (analyzers/collectives/collectives.h)
  RankCommInfo comm;                         // host, link peak, per-step balance for the cross-rank view
  TraceIntegrity integrity;                  // what this trace can be trusted for (analyzers/integrity/)
};

// An input that could not be read or analysed (--keep-going): named in the report.
struct MissingInput {
  std::string path;
  std::string error;  // one line
};

// The job view's per-rank balance, the one derivation of it (job.cc): a synchronous job runs at
// its slowest rank's pace, so each number is shown per rank with its imbalance (max / mean over
// ranks; 1 = balanced). Kernel time is per step, so ranks that profiled different numbers of
// steps compare fairly; a rank without steps counts its whole window as one.
struct RankBalance {
  int32_t rank = -1;
  std::string path;
  std::string device;                  // the rank's first device ("" when the trace lists none)
  size_t steps = 0;                    // analysed steps (0: none found)
  std::optional<double> step_time_us;  // mean step time (empty without steps)
  TimeNs compute_per_step_ns = 0;        // kernel time of every kernel but communication, per step
  TimeNs communication_per_step_ns = 0;  // communication (NCCL/RCCL) kernel time per step
};
struct JobBalance {
  std::vector<RankBalance> ranks;
  // max / mean; empty for one rank or a mean of 0, and, for step time, unless every rank has
  // steps; for kernel time, when some ranks have steps and others not (per step vs window).
  std::optional<double> step_time_imbalance;
  std::optional<double> compute_imbalance;
  std::optional<double> communication_imbalance;
};

struct JobAnalysis {
  std::vector<RankAnalysis> ranks;
  // Job-level view: for one rank it is that rank; for several, the job summary (see job.cc).
  RankAnalysis job;
  std::vector<DeviceInfo> devices;     // union over ranks (by name and id)
  Diagnostics diagnostics;             // the job's own (analysis failures, job consistency)
  std::vector<MissingInput> missing;   // inputs left out (--keep-going)
  JobBalance balance;                  // several ranks: per-rank step/compute/communication time
  // Why the inputs may not be one job (different world sizes or GPUs, a rank twice): one line each.
  std::vector<std::string> warnings;
  CrossRankResult collectives;  // matched collectives, skew, balance, straggler (analyzers/collectives/collectives.h)
  // Ranks of the job the inputs lack: world size minus the distinct ranks given when several
  // inputs name a world size, else the inputs left out (--keep-going).
  size_t missing_ranks = 0;
  int32_t world_size = -1;      // the world size the inputs name (-1: none or several)
  TraceIntegrity integrity;     // the job's checks: each rank check's worst, missing ranks, clock offsets
};

}  // namespace ampscope
