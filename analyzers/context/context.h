// The analysis context of one rank: every fact that more than one analyzer or exporter needs,
// derived once from the trace and the options, before any analyzer runs.
//
// Order of derivation (each step reads only what the earlier ones made):
//   1. launch links (correlation -> launching API call), the API role of every call;
//   2. step windows (DetectSteps decides the unit of everything else);
//   3. the class of every kernel (classified once per distinct name), window membership;
//   4. merged busy intervals per device (all GPU work, kernels, memcpy, memset), communication
//      vs compute kernels, the main device (most busy time in the windows);
//   5. the op tree (analyzers/context/op_tree.h), host ranges by role (DataLoader, Optimizer.step),
//      allocator / pageable-copy API intervals;
//   6. the sync points (the one definition, see BuildSyncPoints in context.cc);
//   7. the idle gaps (HTA's kinds) and, on the main device, the cause of each gap's time.
// The op tree (5) reads only the launch links, and the busy intervals, host ranges and idle
// gaps read no tree: with options.threads > 1 the tree is built on a second thread beside them.
//
// Everything is read-only after Build(), but for what the rank's analysis hands over or drops
// when it is done with it (LendSteps, ReleaseIdleGaps, ReleaseOpTree). The context holds
// references to the trace and the options: both must outlive it. It is dropped after the rank's
// analysis; results (RankAnalysis) never point into it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzers/results/analysis.h"
#include "analyzers/context/op_tree.h"
#include "trace/classify/api_roles.h"
#include "trace/classify/kernel_classifier.h"

namespace ampscope {

// HTA's threshold between "kernel_wait" and "other" idle gaps (30, in the trace's µs).
inline constexpr TimeNs kKernelWaitThresholdNs = 30'000;

// A half-open time interval [start, end).
struct Interval {
  TimeNs start_ns;
  TimeNs end_ns;
};

// Sorts and merges overlapping/adjacent intervals.
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);
// MergeIntervals' rule one interval at a time: adds [start, end) to `merged` (sorted,
// disjoint), given in start order; empty intervals are dropped.
void AppendMerged(std::vector<Interval>& merged, TimeNs start, TimeNs end);
// Total length of `merged` (sorted, disjoint) inside [start, end) (saturating).
TimeNs OverlapNs(const std::vector<Interval>& merged, TimeNs start, TimeNs end);
// Removes the parts of `pieces` (sorted, disjoint) covered by `cause` (sorted, merged); returns
// the removed length (saturating).
TimeNs CutOut(std::vector<Interval>& pieces, const std::vector<Interval>& cause);

// A kernel name for findings: without "void " and the argument list, at most `max` bytes.
std::string ShortName(std::string_view name, size_t max = 90);

// One GPU activity: its times, links, and where it is in the trace's tables.
enum class GpuTable : uint8_t { kKernel, kMemcpy, kMemset };
struct GpuWork {
  TimeNs start_ns;
  TimeNs end_ns;
  int64_t correlation;
  int32_t device;
  int32_t stream;
  GpuTable table;
  uint32_t index;  // into the table
};
// Every GPU activity (or the kernels only), sorted by start.
std::vector<GpuWork> CollectGpuWork(const Trace& trace, bool kernels_only);

// Maps a correlation id to the index of its launching API call in trace.api_calls.
class LaunchIndex {
 public:
  explicit LaunchIndex(const Trace& trace);
  // Index into trace.api_calls, or -1.
  int64_t Find(int64_t correlation) const;

 private:
  std::vector<std::pair<int64_t, uint32_t>> sorted_;  // (correlation, api index), sorted
};

StepAnalysis DetectSteps(const Trace& trace, const AnalysisOptions& options, const LaunchIndex& launches);

// The class of each distinct kernel name, classified once (trace/classify's ClassifyKernel).
class KernelClassTable {
 public:
  explicit KernelClassTable(const Trace& trace);
  const KernelClass& Of(StringId name) const;
  // The distinct classes, and the index of a kernel name's class among them.
  const std::vector<KernelClass>& distinct() const { return classes_; }
  uint32_t IndexOf(StringId name) const { return slot_[name]; }  // name must be a kernel name

 private:
  std::vector<uint32_t> slot_;        // by StringId: index into classes_, or kNoSlot
  std::vector<KernelClass> classes_;  // one per distinct kernel name
  KernelClass unknown_;               // names that are not kernel names of this trace
};

// A host range with its thread (Optimizer.step ranges) and its name.
struct TidRange {
  TimeNs start_ns;
  TimeNs end_ns;
  int64_t tid;
  StringId name = kNoString;
};

