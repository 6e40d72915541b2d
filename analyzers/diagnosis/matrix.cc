// The matrix (five dimensions) from the rules' outcomes and the findings, the checklist in
// DESIGN order, and the ranking of the findings.
#include <algorithm>

#include "analyzers/diagnosis/rules.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

const char* kDimensions[] = {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality",
                             "task_parallelism"};
const char* kChecklist[] = {"tensor_core_utilization", "autocast_coverage", "grad_scaler", "kernel_fusion",
                            "data_pipeline", "distributed_sync", "memory_fragmentation"};

// The unit of each checklist item's value (what the rules put in ChecklistItem::value).
Unit ChecklistValueUnit(std::string_view id) {
  if (id == "tensor_core_utilization") return Unit::kPctOfKernelTime;
  if (id == "autocast_coverage") return Unit::kPctFp32;
  if (id == "grad_scaler") return Unit::kPctStepsSkipped;
  if (id == "memory_fragmentation") return Unit::kCallsPerStep;
  return Unit::kPctOfStep;  // kernel_fusion, data_pipeline, distributed_sync: est. cost / share of the step
}

DimensionStatus Worse(DimensionStatus a, DimensionStatus b) {
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

DimensionStatus FromFindings(const FindingSink& out, const std::string& dim, std::vector<std::string>* ids) {
  DimensionStatus s = DimensionStatus::kGood;
  for (const Finding& f : out.findings()) {
    if (f.dimension != dim) continue;
    ids->push_back(f.id);
    if (out.IsRisk(f.id)) s = Worse(s, DimensionStatus::kWarn);
    if (f.severity == FindingSeverity::kCritical) s = Worse(s, DimensionStatus::kBad);
    if (f.severity == FindingSeverity::kWarning) s = Worse(s, DimensionStatus::kWarn);
  }
  return s;
}

}  // namespace

