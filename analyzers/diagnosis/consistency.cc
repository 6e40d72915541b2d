// Consistency of the matrix and the checklist with the findings (docs/findings.md,
// "Consistency"): every bad dimension and every failing checklist item names at least one
// finding that explains it, and a failing item's value is the measure that failed.
#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

// A busy-time fix explains the Tensor Core share only when its fix changes a material part of the
// kernel time: zeroing 2% of the kernel time in fills does not explain why most of it runs off
// the Tensor Cores (an expert would not sign "Tensor Cores fail: see zero_grad_fills").
constexpr double kMaterialKernelTimeShare = 0.10;

bool ChangesMaterialKernelTime(const Finding& f, TimeNs kernel_total_ns) {
  const std::optional<double> changed_us = FieldNumber(f.evidence, "whatif_changed_time_us");
  return changed_us && kernel_total_ns > 0 &&
         *changed_us * 1e3 >= kMaterialKernelTimeShare * static_cast<double>(kernel_total_ns);
}

// Whether a finding of another dimension explains `dim`'s headline: idle-time fixes explain low
// GPU busy (task_parallelism), busy-time fixes that change a material part of the kernel time
// explain kernel time off the Tensor Cores (compute_intensity), fusion fixes explain
// memory-bound time (memory_bandwidth). Only findings with a saving explain a headline number.
bool ExplainsDimension(std::string_view dim, const Finding& f, TimeNs kernel_total_ns) {
  if (f.est_saving_pct <= 0) return false;
  const SavingKind k = CatalogEntryOf(f.id).saving;
  if (dim == "task_parallelism") return k == SavingKind::kIdle;
  if (dim == "compute_intensity") return k == SavingKind::kBusy && ChangesMaterialKernelTime(f, kernel_total_ns);
  if (dim == "memory_bandwidth") return f.checklist == "kernel_fusion" || f.id == "layout_transforms";
  return false;
}

// Whether a finding of another item explains `item`'s status. The Tensor Core share: the
// precision of the matmul work (fp32 GEMMs outside autocast) or a busy-time fix of a material
// part of the kernel time; not every finding of the compute_intensity dimension (a GradScaler
// that skips steps says nothing about Tensor Cores).
bool ExplainsItem(std::string_view item, const Finding& f, TimeNs kernel_total_ns) {
  if (item == "tensor_core_utilization")
    return f.id == "fp32_gemm_outside_autocast" || ExplainsDimension("compute_intensity", f, kernel_total_ns);
  if (item == "autocast_coverage") return f.id == "amp_not_in_use";
  return false;
}

void AddUnique(std::vector<std::string>& ids, const std::string& id) {
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}

bool IsTensorCoreKernel(const Facts& in, size_t k) { return in.cls(k).tensor_core == TensorCoreUse::kYes; }

// Where the kernel time off the Tensor Cores goes, by category (largest first).
std::vector<std::pair<TimeNs, KernelCategory>> OffTensorCoreTime(const Facts& in) {
  std::array<TimeNs, static_cast<size_t>(KernelCategory::kCount)> by{};
  for (size_t k = 0; k < in.t.kernels.size(); ++k)
    if (in.InWindow(k) && !IsTensorCoreKernel(in, k)) SatAccumulate(by[static_cast<size_t>(in.cls(k).category)], in.t.kernels[k].duration_ns());
  std::vector<std::pair<TimeNs, KernelCategory>> out;
  for (size_t c = 0; c < by.size(); ++c)
    if (by[c] > 0) out.emplace_back(by[c], static_cast<KernelCategory>(c));
  std::sort(out.rbegin(), out.rend());
  return out;
}

std::string CategoryAdvice(KernelCategory c) {
  switch (c) {
    case KernelCategory::kGemm:
    case KernelCategory::kConv:
    case KernelCategory::kAttention:
      return "matmul-class kernels that do not run on Tensor Cores: run them in fp16/bf16 under autocast, with M, N and K "
             "multiples of 8";
    case KernelCategory::kCommunication: return "communication kernels (the distributed_sync item)";
    case KernelCategory::kOptimizer:
    case KernelCategory::kAmpScaler: return "optimizer kernels (a fused optimizer step does the update in one kernel)";
    case KernelCategory::kOther:
    case KernelCategory::kTritonFused:
      return "kernels whose math the classifier cannot tell (ampscope kernels lists them with the rule that placed them)";
    default:
      return "memory-bound kernels, which never use Tensor Cores: fuse them (torch.compile, fused ops such as "
             "F.scaled_dot_product_attention and fused norms)";
  }
}