// An allocator call (cudaMalloc*/cudaFree* ...) inside the windows.
struct AllocCall {
  TimeNs t;
  int64_t step;      // StepOfLaunch
  std::string name;
};

// Merged busy intervals (sorted, disjoint) of the GPU work of the trace.
struct BusyIntervals {
  std::map<int32_t, std::vector<Interval>> all_by_device;  // kernels + memcpy + memset
  std::map<int32_t, std::vector<Interval>> memcpy_by_device;
  std::map<int32_t, std::vector<Interval>> memset_by_device;
  std::vector<Interval> comm;     // communication kernels, all devices
  std::map<int32_t, TimeNs> in_windows_by_device;  // all_by_device inside the windows
  int32_t main_device = 0;                 // most busy time in the windows
  const Device* main_device_info = nullptr;  // its Device row (the first row when none matches)
  TimeNs main_in_windows_ns = 0;
  // all_by_device[main_device] (empty when it has no GPU work): looked up, not a copy (one or
  // two intervals a step on a many-step trace).
  const std::vector<Interval>& main() const;

  // The kernels of `device` (empty when it has none), the devices that have kernels (ascending),
  // and every kernel that is not communication, all devices ("compute").
  const std::vector<Interval>& kernels(int32_t device) const;
  const std::vector<int32_t>& kernel_devices() const { return kernel_devices_; }
  const std::vector<Interval>& compute() const;
  // Set after all_by_device (merged lists). A list equal to one already kept is not kept again:
  // a device's kernels that are all its GPU work (no copy or memset outside a kernel) read
  // all_by_device's list, and compute that is the one kernel device's kernels (no communication)
  // reads that list: one list a step instead of three on a many-step trace.
  void SetKernels(std::map<int32_t, std::vector<Interval>> merged_by_device);
  void SetCompute(std::vector<Interval> merged);

 private:
  std::map<int32_t, std::vector<Interval>> kernels_own_;  // the devices whose kernels differ from all_by_device
  std::vector<int32_t> kernel_devices_;
  std::vector<Interval> compute_own_;  // empty when compute_device_ stands for it
  int32_t compute_device_ = 0;         // with compute_shared_: compute() is kernels(compute_device_)
  bool compute_shared_ = false;
};

// Host ranges by role (trace/classify's ClassifyHostRange) and the API calls the idle
// attribution needs.
struct HostRanges {
  std::vector<Interval> dataloader;              // merged
  std::set<std::string> dataloader_names;
  std::vector<TidRange> optimizer_steps;         // sorted by start
  std::set<std::string> optimizer_names;         // Optimizer.step#... and Optimizer.zero_grad#... names
  std::vector<TidRange> zero_grad;               // Optimizer.zero_grad ranges, sorted by start
  std::vector<Interval> pageable_h2d_calls;      // memcpy calls of pageable H2D copies, merged
  std::vector<Interval> alloc_calls_merged;      // cudaMalloc*/cudaFree* calls, merged
  std::vector<Interval> free_calls;              // cudaFree* calls, sorted by start
  std::vector<AllocCall> alloc_calls;            // in the windows, in call order
  // Recorded host activity, all threads, merged: cpu_ops (not the ranges a 2021 trace writes as
  // ops), runtime calls and DataLoader ranges.
  std::vector<Interval> active;
};

// Per-kernel facts, indexed like trace.kernels.
struct KernelFacts {
  std::vector<uint8_t> in_window;       // start inside the windows
  std::vector<int64_t> launch_call;     // index into trace.api_calls, or -1
  std::vector<std::pair<TimeNs, uint32_t>> by_launch;  // (launch call start, kernel), sorted
  TimeNs in_window_ns = 0;              // sum of durations in the windows (saturating)
  TimeNs rocm_in_window_ns = 0;
};

// The GPU time of one idle gap on the main device, split by cause (see AttributeGaps).
using GapCauses = IdleGapCauses;

class RankContext {
 public:
  // Builds every fact. The options' step pattern must be a valid regex (AnalyzeTrace checks).
  RankContext(const Trace& trace, const AnalysisOptions& options);
  RankContext(const RankContext&) = delete;
  RankContext& operator=(const RankContext&) = delete;

  const Trace& trace() const { return trace_; }
  const AnalysisOptions& options() const { return options_; }

  // ---- steps
  const StepAnalysis& steps() const { return *steps_.read; }
  // The analysed windows (sorted, disjoint): the steps, or the whole window without steps.
  const std::vector<Interval>& windows() const { return steps_.windows; }
  TimeNs window_ns() const { return steps_.window_ns; }
  bool InWindows(TimeNs t) const;
  // Index of the step window containing t, or -1.
  int64_t StepAt(TimeNs t) const;
  // Index of the step whose CPU range contains host time t (the step that launched work at t;
  // a step's CPU range reaches to the end of its window), or -1.
  int64_t StepOfLaunch(TimeNs t) const;
  // Length of [s, e) inside the windows.
  TimeNs ClippedNs(TimeNs s, TimeNs e) const;

