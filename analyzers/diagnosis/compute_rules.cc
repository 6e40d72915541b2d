// Compute rules: Tensor Core use, autocast coverage, GEMM efficiency and attention kernels.
// Thresholds and estimates: diagnosis.h and docs/findings.md.
#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/graph/amp_transform.h"
#include "analyzers/roofline/roofline_findings.h"
#include "base/saturating.h"
#include "base/tensor_cores.h"
#include "base/units.h"
#include "trace/classify/host_roles.h"

namespace ampscope::diagnosis {
namespace {

// TF32 Tensor Cores (sm80 on): the GPU's peak-table row has a TF32 peak, or its compute capability says so.
bool HasTf32(const Facts& in) {
  if (in.gpu.peak != nullptr) return in.gpu.peak->tf32_tflops > 0;
  return HasTf32TensorCores(in.run.cc_major);
}

// What TF32 advice fits the run: only a library whose fp32-input GEMMs/convs never use TF32
// (precision.cc's allow_tf32 "off") gets its switch named; where TF32 kernels already run ("on",
// "mixed": a TF32 kernel proves the switch is on) nothing is said. "" when nothing applies.
std::string Tf32Advice(const Facts& in) {
  if (!HasTf32(in) || in.gpu.amd) return "";
  const Tf32Result& t = in.ra.precision.tf32;
  const bool matmul_off = std::string_view(t.allow_tf32_matmul) == "off";
  const bool cudnn_off = std::string_view(t.allow_tf32_cudnn) == "off";
  const bool matmul_on = std::string_view(t.allow_tf32_matmul) == "on" || std::string_view(t.allow_tf32_matmul) == "mixed";
  const bool cudnn_on = std::string_view(t.allow_tf32_cudnn) == "on" || std::string_view(t.allow_tf32_cudnn) == "mixed";
  const bool unknown = std::string_view(t.allow_tf32_matmul) == "unknown" && std::string_view(t.allow_tf32_cudnn) == "unknown";
  if (unknown && !t.used)
    return "; at least allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True)";
  if (matmul_off && cudnn_off)
    return "; at least allow TF32 (torch.backends.cuda.matmul.allow_tf32 = True, torch.backends.cudnn.allow_tf32 = True)";
  if (matmul_off)
    return std::string("; its fp32 GEMMs do not use TF32") + (cudnn_on ? " although its convolutions do" : "") +
           ": torch.backends.cuda.matmul.allow_tf32 = True (or torch.set_float32_matmul_precision('high'))";
  if (cudnn_off)
    return std::string("; its fp32 convolutions do not use TF32") + (matmul_on ? " although its GEMMs do" : "") +
           ": torch.backends.cudnn.allow_tf32 = True";
  return "";
}

// "tf32 54%, fp32 46%": what the eligible work runs in now, by share of its time.
std::string PrecisionMix(const EligibleWork& e) {
  std::vector<std::pair<double, Precision>> v;
  for (const auto& [p, us] : e.time_by_precision_us) v.emplace_back(us, p);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (const auto& [us, p] : v) {
    if (e.time_us <= 0) break;
    const double pct = 100.0 * us / e.time_us;
    if (pct < 0.5) continue;  // what rounds to 0% says nothing
    s += fmt::format("{}{} {:.0f}%", s.empty() ? "" : ", ", PrecisionName(p), pct);
  }
  return s;
}

// The item's status for a Tensor Core share.
CheckStatus TcStatus(double pct) {
  return pct >= kTensorCorePassPct ? CheckStatus::kPass : pct >= kTensorCoreFailPct ? CheckStatus::kWarn : CheckStatus::kFail;
}

// The AMP transform on this run (analyzers/graph/amp_transform.h).
graph::AmpEstimate AmpOf(const Facts& in) {
  graph::AmpInputs a;
  a.peak = in.gpu.peak;
  a.roofline = in.ra.roofline.get();
  a.bf16 = in.Bf16TensorCores();
  std::string basis;
  a.fallback_fp32_ratio = in.SimtToTcRatio(&basis);
  return graph::AmpTransform(in.ctx, a);
}

// The kernels under the roofline rows (op name, input dims and types; pass), each row's kernels
// at `factor` of their time.
graph::Transform RowsTransform(const Facts& in, const std::vector<std::pair<const roofline::OpRow*, double>>& rows,
                               std::string selection) {
  graph::Transform t;
  t.name = graph::kScaleKernels;
  t.selection = std::move(selection);
  const OpTree& tree = in.ctx.op_tree();
  for (OpTree::NodeId n = 0; n < tree.size(); ++n) {
    const CpuOp* op = tree.cpu_op(n);
    if (op == nullptr || !in.ctx.InWindows(op->start_ns)) continue;
    for (const auto& [row, factor] : rows) {
      if (row->id.op != in.t.str(op->name) || row->id.input_dims != in.t.str(op->input_dims) ||
          row->id.input_types != in.t.str(op->input_types) || row->id.backward != tree.is_backward(n))
        continue;
      for (uint32_t k : tree.subtree_kernels(n))
        t.kernels.push_back({k, static_cast<TimeNs>(static_cast<double>(in.t.kernels[k].duration_ns()) * factor)});
      n = tree.subtree_end(n) - 1;
      break;
    }
  }
  t.Normalize();
  return t;
}

void RuleTensorCores(const Facts& in, FindingSink& out, ComputeOutcome& o) {
  ChecklistItem& item = out.Item("tensor_core_utilization");
  item.threshold = fmt::format(">= {:.0f}% of kernel time on {}", kTensorCorePassPct, in.MatrixUnits());
  item.source = in.gpu.amd ? "[proj] checklist; matrix-core (MFMA) kernels by name (trace/kernel_classifier), [kineto] tc_ratio"
                           : "[proj] checklist; Tensor Core kernels by name (trace/kernel_classifier), [kineto] tc_ratio";
  o.tc_pct = in.TcKernelPct();
  if (in.kernel_total_ns == 0) {
    item.status = CheckStatus::kUnknown;
    item.evidence = "no GPU kernels in the analysed steps";
    item.how_to_know = "profile with CUDA activities enabled (torch.profiler activities=[CPU, CUDA]) or record with ampscope record";
    return;
  }
  const int cc = in.gpu.info && !in.gpu.amd ? in.gpu.info->cc_major : -1;
  const std::optional<double> active = in.ra.tensor_cores.active_pct;
  // Kernels whose Tensor Core use the name cannot tell (Triton, some ROCm libraries): when the
  // share could fall on either side of a threshold, the status is unknown and no share is shown.
  const double unknown_pct = active ? 0.0 : in.ra.tensor_cores.unknown_tc_kernel_time_pct.value_or(0.0);
  o.tc_known = active.has_value() || TcStatus(o.tc_pct) == TcStatus(o.tc_pct + unknown_pct);
  // Matmul-class work (GEMM, conv, attention) by precision. AMP is in use when some of it runs
  // in fp16/bf16 (or fp8/int8); what is left in fp32/tf32 is what AMP would speed up.
  std::string basis;
  const double simt_ratio = in.SimtToTcRatio(&basis);
  const double tf32_ratio = in.gpu.peak != nullptr && in.gpu.peak->tf32_tflops > 0 ? in.gpu.peak->tf32_tflops / in.gpu.peak->fp16_tflops : 0.5;
  TimeNs matmul = 0, lowp_matmul = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i) || !IsMatmulClass(in.cls(i).category)) continue;
    const TimeNs d = in.t.kernels[i].duration_ns();
    matmul = SaturatingAdd(matmul, d);
    const Precision p = in.cls(i).precision;
    if (p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8 || p == Precision::kInt8) {
      lowp_matmul = SaturatingAdd(lowp_matmul, d);
      continue;
    }
  }
  // Tensor-Core-eligible work: one definition (precision.cc), its share of all kernel time and
  // its time in the same breath everywhere (the finding, this item, the fix text).
  const EligibleWork& eligible = in.ra.precision.eligible;
  const double eligible_pct = eligible.pct_of_kernel_time.value_or(0.0);
  const TimeNs eligible_ns = static_cast<TimeNs>(eligible.time_us * 1e3);
  const std::string mix = PrecisionMix(eligible);
  std::string ev = o.tc_known ? fmt::format("{:.1f}% of kernel time in {} kernels", o.tc_pct, in.MatrixUnit())
                              : fmt::format("{:.1f}% of kernel time in {} kernels and {:.1f}% whose {} use the kernel names "
                                            "do not tell",
                                            o.tc_pct, in.MatrixUnit(), unknown_pct, in.MatrixUnit());
  if (active) ev += fmt::format("; sampled Tensor Active {:.1f}%", *active);
  ev += fmt::format("; {}-eligible work {:.1f}% of kernel time ({:.1f} ms){}", in.MatrixUnitHyphen(), eligible_pct, Ms(eligible_ns),
                    mix.empty() ? "" : ", in " + mix);
  if (cc >= 0) ev += fmt::format("; compute capability {}.{}{}", cc, in.gpu.info->cc_minor, in.run.arch_inferred ? " (inferred from kernel names)" : "");
  if (in.gpu.amd) ev += "; AMD GPU: matrix cores (MFMA) are the Tensor Core equivalent";
  if (cc >= 0 && cc < 7 && !in.run.arch_inferred) {
    item.status = CheckStatus::kNotApplicable;
    item.evidence = ev + " (no Tensor Cores before Volta, cc 7.0)";
    return;
  }
  if (o.tc_known) item.value = Round(o.tc_pct);
  // [kineto] "tc_used_ratio == 0 and eligible > 0", generalised: no (< 1%) low-precision
  // matmul work although eligible work exists (an fp32 run on Ampere may still touch Tensor
  // Cores through TF32 or fp32 attention).
  const double lowp_pct = matmul > 0 ? 100.0 * static_cast<double>(lowp_matmul) / static_cast<double>(matmul) : 0.0;
  double eligible_lowp_us = 0, eligible_full_us = 0;  // of the eligible work whose precision is known
  for (const auto& [p, us] : eligible.time_by_precision_us) {
    if (p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8 || p == Precision::kInt8) eligible_lowp_us += us;
    if (p == Precision::kFp32 || p == Precision::kTf32 || p == Precision::kFp64) eligible_full_us += us;
  }
  o.amp_not_in_use = eligible_full_us > 0 && 100.0 * eligible_lowp_us < kAmpNotInUseTcPct * (eligible_lowp_us + eligible_full_us) &&
                     lowp_pct < kAmpNotInUseTcPct;
  if (o.amp_not_in_use) {
    const graph::AmpEstimate amp = AmpOf(in);
    std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return IsMatmulClass(in.cls(i).category); });
    Finding& x = out.Add("amp_not_in_use", 0.0,
                     fmt::format("AMP not in use: no fp16/bf16 matmul work although {}-eligible ops run", in.MatrixUnitHyphen()),
                     fmt::format("{}-eligible work is {:.0f}% of kernel time ({:.1f} ms){} and none of it runs in fp16/bf16 "
                                 "(top: {}). Wrap the forward pass{} in {}{}.",
                                 in.MatrixUnitHyphen(), eligible_pct, Ms(eligible_ns), mix.empty() ? "" : ", in " + mix,
                                 in.KernelList(top), in.inference() ? "" : " and loss", in.AutocastAdvice(), Tf32Advice(in)));
    FieldList by_precision;
    for (const auto& [p, us] : eligible.time_by_precision_us)
      by_precision.push_back({PrecisionName(p), eligible.time_us > 0 ? Round(100.0 * us / eligible.time_us) : 0.0, Unit::kPct});
    const double steps = static_cast<double>(in.nsteps);
    x.evidence = {{"tensor_core_kernel_time_pct", Round(o.tc_pct), Unit::kPct},
                  {"low_precision_matmul_pct", Round(lowp_pct), Unit::kPct},
                  {"eligible_kernel_time_pct", Round(eligible_pct), Unit::kPct},
                  {"eligible_kernel_time_us", NsToUsRounded3(eligible_ns), Unit::kUs},
                  {"eligible_by_precision_pct", by_precision},
                  {"eligible_basis", std::string(eligible.basis)},
                  {"top_kernels", top},
                  {"kernel_time_per_step_us", Round(static_cast<double>(amp.kernel_ns) / 1e3 / steps, 3), Unit::kUsPerStep},
                  {"whatif_kernel_time_per_step_us", Round(static_cast<double>(amp.whatif_kernel_ns) / 1e3 / steps, 3), Unit::kUsPerStep},
                  {"matmul_time_us", NsToUsRounded3(amp.matmul_ns), Unit::kUs},
                  {"whatif_matmul_time_us", NsToUsRounded3(amp.matmul_whatif_ns), Unit::kUs},
                  {"memory_bound_time_us", NsToUsRounded3(amp.memory_bound_ns), Unit::kUs},
                  {"whatif_memory_bound_time_us", NsToUsRounded3(amp.memory_bound_whatif_ns), Unit::kUs},
                  {"autocast_cast_time_us", NsToUsRounded3(amp.cast_ns), Unit::kUs},
                  {"low_precision_peak_tflops", Round(amp.peak_lowp_tflops, 1), Unit::kTflops},
                  {"low_precision_efficiency", Round(amp.efficiency, 3), Unit::kFactor},
                  {"efficiency_basis", amp.efficiency_basis},
                  {"estimate", fmt::format("replayed: fp32/TF32 matmuls re-timed from their FLOPs and bytes at the fp16/bf16 Tensor "
                                           "Core peak x efficiency (no faster than the peak ratio allows: SIMT {:.3f}, TF32 {:.3f}), "
                                           "plus autocast's weight casts; memory-bound model kernels at half the bytes; {}",
                                           simt_ratio, tf32_ratio, basis)}};
    out.Fix(x, amp.transform);
    item.status = CheckStatus::kFail;
    item.evidence = ev + "; AMP not in use";
    return;
  }
  item.status = o.tc_known ? TcStatus(o.tc_pct) : CheckStatus::kUnknown;
  if (!o.tc_known) item.how_to_know = "record with ampscope record --tensor-metrics to sample Tensor Core activity";
  item.evidence = ev;
}