void AssembleMatrix(const Facts& in, const Outcomes& o, FindingSink& out, RankAnalysis& ra) {
  ra.matrix.clear();
  const bool have_kernels = in.kernel_total_ns > 0;
  const bool matmul_work = in.KernelNs([&](size_t k) { return IsMatmulClass(in.cls(k).category); }) > 0;
  for (const char* id : kDimensions) {
    DimensionResult d;
    d.id = id;
    std::vector<std::string> ids;
    const DimensionStatus from_findings = FromFindings(out, id, &ids);
    d.findings = ids;
    DimensionStatus head = DimensionStatus::kUnknown;
    const std::string dim = id;
    if (dim == "compute_intensity") {
      const std::optional<double> active = in.ra.tensor_cores.active_pct;
      d.headline = {"tensor_core_utilization_pct", active ? active : std::optional<double>(Round(o.compute.tc_pct)), "%",
                    active ? "measured" : "estimated"};
      if (!have_kernels) d.headline = {"tensor_core_utilization_pct", std::nullopt, "%", "unavailable: no kernels in the steps"};
      if (have_kernels) head = o.compute.tc_pct >= kTensorCorePassPct ? DimensionStatus::kGood : o.compute.tc_pct >= kTensorCoreFailPct ? DimensionStatus::kWarn : DimensionStatus::kBad;
      // No GEMM, convolution or attention kernel: nothing Tensor Cores could run, so their share
      // judges nothing (the findings still do).
      if (!matmul_work) head = DimensionStatus::kUnknown;
      // No share beside an unknown status: kernels whose Tensor Core (AMD: matrix-core) use the
      // names do not tell could move it across a threshold (compute_rules.cc).
      if (have_kernels && !active && !o.compute.tc_known) {
        head = DimensionStatus::kUnknown;
        d.headline = {"tensor_core_utilization_pct", std::nullopt, "%",
                      "unavailable: the kernel names do not tell the Tensor Core use of enough kernel time"};
      }
      d.metrics = {{"tensor_core_kernel_time_pct", Round(o.compute.tc_pct), Unit::kPct},
                   {"fp32_simt_gemm_share_pct", Round(o.compute.simt_share_pct), Unit::kPct},
                   {"large_gemm_efficiency_pct", o.compute.gemm_eff_known ? std::optional<double>(Round(o.compute.gemm_eff_pct)) : std::nullopt, Unit::kPct}};
      if (!o.compute.gemm_eff_known) d.metrics.push_back({"large_gemm_efficiency_unavailable", o.compute.gemm_eff_reason});
      if (active) d.metrics.push_back({"tensor_active_pct", *active, Unit::kPct});
      else d.metrics.push_back({"tensor_active_unavailable", "record with --tensor-metrics to sample Tensor Core activity"});
    } else if (dim == "memory_bandwidth") {
      d.headline = {"memory_bound_kernel_time_pct", have_kernels ? std::optional<double>(Round(o.memory_bound.mem_bound_pct)) : std::nullopt, "%",
                    have_kernels ? "estimated" : "unavailable: no kernels in the steps"};
      if (have_kernels)
        head = o.memory_bound.mem_vs_gemm > kMemoryBoundVsGemmBad ? DimensionStatus::kBad : o.memory_bound.mem_vs_gemm > kMemoryBoundVsGemmWarn ? DimensionStatus::kWarn : DimensionStatus::kGood;
      const auto it = in.ra.memory.memcpy_by_kind.find("HtoD");
      d.metrics = {{"memory_bound_vs_gemm_time", Round(std::min(o.memory_bound.mem_vs_gemm, 1e6), 3), Unit::kFactor},
                   {"cast_pct_of_step", Round(o.memory_bound.cast_pct), Unit::kPctOfStep}};
      if (it != in.ra.memory.memcpy_by_kind.end()) {
        d.metrics.push_back({"h2d_bytes_per_step", static_cast<double>(it->second.bytes) / in.nsteps, Unit::kBytesPerStep});
        d.metrics.push_back({"h2d_achieved_gbs", Round(it->second.achieved_gbs()), Unit::kGbs});
        d.metrics.push_back({"h2d_pageable_copies", it->second.pageable_count, Unit::kCount});
      }
    } else if (dim == "instruction_efficiency") {
      d.headline = {"kernels_under_10us_pct", have_kernels ? std::optional<double>(Round(o.pipeline.small_kernel_pct)) : std::nullopt, "%",
                    have_kernels ? "measured" : "unavailable: no kernels in the steps"};
      if (have_kernels) head = DimensionStatus::kGood;
      double occ_num = 0, occ_den = 0;
      for (size_t i = 0; i < in.t.kernels.size(); ++i) {
        const float occupancy = in.t.launch(in.t.kernels[i]).est_occupancy_pct;
        if (!in.InWindow(i) || occupancy < 0) continue;
        occ_num += occupancy * static_cast<double>(in.t.kernels[i].duration_ns());
        occ_den += static_cast<double>(in.t.kernels[i].duration_ns());
      }
      d.metrics = {{"kernels_per_step", Round(in.ra.launches.kernels_per_step), Unit::kPerStep},
                   {"median_kernel_us", NsToUsRounded3(in.ra.launches.median_kernel_ns), Unit::kUs},
                   {"launch_api_time_pct_of_kernel_time",
                    in.kernel_total_ns > 0 ? Round(100.0 * static_cast<double>(in.ra.launches.launch_api_time_ns) / static_cast<double>(in.kernel_total_ns)) : 0.0, Unit::kPctOfKernelTime},
                   {"est_achieved_occupancy_pct", occ_den > 0 ? std::optional<double>(Round(occ_num / occ_den)) : std::nullopt, Unit::kPct},
                   {"cuda_graph_kernels", in.ra.launches.graph_launched_kernels, Unit::kCount},
                   {"pc_sampling", "unavailable: not collected"}};
    } else if (dim == "data_locality") {
      if (o.memory.peak_mem_pct >= 0) {
        d.headline = {"peak_memory_pct_of_device", Round(o.memory.peak_mem_pct), "%", "measured"};
      } else {
        d.headline = {"alloc_calls_per_step_after_warmup", Round(o.memory.alloc_calls_per_step), "calls",
                      in.t.api_calls.empty() ? "unavailable: no runtime events" : "measured"};
      }
      if (!in.t.api_calls.empty() || o.memory.peak_mem_pct >= 0 || have_kernels) head = DimensionStatus::kGood;
      d.metrics = {{"alloc_calls_per_step_after_warmup", Round(o.memory.alloc_calls_per_step), Unit::kCallsPerStep},
                   {"layout_transform_pct_of_conv", Round(o.memory.layout_pct_of_conv), Unit::kPctOfConv},
                   {"reserved_unallocated_pct", o.memory.frag_pct >= 0 ? std::optional<double>(Round(o.memory.frag_pct)) : std::nullopt, Unit::kPct}};
      if (o.memory.peak_mem_pct < 0) d.metrics.push_back({"memory_unavailable", "profile with profile_memory=True for peak and reserved memory"});
    } else {
      d.headline = {"gpu_busy_pct", in.ctx.windows().empty() ? std::nullopt : std::optional<double>(Round(o.pipeline.busy_pct)), "%",
                    in.ctx.windows().empty() ? "unavailable: no analysed window" : "measured"};
      if (!in.ctx.windows().empty() && (have_kernels || !in.t.memcpys.empty()))
        head = o.pipeline.busy_pct >= kBusyGoodPct ? DimensionStatus::kGood : o.pipeline.busy_pct >= kBusyBadPct ? DimensionStatus::kWarn : DimensionStatus::kBad;
      d.metrics = {{"idle_by_cause_pct", in.CausesJson()},
                   {"syncs_per_step_beyond_grad_scaler", Round(o.pipeline.syncs_beyond_scaler_per_step), Unit::kPerStep},
                   {"input_copy_syncs_per_step", Round(o.pipeline.input_copy_syncs_per_step), Unit::kPerStep},
                   {"exposed_dataloader_pct", Round(o.pipeline.dataloader_exposed_pct), Unit::kPctOfStep},
                   {"comm_compute_overlap_pct", o.comm_overlap_pct >= 0 ? std::optional<double>(Round(o.comm_overlap_pct)) : std::nullopt, Unit::kPct},
                   {"host_active_pct", in.idle.host_active_known ? std::optional<double>(Round(in.PctOfWindow(static_cast<double>(in.idle.host_active_ns)))) : std::nullopt, Unit::kPct}};
    }
    d.status = head == DimensionStatus::kUnknown && ids.empty() ? DimensionStatus::kUnknown : Worse(head == DimensionStatus::kUnknown ? DimensionStatus::kGood : head, from_findings);
    ra.matrix.push_back(std::move(d));
  }
  // Checklist in DESIGN order.
  ra.checklist.clear();
  for (const char* id : kChecklist) {
    ChecklistItem c = out.Item(id);
    if (c.unit == Unit::kNone) c.unit = ChecklistValueUnit(id);  // a rule may say its value is another measure
    if (c.id == "tensor_core_utilization" && c.status == CheckStatus::kFail && have_kernels && !matmul_work) {
      // A 0% share of no matmul work is not a failure: nothing here could run on Tensor Cores.
      c.status = CheckStatus::kNotApplicable;
      c.evidence += "; no GEMM, convolution or attention kernels: nothing Tensor Cores could run";
    }
    if (c.status == CheckStatus::kUnknown && c.how_to_know.empty()) c.how_to_know = "not enough data in the trace";
    ra.checklist.push_back(std::move(c));
  }
}

