// The rule families of the diagnosis. Each adds its findings and fills its checklist item(s)
// through the sink, and returns what the matrix needs as a typed outcome. Run order (Diagnose):
// compute, GradScaler, fusion, memory-bound, data pipeline, syncs, distributed, memory, launch and
// utilization (it reads the findings before it); then the matrix.
#pragma once

#include <string>

#include "analyzers/diagnosis/facts.h"

namespace ampscope::diagnosis {

// compute_rules.cc: Tensor Cores, autocast, GEMM efficiency, attention.
struct ComputeOutcome {
  double tc_pct = 0;            // % of kernel time in Tensor Core kernels
  bool tc_known = false;        // the status follows from tc_pct (kernels of unknown Tensor Core use cannot move it)
  bool amp_not_in_use = false;
  double simt_share_pct = 0;    // fp32 SIMT share of GEMM/conv time
  bool gemm_eff_known = false;
  double gemm_eff_pct = 0;      // large GEMMs' achieved / attainable
  std::string gemm_eff_reason;  // why unknown
};
ComputeOutcome RuleCompute(const Facts& f, FindingSink& out);

// attention_rules.cc: attention written by hand in eager ops (Q·Kᵀ, softmax, P·V).
void RuleEagerAttention(const Facts& f, FindingSink& out);

// scaler_rules.cc: GradScaler presence, skipped steps, bf16 with a scaler.
void RuleGradScaler(const Facts& f, FindingSink& out);

// fusion_rules.cc: elementwise chains, per-parameter optimizers, casts, memory-bound share.
struct MemoryBoundOutcome {
  double mem_bound_pct = 0;  // % of kernel time in memory-bound kernels
  double mem_vs_gemm = 0;    // memory-bound time / matmul-class time
  double cast_pct = 0;       // cast kernels, % of the window
};
void RuleFusion(const Facts& f, FindingSink& out);
MemoryBoundOutcome RuleMemoryBound(const Facts& f, bool amp_not_in_use, FindingSink& out);

// optimizer_rules.cc: a foreach optimizer that offers fused=True, an optimizer step that
// dominates the step (runs after RuleFusion: it reads the per-parameter optimizer finding).
void RuleOptimizer(const Facts& f, FindingSink& out);

// stall_rules.cc: the GPU idle with its next work already queued (IdleGap::queued).
void RuleQueuedStalls(const Facts& f, FindingSink& out);

// copy_rules.cc: device-to-device copies.
void RuleDeviceCopies(const Facts& f, FindingSink& out);

// pipeline_rules.cc: data pipeline, host syncs, launch-bound and low utilization.
struct PipelineOutcome {
  double dataloader_exposed_pct = 0;
  double syncs_beyond_scaler_per_step = 0;  // user syncs: neither GradScaler's nor blocking input copies
  double input_copy_syncs_per_step = 0;     // blocking host-to-device copies (SyncPoint::input_copy)
  double busy_pct = 0;
  double small_kernel_pct = 0;
};
void RuleDataPipeline(const Facts& f, FindingSink& out, PipelineOutcome& o);
void RuleSyncs(const Facts& f, FindingSink& out, PipelineOutcome& o);
void RuleLaunchAndUtilization(const Facts& f, FindingSink& out, PipelineOutcome& o);

// distributed_rules.cc: communication overlap. Returns the overlap % (-1: no communication).
double RuleDistributed(const Facts& f, FindingSink& out);

// memory_rules.cc: allocation churn, peak memory, fragmentation, layout transforms.
struct MemoryOutcome {
  double peak_mem_pct = -1;  // -1: unknown
  double frag_pct = -1;
  double alloc_calls_per_step = 0;
  double layout_pct_of_conv = 0;
};
MemoryOutcome RuleMemory(const Facts& f, FindingSink& out);

// matrix.cc: the five dimensions from the outcomes and the findings; the checklist in DESIGN
// order; the findings ranked.
struct Outcomes {
  ComputeOutcome compute;
  MemoryBoundOutcome memory_bound;
  PipelineOutcome pipeline;
  double comm_overlap_pct = -1;
  MemoryOutcome memory;
};
void AssembleMatrix(const Facts& f, const Outcomes& o, FindingSink& out, RankAnalysis& ra);
// consistency.cc: each dimension's and item's explaining findings (its own, then those of others
// that explain its headline); a finding that says where the time goes when a bad dimension or a
// failing item has none; a failing item's value set to the measure that failed.
void ExplainStatuses(const Facts& f, const Outcomes& o, FindingSink& out, RankAnalysis& ra);
// The checklist items whose value or status follows from their findings' savings (kernel
// fusion, memory fragmentation): set once the savings are replayed.
void RefreshChecklist(FindingSink& out);
// An upper bound of the saving if every finding were fixed, for findings with no replay (an
// Nsight Compute CSV alone, or its findings joined to a trace): per saving kind (catalog.h) the
// sum of the findings' savings, capped at that kind's share of the window (idle: 100 - GPU busy
// %; busy: GPU busy %); the total capped at 100.
double JointSavingPct(const std::vector<Finding>& findings, double busy_pct);
// The replayed joint saving once findings were dropped: never more than the kept findings' savings.
double KeptJointSavingPct(double joint_pct, const std::vector<Finding>& findings);

// savings.cc: every finding's fix replayed on the run's dependency graph (analyzers/graph/):
// each finding's est_saving_pct and severity, the evidence naming the transform, the findings
// whose rule raises them for their time dropped below kMinSavingPct; ra.critical_path,
// ra.joint_saving_pct (one replay with every fix, at most the findings' savings together), and
// each collective call's time on the critical path.
void ReplaySavings(const Facts& f, FindingSink& out, RankAnalysis& ra);

// pipeline_rules.cc, after the replay: a window whose critical path is host time, with the GPU
// busy under kBusyBadPct, that no finding's replayed fix explains gets `host_bound`, which says
// so with the host's top ops by self time and no saving (no GPU-side fix shortens it).
void RuleHostBound(const Facts& f, FindingSink& out, const RankAnalysis& ra);

}  // namespace ampscope::diagnosis