// Loss / norm ops that autocast keeps in fp32, run in fp16/bf16. Under autocast such an op is
// recorded first with the fp16/bf16 input it was called with; autocast then casts and
// re-dispatches, and the inner op and its kernels run fp32. So an op counts only when nothing
// under it ran fp32: no inner op with fp32 inputs, no fp32 kernel (the op tree's subtree).
// Inference runs are not checked: a norm in bf16 for inference is normal.
struct LowPrecisionLossOps {
  int64_t calls = 0;
  TimeNs kernel_ns = 0;
  std::vector<std::string> names;
};
bool IsLowPrecision(Precision p) { return p == Precision::kFp16 || p == Precision::kBf16; }
LowPrecisionLossOps LossNormCheck(const Facts& in) {
  LowPrecisionLossOps loss;
  if (in.inference()) return loss;
  const OpTree& tree = in.ctx.op_tree();
  std::set<std::string> names;
  auto is_fp32_list_op = [&](OpTree::NodeId n) {
    const CpuOp* op = tree.cpu_op(n);
    return op != nullptr && IsAutocastFp32Op(in.t.str(op->name));
  };
  for (OpTree::NodeId n = 0; n < tree.size(); ++n) {
    const CpuOp* op = tree.cpu_op(n);
    if (op == nullptr || op->input_types == kNoString || !in.ctx.InWindows(op->start_ns) || !is_fp32_list_op(n)) continue;
    if (!IsLowPrecision(PrecisionFromTypeTags(in.t.str(op->input_types)))) continue;
    bool outer_listed = false;  // the inner call of an op already counted (or already judged)
    for (OpTree::NodeId p = tree.parent(n); p != OpTree::kNoNode && !outer_listed; p = tree.parent(p)) outer_listed = is_fp32_list_op(p);
    if (outer_listed) continue;
    bool ran_fp32 = false;
    for (OpTree::NodeId c = n + 1; c < tree.subtree_end(n) && !ran_fp32; ++c) {
      const CpuOp* inner = tree.cpu_op(c);
      ran_fp32 = inner != nullptr && inner->input_types != kNoString &&
                 PrecisionFromTypeTags(in.t.str(inner->input_types)) == Precision::kFp32;
    }
    for (uint32_t k : tree.subtree_kernels(n)) ran_fp32 = ran_fp32 || in.cls(k).precision == Precision::kFp32;
    if (ran_fp32) continue;
    ++loss.calls;
    SatAccumulate(loss.kernel_ns, tree.subtree_kernel_ns(n));
    names.insert(std::string(in.t.str(op->name)));
  }
  loss.names.assign(names.begin(), names.end());
  return loss;
}