void RankFindings(std::vector<Finding>& findings) {
  auto sev = [](FindingSeverity s) { return static_cast<int>(s); };
  // A finding that says the profile misleads (a cold start) comes first: every saving beside it
  // was measured on start-up, and the first thing to do is a better profile.
  auto about_profile = [](const Finding& f) {
    const size_t i = CatalogOrder(f.id);
    return i < CatalogSize() && CatalogAt(i).severity == SeverityRule::kProfileWarning;
  };
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) {
    if (about_profile(a) != about_profile(b)) return about_profile(a);
    if (a.est_saving_pct != b.est_saving_pct) return a.est_saving_pct > b.est_saving_pct;
    if (a.severity != b.severity) return sev(a.severity) > sev(b.severity);
    return CatalogOrder(a.id) < CatalogOrder(b.id);
  });
}

double JointSavingPct(const std::vector<Finding>& findings, double busy_pct) {
  double idle = 0, busy = 0, step = 0;
  for (const Finding& f : findings) {
    switch (CatalogEntryOf(f.id).saving) {
      case SavingKind::kIdle: idle += f.est_saving_pct; break;
      case SavingKind::kBusy: busy += f.est_saving_pct; break;
      case SavingKind::kStep: step += f.est_saving_pct; break;
      case SavingKind::kNone: break;
    }
  }
  const double b = std::clamp(busy_pct, 0.0, 100.0);
  const double joint = std::min(idle, 100.0 - b) + std::min(busy, b) + step;
  return Round(std::clamp(joint, 0.0, 100.0), 2);
}

double KeptJointSavingPct(double joint_pct, const std::vector<Finding>& findings) {
  double kept = 0;
  for (const Finding& f : findings) kept += f.est_saving_pct;
  return Round(std::clamp(std::min(joint_pct, kept), 0.0, 100.0), 2);
}

void RefreshChecklist(FindingSink& out) {
  // Kernel fusion: the value is the fusion findings' replayed savings together.
  ChecklistItem& fusion = out.Item("kernel_fusion");
  if (fusion.status != CheckStatus::kUnknown) {
    double total = 0;
    for (const Finding& f : out.findings())
      if (f.checklist == "kernel_fusion") total += f.est_saving_pct;
    fusion.value = Round(total);
    const FindingSeverity worst = out.WorstSeverity("kernel_fusion");
    fusion.status = worst == FindingSeverity::kInfo ? (out.HasFinding("kernel_fusion") ? CheckStatus::kWarn : CheckStatus::kPass)
                                                    : CheckStatus::kFail;
  }
  ChecklistItem& memory = out.Item("memory_fragmentation");
  if (memory.status != CheckStatus::kUnknown) {
    const FindingSeverity worst = out.WorstSeverity("memory_fragmentation");
    if (!out.HasFinding("memory_fragmentation")) memory.status = CheckStatus::kPass;
    else memory.status = worst == FindingSeverity::kInfo ? CheckStatus::kWarn : CheckStatus::kFail;
  }
}

}  // namespace ampscope::diagnosis
