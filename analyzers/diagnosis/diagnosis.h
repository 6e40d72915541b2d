// The diagnosis: the five-dimension matrix, the seven-item checklist and the ranked findings
// of DESIGN.md, from the rule catalogue in shared/reference/diagnosis_rules.md. Every finding
// id, threshold and estimate is catalogued in docs/findings.md.
//
// Diagnose runs after the core analyzers (ra.steps, ra.gpu, ra.memory, ra.syncs, ra.launches)
// and after AnalyzePrecision (ra.tensor_cores, ra.precision). It reads those results and scans
// the trace for what they lack (GradScaler and optimizer kernels per step, elementwise chains,
// GPU idle gaps and the host activity behind them, NCCL overlap, [memory] events, GEMM shapes).
#pragma once

#include <cstdint>
#include <functional>

#include "analyzers/results/analysis.h"

namespace ampscope {

class RankContext;  // analyzers/context/context.h

// Fills ra.matrix (5 dimensions, in DESIGN.md order), ra.checklist (7 items, in DESIGN.md
// order) and ra.findings (ranked by est_saving_pct, descending; ties by severity, then by
// catalogue order). Pure function of its inputs; never prints.
// The facts it shares with the other analyzers (kernel classes, windows, busy intervals, idle
// gaps and their causes, sync points, host ranges, the op tree) come from the context.
void Diagnose(const RankContext& context, RankAnalysis& ra);

namespace diagnosis {
class Facts;        // analyzers/diagnosis/facts.h
class FindingSink;  // analyzers/diagnosis/facts.h
// Rules of a room the diagnosis does not depend on (the measured ncu_* findings of
// analyzers/ncu/), run with the catalogue's rules: their findings and fixes are replayed with
// every other (the joint saving included) and ranked with them.
using ExtraRules = std::function<void(FindingSink&)>;
}  // namespace diagnosis
// The same with facts gathered beforehand: Facts(context, ra) reads only the context and
// ra.steps, so it can be built while other analyzers still run (AnalyzeRank builds it while
// the roofline runs); every result it is given must be in ra before this call.
void Diagnose(const diagnosis::Facts& facts, RankAnalysis& ra, const diagnosis::ExtraRules& extra = {});

namespace diagnosis {
// The ranking of every findings list (a rank's, a job's): a finding that says the profile
// misleads (cold_start_profiled) first, then by est_saving_pct descending, then severity, then
// catalogue order. Stable.
void RankFindings(std::vector<Finding>& findings);
}  // namespace diagnosis

// Thresholds. Provenance (docs/findings.md): [proj] project checklist, [kineto] TensorBoard
// plugin, [nsys] Nsight Systems rule, [HTA], [NV-guide], [heur] our choice (tested both sides).
namespace diagnosis {

// Severity of findings whose cost is time: est_saving_pct below kMinSavingPct emits nothing
// (except rules marked "any"), below kWarningSavingPct is info, from kCriticalSavingPct critical.
inline constexpr double kMinSavingPct = 0.5;       // [heur]
inline constexpr double kWarningSavingPct = 3.0;   // [heur]
inline constexpr double kCriticalSavingPct = 15.0; // [heur]

// compute_intensity / tensor_core_utilization
inline constexpr double kTensorCorePassPct = 70.0;  // [proj] checklist "Tensor Core utilization >= 70%"
inline constexpr double kTensorCoreFailPct = 35.0;  // [heur] half of the project's bar
inline constexpr double kAmpNotInUseTcPct = 1.0;    // [kineto] tc_used_ratio == 0 (1% leaves room for stray kernels)
inline constexpr double kFp32SimtGemmSharePct = 10.0;  // [heur] CI-03, share of GEMM/conv time
inline constexpr double kLowGemmEfficiencyPct = 30.0;  // [heur] CI-05, achieved / peak TFLOP/s
inline constexpr double kLargeGemmFlops = 1e9;         // [heur] CI-05, a "large" GEMM call
inline constexpr int kDimAlignment = 8;                // [NV-guide] fp16/bf16 M, N, K multiples of 8
// attention
inline constexpr double kEagerAttentionPct = 10.0;     // [heur] hand-written attention: share of GPU kernel time
inline constexpr double kFlashSpeedup = 2.0;           // [heur] a fused SDPA kernel over eager attention (FlashAttention-2: 2-4x)
inline constexpr double kSdpaEfficiencyPct = 30.0;    // [heur] an SDPA kernel's share of the dense peak (FA2: 35-73% on A100/H100)
inline constexpr double kSdpaMinCallNs = 5'000;       // [heur] an SDPA call costs at least one kernel's launch and tail
// autocast_coverage
inline constexpr double kAutocastFp32FailPct = 10.0;  // [heur] fp32 share of Tensor-Core-eligible op time
inline constexpr double kAutocastFp32WarnPct = 1.0;   // [heur]
// memory_bandwidth
inline constexpr double kMemoryBoundVsGemmWarn = 1.0;  // [heur] MB-01: memory-bound time > GEMM time
inline constexpr double kMemoryBoundVsGemmBad = 2.0;   // [heur]
inline constexpr double kCastSharePct = 10.0;          // [heur] MB-02 (catalogue says 5%; see findings.md)
inline constexpr double kDeviceCopyPct = 5.0;          // [heur] device-to-device memcpy time, share of the step
inline constexpr uint64_t kSmallH2DBytes = 64 * 1024;  // [nsys] cuda_memcpy_sync: H2D <= 64 KB is staged
// instruction_efficiency
inline constexpr double kSmallKernelNs = 10'000;       // [heur] TP-04 "kernels under 10 us"
inline constexpr double kLaunchBoundSmallPct = 50.0;   // [heur] TP-04
inline constexpr double kLaunchBoundBusyPct = 50.0;    // [heur] TP-04 (= [nsys]/[kineto] low utilization)
// kernel_fusion
inline constexpr int kMinChainKernels = 3;             // [proj] CK-FU: runs of >= 3 memory-bound kernels
// A chain's evidence names its first kernels in launch order and counts the rest: a chain of a few
// hundred kernels (the recsys trace of the HTA repo has 341) listed whole made one finding 144 kB.
inline constexpr size_t kChainKernelsNamed = 12;
inline constexpr double kUnfusedOptimizerMinKernels = 32;  // [heur] per-parameter kernels per step
inline constexpr double kUnfusedOptimizerSharePct = 50.0;  // [heur] non-multi_tensor_apply share
inline constexpr double kOptimizerStepPct = 20.0;      // [heur] Optimizer.step host time, share of the step
// data_locality / memory_fragmentation
inline constexpr double kLayoutPctOfConv = 5.0;        // [heur] IE-01
inline constexpr double kMemoryPeakPct = 90.0;         // [kineto] peak > 0.9 * totalGlobalMem
inline constexpr double kFragmentationPct = 30.0;      // [heur] (reserved - allocated) / reserved at peak reserved
inline constexpr int64_t kFragmentationMinBytes = 1ll << 30;  // [heur] and at least 1 GiB
inline constexpr int kWarmupStepsExcluded = 1;         // [heur] DL-04: alloc calls in the first analysed step are warm-up
// task_parallelism
inline constexpr double kBusyGoodPct = 80.0;           // [heur]
// [heur] GPU idle with its next work queued (IdleGap::queued) worth a finding: 5% of the window.
// None of the unsampled shared traces has any; the 16-rank recsys trace has 55% (a CUDA graph).
inline constexpr double kQueuedStallPct = 5.0;
inline constexpr double kBusyBadPct = 50.0;            // [nsys] gpu_time_util 50%, [kineto] util < 0.5
// [heur] A window whose critical path is at least this share host time (recorded or not) is
// host-bound: no GPU-side fix shortens it (host_bound).
inline constexpr double kHostBoundPathPct = 80.0;
inline constexpr double kSyncsBeyondScalerPerStep = 1.0;  // [heur] TP-03: > 1 per step beyond GradScaler's
inline constexpr double kLongGapNs = 500e6;            // [nsys] gpu_gaps 500 ms
inline constexpr TimeNs kUntracedHostNs = 1'000'000;   // [heur] host stretch with no recorded activity: 1 ms, 100x a launch
// data_pipeline
inline constexpr double kDataLoaderPct = 5.0;          // [kineto] DataLoader / step > 5%
inline constexpr double kIdleAtStepStartPct = 5.0;     // [heur] same bar as the DataLoader rule
// distributed_sync
inline constexpr double kCommSharePct = 10.0;          // [kineto] communication / step > 10%
inline constexpr double kCommOverlapPct = 50.0;        // [heur] TP-07
inline constexpr double kExposedCommFailPct = 5.0;     // [heur]
inline constexpr double kCommTypeAdvicePct = 50.0;     // [heur] advise for the collective type carrying the majority
inline constexpr double kPerParameterAllReducePerStep = 100.0;  // [heur] "hundreds" of all-reduces per step
inline constexpr double kSmallCollectiveNs = 100e3;    // [heur] median all-reduce under 100 us (sizes unknown) ...
inline constexpr double kSmallCollectiveBytes = 1 << 20;  // [heur] ... or under 1 MiB: far below DDP's 25 MB buckets
// grad_scaler
inline constexpr int kScalerWarmupSteps = 10;          // [heur] "after the first ~10 steps"
inline constexpr int kStartSkipsMin = 2;               // [heur] consecutive skips at the start => init scale too high
inline constexpr double kSkipRatePct = 1.0;            // [heur] skip rate after warm-up
inline constexpr double kFp16ShareForScalerPct = 50.0; // [heur] fp16 share of low-precision GEMM time => "fp16 run"

}  // namespace diagnosis
}  // namespace ampscope