// compute_intensity bad / tensor_core_utilization failing with nothing to explain it: say where
// the kernel time off the Tensor Cores goes.
void AddLowTensorCoreShare(const Facts& in, FindingSink& out) {
  const std::vector<std::pair<TimeNs, KernelCategory>> off = OffTensorCoreTime(in);
  if (off.empty() || in.kernel_total_ns <= 0) return;
  const double tc_pct = in.TcKernelPct();
  std::vector<FieldList> cats;
  std::string top, advice;
  for (size_t i = 0; i < off.size() && i < 5; ++i) {
    const double pct = 100.0 * static_cast<double>(off[i].first) / static_cast<double>(in.kernel_total_ns);
    const KernelCategory c = off[i].second;
    cats.push_back({{"category", KernelCategoryName(c)}, {"time_us", NsToUsRounded3(off[i].first), Unit::kUs},
                    {"pct_of_kernel_time", Round(pct), Unit::kPctOfKernelTime},
                    {"top_kernels", in.TopKernels([&](size_t k) { return in.cls(k).category == c && !IsTensorCoreKernel(in, k); }, 3)}});
    if (i < 3) {
      top += fmt::format("{}{} {:.0f}%", i ? ", " : "", KernelCategoryName(c), pct);
      const std::string a = CategoryAdvice(c);
      if (advice.find(a) == std::string::npos) advice += fmt::format("{}{}: {}", advice.empty() ? "" : "; ", KernelCategoryName(c), a);
    }
  }
  Finding& x = out.Add("low_tensor_core_share", 0.0,
                       fmt::format("Only {:.0f}% of kernel time runs on Tensor Cores", tc_pct),
                       fmt::format("The kernel time off the Tensor Cores is {} (of all kernel time). {}.", top, advice));
  x.evidence = {{"tensor_core_kernel_time_pct", Round(tc_pct), Unit::kPct}, {"off_tensor_core_by_category", cats}};
}

// memory_bandwidth bad with nothing to explain it: the memory-bound kernels and the ops behind them.
void AddMemoryBoundKernels(const Facts& in, const MemoryBoundOutcome& m, FindingSink& out) {
  std::map<std::string, std::pair<uint64_t, TimeNs>> by_op;
  TimeNs mem = 0;
  for (size_t k = 0; k < in.t.kernels.size(); ++k) {
    if (!in.InWindow(k) || !IsMemoryBound(in.cls(k).category)) continue;
    SatAccumulate(mem, in.t.kernels[k].duration_ns());
    const int64_t op = in.ctx.CpuOpOfKernel(k);
    auto& [n, ns] = by_op[op >= 0 ? std::string(in.t.str(in.t.cpu_ops[static_cast<size_t>(op)].name)) : KernelCategoryName(in.cls(k).category)];
    ++n;
    SatAccumulate(ns, in.t.kernels[k].duration_ns());
  }
  if (mem <= 0) return;
  std::vector<std::pair<TimeNs, std::string>> top;
  for (const auto& [op, v] : by_op) top.emplace_back(v.second, op);
  std::sort(top.rbegin(), top.rend());
  std::vector<FieldList> ops;
  std::string named;
  for (size_t i = 0; i < top.size() && i < 5; ++i) {
    ops.push_back({{"op", top[i].second}, {"kernels", by_op[top[i].second].first, Unit::kCount}, {"time_us", NsToUsRounded3(top[i].first), Unit::kUs}});
    if (i < 3) named += fmt::format("{}{} ({:.1f} ms)", i ? ", " : "", top[i].second, Ms(top[i].first));
  }
  const bool no_matmul = m.mem_vs_gemm >= 1e6;  // rules.h: no GEMM/conv/attention time at all
  Finding& x = out.Add("memory_bound_kernels", 0.0,
                       no_matmul ? fmt::format("Memory-bound kernels take {:.0f}% of kernel time and no GEMM/conv/attention kernel runs",
                                               m.mem_bound_pct)
                                 : fmt::format("Memory-bound kernels take {:.1f}x the time of the GEMM/conv/attention kernels", m.mem_vs_gemm),
                       fmt::format("{:.0f}% of kernel time is elementwise, reduction, normalization, softmax, cast and copy kernels "
                                   "(top: {}); each reads and writes its tensors once. Fuse them (torch.compile; fused ops such as "
                                   "F.scaled_dot_product_attention, fused norms and fused optimizers) and keep activations in "
                                   "fp16/bf16.",
                                   m.mem_bound_pct, named));
  x.evidence = {{"memory_bound_kernel_time_us", NsToUsRounded3(mem), Unit::kUs},
                {"memory_bound_pct_of_kernel_time", Round(m.mem_bound_pct), Unit::kPctOfKernelTime},
                {"memory_bound_vs_gemm_time", Round(std::min(m.mem_vs_gemm, 1e6), 3), Unit::kFactor},
                {"by_op", ops}};
}