  // ---- kernels, API calls, copies
  const KernelClassTable& classes() const { return classes_; }
  const KernelClass& kernel_class(size_t i) const { return classes_.Of(trace_.kernels[i].name); }
  const KernelFacts& kernels() const { return kernels_; }
  const LaunchIndex& launches() const { return launches_; }
  ApiRole api_role(size_t call) const { return calls_.roles[call]; }
  // The memcpy record of a correlation id (the last one when several share it), or nullptr.
  const MemcpyEvent* MemcpyOf(int64_t correlation) const;
  // True for a memcpy call the host waits in until the copy is done (a synchronous copy that is
  // not a small staged H2D or a D2D, or an async D2H into pageable memory): the one definition
  // the sync points and the dependency graph share.
  bool BlockingCopy(size_t call) const;

  // ---- GPU busy, host ranges, ops
  const BusyIntervals& busy() const { return busy_; }
  const HostRanges& host() const { return host_; }
  const OpTree& op_tree() const;
  // The cpu_op (index into trace.cpu_ops) that launched kernel i: the kernel's op-tree node, or
  // the nearest cpu_op above it when that node is a record_function range; -1 if none.
  int64_t CpuOpOfKernel(size_t i) const;
  // "outermost > innermost" names of the cpu_ops around host time t on thread tid ("" if none).
  std::string OpChainName(int64_t tid, TimeNs t) const;
  // The steps' thread: the one whose range is the first step's CPU range, else the thread with
  // the most launch calls; -1 when there is neither (computed on each call).
  int64_t StepsThread() const;

  // ---- syncs and idle time
  // Every host-blocking sync point in the windows, by start time (the one definition).
  const std::vector<SyncPoint>& sync_points() const { return syncs_.points; }
  // The sync points' intervals, merged.
  const std::vector<Interval>& blocking() const { return syncs_.blocking; }
  // GPU idle gaps of every device inside the windows (clipped to them), by start time.
  const std::vector<IdleGap>& idle_gaps() const { return idle_.gaps; }
  // The cause split of each host_wait / other gap on the main device, in gap order.
  const IdleGapCauseTable& gap_causes() const { return idle_.causes; }
  // Moves the idle gaps and their causes out (the context's idle_gaps() and gap_causes() are
  // empty after): the rank's result keeps them for the exporters once nothing reads the
  // context any more, without a second copy of each.
  void ReleaseIdleGaps(std::vector<IdleGap>& gaps, IdleGapCauseTable& causes);
  // Moves the steps into `into` (the rank's result), which steps() reads from then on: the
  // result and the context share one copy of the steps and their names (72 B and a name a
  // step) while the analysis runs. `into` must stay where it is while the context is read.
  void LendSteps(StepAnalysis& into);
  // Drops the op tree (one node a CPU op and runtime call, and the kernels' links) once nothing
  // will read it: op_tree(), CpuOpOfKernel and OpChainName may not be called after (a check
  // stops the program). AnalyzeTrace drops it when the diagnosis is done.
  void ReleaseOpTree();

 private:
  void BuildWindows();
  void BuildKernelFacts();
  void BuildBusy();
  void BuildHostRanges();
  void BuildHostActivity();
  void BuildSyncPoints();
  void BuildIdleGaps();
  void AttributeGaps();

  struct CallFacts {
    std::vector<ApiRole> roles;                          // per API call
    std::vector<std::pair<int64_t, uint32_t>> memcpy_by_corr;  // (correlation, memcpy index), sorted
  };
  struct StepFacts {
    StepAnalysis analysis;
    const StepAnalysis* read = &analysis;  // what steps() reads: `analysis`, or where it was lent
    std::vector<Interval> windows;
    TimeNs window_ns = 0;
  };
  struct SyncFacts {
    std::vector<SyncPoint> points;
    std::vector<Interval> blocking;
  };
  struct IdleFacts {
    std::vector<IdleGap> gaps;
    IdleGapCauseTable causes;
  };

  const Trace& trace_;
  const AnalysisOptions& options_;
  LaunchIndex launches_;
  CallFacts calls_;
  StepFacts steps_;
  KernelClassTable classes_;
  KernelFacts kernels_;
  BusyIntervals busy_;
  HostRanges host_;
  OpTree op_tree_;
  bool op_tree_released_ = false;
  SyncFacts syncs_;
  IdleFacts idle_;
};

}  // namespace ampscope