// ---- autocast coverage -------------------------------------------------------------
void RuleAutocast(const Facts& in, FindingSink& out, ComputeOutcome& o) {
  ChecklistItem& item = out.Item("autocast_coverage");
  item.threshold = fmt::format("fp32 share of Tensor-Core-eligible op time < {:.0f}% (warn >= {:.0f}%), no fp32 SIMT GEMM share >= {:.0f}%, "
                               "loss/norm ops in fp32",
                               kAutocastFp32FailPct, kAutocastFp32WarnPct, kFp32SimtGemmSharePct);
  item.source = "[heur] CK-AC / CI-03 (docs/findings.md); autocast op lists (aten/src/ATen/autocast_mode.h)";
  if (in.kernel_total_ns == 0) {
    item.status = CheckStatus::kUnknown;
    item.evidence = "no GPU kernels in the analysed steps";
    item.how_to_know = "profile with CUDA activities enabled";
    return;
  }
  if (o.amp_not_in_use) {
    item.status = CheckStatus::kFail;
    item.value = 0;
    item.evidence = "AMP not in use: no Tensor-Core-eligible op runs in fp16/bf16";
    return;
  }
  // Kernel view: fp32 SIMT GEMMs/convs.
  TimeNs simt = 0, gemm = 0;
  for (size_t i = 0; i < in.t.kernels.size(); ++i) {
    if (!in.InWindow(i)) continue;
    if (in.cls(i).category == KernelCategory::kGemm || in.cls(i).category == KernelCategory::kConv) {
      gemm = SaturatingAdd(gemm, in.t.kernels[i].duration_ns());
      if (in.cls(i).fp32_simt_gemm) simt = SaturatingAdd(simt, in.t.kernels[i].duration_ns());
    }
  }
  o.simt_share_pct = gemm > 0 ? 100.0 * static_cast<double>(simt) / static_cast<double>(gemm) : 0.0;
  // Op view (record_shapes): fp32 share of eligible op time.
  const OpLevelPrecision* op = in.OpLevel();
  std::optional<double> fp32_ops;
  std::vector<OpPrecision> fp32_top;
  if (op != nullptr && op->has_input_types) {
    if (op->fp32_share_pct && *op->fp32_share_pct >= 0) fp32_ops = *op->fp32_share_pct;
    fp32_top = op->fp32_ops_top;
  }
  // Loss / norm ops in reduced precision (autocast keeps them in fp32).
  const LowPrecisionLossOps loss = LossNormCheck(in);

  std::vector<std::string> parts;
  parts.push_back(fmt::format("fp32 SIMT GEMM/conv share {:.1f}% of GEMM/conv time", o.simt_share_pct));
  if (fp32_ops) parts.push_back(fmt::format("fp32 share of Tensor-Core-eligible op kernel time {:.1f}%", *fp32_ops));
  if (loss.calls > 0) parts.push_back(fmt::format("{} loss/norm op calls in fp16/bf16", loss.calls));
  item.evidence = fmt::format("{}", fmt::join(parts, "; "));
  const double fp32 = fp32_ops ? *fp32_ops : o.simt_share_pct;
  item.value = Round(fp32);

  if (o.simt_share_pct >= kFp32SimtGemmSharePct || (fp32_ops && *fp32_ops >= kAutocastFp32FailPct && simt > 0)) {
    std::string basis;
    const double ratio = in.SimtToTcRatio(&basis);
    std::vector<KernelTime> top = in.TopKernels([&](size_t i) { return in.cls(i).fp32_simt_gemm; });
    std::string ops;
    for (size_t i = 0; i < fp32_top.size() && i < 3; ++i)
      ops += fmt::format("{}{} ({} calls, {:.1f} ms)", i ? ", " : "", fp32_top[i].name, fp32_top[i].calls,
                         fp32_top[i].kernel_time_us / 1e3);
    Finding& x = out.Add("fp32_gemm_outside_autocast", 0.0,
                     fmt::format("{:.0f}% of GEMM/conv time runs in fp32 on CUDA cores", o.simt_share_pct),
                     fmt::format("fp32 SIMT GEMMs {} {}run outside autocast or with fp32 inputs. Run these layers under "
                                 "torch.autocast (remove autocast(enabled=False) / .float() around them){}.",
                                 in.KernelList(top), ops.empty() ? "" : "launched by " + ops + " ",
                                 Tf32Advice(in)));
    x.evidence = {{"fp32_simt_gemm_share_pct", Round(o.simt_share_pct), Unit::kPct},
                  {"fp32_simt_gemm_time_us", NsToUsRounded3(simt), Unit::kUs},
                  {"top_kernels", top},
                  {"fp32_ops", OpRecords(fp32_top)},
                  {"estimate", fmt::format("replayed: the fp32 SIMT GEMMs re-timed as the AMP transform does (fp32/fp16-TC peak "
                                           "ratio {:.3f}); {}", ratio, basis)}};
    // The AMP transform, restricted to these GEMMs.
    graph::Transform fix = AmpOf(in).transform;
    fix.selection = "fp32 SIMT GEMM/conv kernels at fp16/bf16 Tensor Core speed";
    fix.kernels.erase(std::remove_if(fix.kernels.begin(), fix.kernels.end(), [&](const auto& k) { return !in.cls(k.first).fp32_simt_gemm; }),
                      fix.kernels.end());
    out.Fix(x, std::move(fix));
    item.status = CheckStatus::kFail;
    return;
  }
  if (loss.calls > 0) {
    Finding& x = out.Add("loss_or_norm_in_low_precision", 0.0,
                     "Loss / normalization ops run in fp16/bf16",
                     fmt::format("{} calls of {} take fp16/bf16 inputs; autocast would run them in fp32. This is what "
                                 "model.half() / manual casts do. Keep the model in fp32 and use torch.autocast, or "
                                 "compute the loss on logits.float().",
                                 loss.calls, fmt::join(loss.names, ", ")));
    x.evidence = {{"ops", loss.names}, {"calls", loss.calls, Unit::kCount}, {"kernel_time_us", NsToUsRounded3(loss.kernel_ns), Unit::kUs}};
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


// ---- GEMM efficiency and attention, from the roofline's per-op rows (issue 14) ---------
void RuleGemmEfficiency(const Facts& in, FindingSink& out, ComputeOutcome& o) {
  o.gemm_eff_known = false;
  if (in.ra.roofline == nullptr) {
    o.gemm_eff_reason = "the roofline was not computed";
    return;
  }
  roofline::GemmPolicy policy;
  policy.low_pct = kLowGemmEfficiencyPct;
  policy.min_gflop = kLargeGemmFlops / 1e9;
  policy.dim_alignment = kDimAlignment;
  if (in.ra.roofline->gpu.peak) policy.sm_count = in.ra.roofline->gpu.peak->sm_count;
  if (in.gpu.info != nullptr && in.gpu.info->sm_count > 0) policy.sm_count = in.gpu.info->sm_count;
  const roofline::GemmAssessment g = roofline::AssessGemms(*in.ra.roofline, policy);
  if (!g.known) {
    o.gemm_eff_reason = g.reason;
    return;
  }
  o.gemm_eff_known = true;
  o.gemm_eff_pct = g.efficiency_pct;
  if (g.low.empty()) return;
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
    advice += std::string("M/N/K not multiples of 8, which fp16/bf16 ") + in.MatrixUnit() + " kernels need for full speed [NV-guide]: pad "
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
  Finding& x = out.Add("low_gemm_tflops", 0.0,
                   fmt::format("Large GEMMs reach under {:.0f}% of what the {} attains at their FLOP per byte",
                               kLowGemmEfficiencyPct, in.ra.roofline->gpu.peak->id),
                   worst + ". " + advice);
  x.evidence = {{"large_gemm_efficiency_pct", Round(o.gemm_eff_pct), Unit::kPct},
                {"low_efficiency_gemm_time_us", NsToUsRounded3(static_cast<TimeNs>(g.low_time_ns)), Unit::kUs},
                {"target_efficiency_pct", Round(g.target_pct), Unit::kPct},
                {"gemms", low},
                {"estimate", "replayed: each GEMM shape below the threshold re-timed to the target efficiency (time x its "
                             "efficiency / target; ideal = FLOPs / min(peak, FLOP per byte x HBM bandwidth), docs/roofline.md)"}};
  std::vector<std::pair<const roofline::OpRow*, double>> rows;
  for (const roofline::LowGemm& l : g.low)
    if (g.target_pct > 0) rows.push_back({l.row, std::min(1.0, l.efficiency_pct / g.target_pct)});
  out.Fix(x, RowsTransform(in, rows, fmt::format("the kernels of {} GEMM shapes below {:.0f}% efficiency, at {:.0f}%", rows.size(),
                                                 kLowGemmEfficiencyPct, g.target_pct)),
          SavingGate::kMinSaving);
}

void RuleAttention(const Facts& in, FindingSink& out) {
  if (in.ra.roofline == nullptr || in.ra.roofline->attention.empty()) return;
  roofline::AttentionPolicy policy;
  if (in.gpu.info != nullptr) {
    policy.vendor = in.gpu.info->vendor;
    policy.cc_major = in.gpu.info->cc_major;
  }
  const roofline::AttentionAssessment a = roofline::AssessAttention(*in.ra.roofline, policy);
  if (a.slow.empty()) return;
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
  Finding& x = out.Add("attention_not_flash", 0.0,
                   fmt::format("Attention runs without a flash kernel ({:.1f}% of the window)",
                               in.PctOfWindow(a.slow_time_us * 1e3)),
                   advice);
  x.evidence = {{"attention_time_us", Round(a.slow_time_us, 3), Unit::kUs},
                {"calls", calls},
                {"flash_available", a.flash_available},
                {"estimate", fmt::format("replayed: the slow attention calls' kernels at 1/{:.0f} of their time: flash "
                                         "attention is at least {:.0f}x faster than the math path [heur; FlashAttention-2 reports 2-4x]",
                                         policy.speedup, policy.speedup)}};
  // The kernels under the slow calls (by op name and pass).
  std::vector<uint32_t> kernels;
  const OpTree& tree = in.ctx.op_tree();
  for (OpTree::NodeId n = 0; n < tree.size(); ++n) {
    const CpuOp* op = tree.cpu_op(n);
    if (op == nullptr || !in.ctx.InWindows(op->start_ns)) continue;
    bool slow = false;
    for (const roofline::AttentionUse* u : a.slow) slow = slow || (u->op == in.t.str(op->name) && u->backward == tree.is_backward(n));
    if (!slow) continue;
    for (uint32_t k : tree.subtree_kernels(n)) kernels.push_back(k);
    n = tree.subtree_end(n) - 1;
  }
  out.Fix(x, graph::ScaleKernels(in.t, std::move(kernels), 1.0 / policy.speedup, "the kernels of attention calls without a flash kernel"),
          SavingGate::kMinSaving);
}

}  // namespace

ComputeOutcome RuleCompute(const Facts& in, FindingSink& out) {
  ComputeOutcome o;
  RuleTensorCores(in, out, o);
  RuleAutocast(in, out, o);
  RuleGemmEfficiency(in, out, o);
  RuleAttention(in, out);
  return o;
}

}  // namespace ampscope::diagnosis