// autocast_coverage failing with nothing to explain it (fp32 eligible ops without SIMT GEMMs, on a
// GPU where the Tensor Core rule does not run): the fp32 ops and the autocast to use.
void AddFp32EligibleOps(const Facts& in, const ChecklistItem& item, FindingSink& out) {
  const OpLevelPrecision* op = in.OpLevel();
  const double share = op != nullptr && op->fp32_share_pct ? *op->fp32_share_pct : item.value.value_or(0);
  if (share <= 0) return;
  std::string ops;
  if (op != nullptr)
    for (size_t i = 0; i < op->fp32_ops_top.size() && i < 3; ++i)
      ops += fmt::format("{}{} ({} calls, {:.1f} ms)", i ? ", " : "", op->fp32_ops_top[i].name, op->fp32_ops_top[i].calls,
                         op->fp32_ops_top[i].kernel_time_us / 1e3);
  Finding& x = out.Add("fp32_eligible_ops", 0.0,
                       fmt::format("{:.0f}% of Tensor-Core-eligible op time runs in fp32", share),
                       fmt::format("Matmul-class ops{} run with fp32 inputs. Run the forward pass{} under {}.",
                                   ops.empty() ? "" : " (" + ops + ")", in.inference() ? "" : " and loss", in.AutocastAdvice()));
  x.evidence = {{"fp32_share_pct", Round(share), Unit::kPctFp32}};
  if (op != nullptr) x.evidence.push_back({"fp32_ops", OpRecords(op->fp32_ops_top)});
}

// A failing or warning item's value: the measure that failed or warned, when the rule left the
// value of another measure (0 allocator calls while peak memory or fragmentation failed it, a
// skip rate of 0 while fp16 ran without a scaler).
void FailValue(ChecklistItem& c, const std::vector<Finding>& findings) {
  if ((c.status != CheckStatus::kFail && c.status != CheckStatus::kWarn) || (c.value && *c.value != 0)) return;
  for (const std::string& id : c.findings) {
    const Finding* f = nullptr;
    for (const Finding& x : findings)
      if (x.id == id) f = &x;
    if (f == nullptr) continue;
    if (id == "amp_not_in_use") {
      if (std::optional<double> low = FieldNumber(f->evidence, "low_precision_matmul_pct")) {
        c.value = Round(100.0 - *low), c.unit = Unit::kPctFp32;
        return;
      }
    } else if (id == "fp16_without_grad_scaler") {
      const double fp16 = FieldNumber(f->evidence, "fp16_gemm_time_us").value_or(0);
      const double bf16 = FieldNumber(f->evidence, "bf16_gemm_time_us").value_or(0);
      if (fp16 + bf16 > 0) {
        c.value = Round(100.0 * fp16 / (fp16 + bf16)), c.unit = Unit::kPctFp16;
        return;
      }
    } else if (id == "memory_peak_near_capacity") {
      if (std::optional<double> v = FieldNumber(f->evidence, "peak_pct")) {
        c.value = *v, c.unit = Unit::kPctOfDeviceMemory;
        return;
      }
    } else if (id == "allocator_fragmentation") {
      if (std::optional<double> v = FieldNumber(f->evidence, "fragmentation_pct")) {
        c.value = *v, c.unit = Unit::kPct;
        return;
      }
    } else if (f->est_saving_pct > 0) {
      c.value = f->est_saving_pct, c.unit = Unit::kPctOfStep;  // what fixing it would save
      return;
    }
  }
}

}  // namespace

void ExplainStatuses(const Facts& in, const Outcomes& o, FindingSink& out, RankAnalysis& ra) {
  auto dim = [&](const char* id) -> DimensionResult* {
    for (DimensionResult& d : ra.matrix)
      if (d.id == id) return &d;
    return nullptr;
  };
  auto item = [&](const char* id) -> ChecklistItem* {
    for (ChecklistItem& c : ra.checklist)
      if (c.id == id) return &c;
    return nullptr;
  };
  auto link = [&] {
    for (DimensionResult& d : ra.matrix)
      for (const Finding& f : out.findings())
        if (f.dimension == d.id || ExplainsDimension(d.id, f, in.kernel_total_ns)) AddUnique(d.findings, f.id);
    for (ChecklistItem& c : ra.checklist)
      for (const Finding& f : out.findings())
        if (f.checklist == c.id || ExplainsItem(c.id, f, in.kernel_total_ns)) AddUnique(c.findings, f.id);
  };
  link();
  // Nothing explains a bad headline: say where the time goes.
  const DimensionResult* ci = dim("compute_intensity");
  const ChecklistItem* tc = item("tensor_core_utilization");
  if ((ci != nullptr && ci->status == DimensionStatus::kBad && ci->findings.empty()) ||
      (tc != nullptr && tc->status == CheckStatus::kFail && tc->findings.empty()))
    AddLowTensorCoreShare(in, out);
  const ChecklistItem* ac = item("autocast_coverage");
  if (ac != nullptr && ac->status == CheckStatus::kFail && ac->findings.empty()) AddFp32EligibleOps(in, *ac, out);
  const DimensionResult* mb = dim("memory_bandwidth");
  if (mb != nullptr && mb->status == DimensionStatus::kBad && mb->findings.empty()) AddMemoryBoundKernels(in, o.memory_bound, out);
  link();
  for (ChecklistItem& c : ra.checklist) FailValue(c, out.findings());
}

}  // namespace ampscope::diagnosis
