#include "analyzers/graph/amp_transform.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "analyzers/context/context.h"
#include "analyzers/graph/op_cost_cache.h"
#include "analyzers/roofline/op_models.h"
#include "analyzers/roofline/roofline_result.h"
#include "base/saturating.h"

namespace ampscope::graph {
namespace {

bool IsMatmul(KernelCategory c) {
  return c == KernelCategory::kGemm || c == KernelCategory::kConv || c == KernelCategory::kAttention;
}
bool IsLowPrecision(Precision p) {
  return p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8 || p == Precision::kInt8;
}
bool IsModelMemoryBound(const KernelClass& c) {
  if (c.role == KernelRole::kFill || c.role == KernelRole::kCast || c.role == KernelRole::kCopy) return false;
  return c.category == KernelCategory::kElementwise || c.category == KernelCategory::kNormalization ||
         c.category == KernelCategory::kReduction;
}

// The kernel's launch falls in one of `ranges` (sorted by start) on its thread.
bool InRanges(const RankContext& ctx, size_t kernel, const std::vector<TidRange>& ranges) {
  const int64_t call = ctx.kernels().launch_call[kernel];
  if (call < 0 || ranges.empty()) return false;
  const ApiCall& a = ctx.trace().api_calls[static_cast<size_t>(call)];
  auto it = std::upper_bound(ranges.begin(), ranges.end(), a.start_ns, [](TimeNs t, const TidRange& r) { return t < r.start_ns; });
  for (size_t n = 0; it != ranges.begin() && n < 4; ++n) {
    --it;
    if (it->tid == a.tid && a.start_ns < it->end_ns) return true;
  }
  return false;
}

// The efficiency (achieved / attainable) of the trace's own matmul rows of the given precisions,
// weighted by kernel time; 0 when none is known.
double RowEfficiency(const roofline::RooflineResult* roof, bool low_precision) {
  if (roof == nullptr) return 0;
  double num = 0, den = 0;
  for (const roofline::OpRow& r : roof->ops) {
    if (r.id.unit != roofline::MathUnit::kMatrix || !r.roof.pct_of_peak) continue;
    if (IsLowPrecision(r.id.precision) != low_precision) continue;
    if (!low_precision && r.id.precision != Precision::kFp32 && r.id.precision != Precision::kTf32) continue;
    num += *r.roof.pct_of_peak / 100.0 * r.timing.kernel_time_us;
    den += r.timing.kernel_time_us;
  }
  return den > 0 ? std::clamp(num / den, 0.05, 1.0) : 0.0;
}

struct OpFactor {
  double factor = 1;
  TimeNs cast_ns = 0;
  bool shapes = false;
  bool typical = false;  // without shapes: capped at kTypicalSimtGemmAmpSpeedup
};

}  // namespace

AmpEstimate AmpTransform(const RankContext& ctx, const AmpInputs& in) {
  AmpEstimate est;
  const Trace& t = ctx.trace();
  const OpTree& tree = ctx.op_tree();
  est.transform.name = kAmp;
  const double lowp = in.peak == nullptr ? 0.0 : (in.bf16 && in.peak->bf16_tflops > 0 ? in.peak->bf16_tflops : in.peak->fp16_tflops);
  est.peak_lowp_tflops = lowp;
  const double measured = RowEfficiency(in.roofline, true);
  est.efficiency = measured > 0 ? measured : kDefaultLowPrecisionEfficiency;
  est.efficiency_basis = measured > 0 ? "this trace's fp16/bf16 matmuls (roofline rows)"
                                      : "default: no fp16/bf16 matmul with shapes in this trace";
  const double full_eff_measured = RowEfficiency(in.roofline, false);
  const double full_eff = full_eff_measured > 0 ? full_eff_measured : kDefaultFullPrecisionEfficiency;
  const double hbm = in.peak != nullptr && in.peak->hbm_gbs > 0 ? in.peak->hbm_gbs * 1e9 * kMemoryEfficiency : 0.0;
  // The precision's peak and the most a kernel can gain.
  auto peak_of = [&](bool tf32) {
    if (in.peak == nullptr) return 0.0;
    return tf32 && in.peak->tf32_tflops > 0 ? in.peak->tf32_tflops : in.peak->fp32_tflops;
  };
  auto floor_of = [&](bool tf32) {
    if (lowp <= 0 || peak_of(tf32) <= 0) return tf32 ? in.fallback_tf32_ratio : in.fallback_fp32_ratio;
    return std::min(1.0, peak_of(tf32) / lowp);
  };
  std::unordered_map<OpTree::NodeId, OpFactor> by_op;
  OpCostCache costs(t);
  auto op_factor = [&](OpTree::NodeId node, bool tf32) -> OpFactor {
    const double floor = floor_of(tf32);
    // Without shapes: the peak ratio times the efficiency ratio.
    OpFactor f;
    f.factor = std::clamp(floor * full_eff / est.efficiency, floor, 1.0);
    // Unless this trace measures its own fp16/bf16 efficiency, an fp32 SIMT matmul gains no more
    // than the typical measured AMP speedup (amp_transform.h gives the source).
    if (!tf32 && measured <= 0 && f.factor < 1.0 / kTypicalSimtGemmAmpSpeedup) {
      f.factor = std::clamp(1.0 / kTypicalSimtGemmAmpSpeedup, floor, 1.0);
      f.typical = true;
    }
    if (node == OpTree::kNoNode || lowp <= 0) return f;
    auto cached = by_op.find(node);
    if (cached != by_op.end()) return cached->second;
    // The op with a matmul model at or above the kernel's node.
    OpTree::NodeId op = node;
    for (; op != OpTree::kNoNode; op = tree.parent(op)) {
      const CpuOp* c = tree.cpu_op(op);
      if (c != nullptr && roofline::IsMatrixFamily(roofline::FamilyOf(t.str(c->name)))) break;
    }
    if (op != OpTree::kNoNode) {
      const roofline::OpCost& cost = costs.Of(*tree.cpu_op(op));
      {
        TimeNs old = 0;
        for (uint32_t k : tree.subtree_kernels(op)) {
          const KernelClass& kc = ctx.kernel_class(k);
          if (IsMatmul(kc.category) && !IsLowPrecision(kc.precision)) SatAccumulate(old, t.kernels[k].duration_ns());
        }
        if (cost.known && cost.flop > 0 && old > 0) {
          double ns = cost.flop / (lowp * 1e12 * est.efficiency) * 1e9;
          if (cost.bytes_known && hbm > 0) {
            const double lowp_bytes = cost.bytes * (cost.precision == Precision::kFp32 || cost.precision == Precision::kTf32 ? 0.5 : 1.0);
            ns = std::max(ns, lowp_bytes / hbm * 1e9);
            // Autocast casts the op's fp32 weight to fp16/bf16 once per forward: a third of the
            // op's fp32 traffic, read at 4 bytes and written at 2 per element.
            if (!cost.backward) f.cast_ns = static_cast<TimeNs>(0.5 * cost.bytes / hbm * 1e9);
          }
          f.factor = std::clamp(ns / static_cast<double>(old), floor, 1.0);
          f.shapes = true;
        }
      }
    }
    by_op[node] = f;
    return f;
  };
  std::unordered_map<OpTree::NodeId, bool> cast_charged;
  uint64_t typical_kernels = 0;
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    if (!ctx.kernels().in_window[i]) continue;
    const KernelEvent& k = t.kernels[i];
    const TimeNs d = k.duration_ns();
    SatAccumulate(est.kernel_ns, d);
    const KernelClass& c = ctx.kernel_class(i);
    TimeNs nd = d;
    if (IsMatmul(c.category) && !IsLowPrecision(c.precision)) {
      const bool tf32 = c.precision == Precision::kTf32 || c.tensor_core == TensorCoreUse::kYes;
      const OpTree::NodeId node = tree.node_of_kernel(static_cast<uint32_t>(i));
      const OpFactor f = op_factor(node, tf32);
      nd = static_cast<TimeNs>(std::llround(static_cast<double>(d) * f.factor));
      // The op's cast is added once, to its first matmul kernel.
      if (f.cast_ns > 0 && node != OpTree::kNoNode && cast_charged.emplace(node, true).second) {
        nd = std::min(d, nd + f.cast_ns);
        SatAccumulate(est.cast_ns, f.cast_ns);
      }
      ++est.matmul_kernels;
      est.matmul_kernels_with_shapes += f.shapes;
      typical_kernels += f.typical && !f.shapes;
      SatAccumulate(est.matmul_ns, d);
      SatAccumulate(est.matmul_whatif_ns, nd);
    } else if (IsModelMemoryBound(c) && d > kSmallKernelNs && !InRanges(ctx, i, ctx.host().optimizer_steps) &&
               !InRanges(ctx, i, ctx.host().zero_grad)) {
      const int64_t op = ctx.CpuOpOfKernel(i);
      if (op >= 0 && costs.AutocastFp32(t.cpu_ops[static_cast<size_t>(op)].name)) {
        // autocast keeps this op in fp32: its traffic does not change.
      } else {
        nd = std::max(d / 2, kSmallKernelNs);
        SatAccumulate(est.memory_bound_ns, d);
        SatAccumulate(est.memory_bound_whatif_ns, nd);
      }
    }
    SatAccumulate(est.whatif_kernel_ns, nd);
    if (nd != d) est.transform.kernels.push_back({static_cast<uint32_t>(i), nd});
  }
  // Without a low-precision peak for this GPU the matmuls take the fallback ratios: say so, never
  // "at 0 TFLOP/s".
  const std::string matmul_rate =
      lowp > 0 ? fmt::format("at {:.0f} TFLOP/s x {:.2f} efficiency", lowp, est.efficiency)
               : fmt::format("at {:.2f}x (fp32) or {:.2f}x (TF32) their time x the efficiency ratio: no fp16/bf16 peak is known "
                             "for this GPU",
                             in.fallback_fp32_ratio, in.fallback_tf32_ratio);
  est.transform.selection = fmt::format(
      "{} fp32/TF32 matmul kernels ({} with op shapes) {}{}; memory-bound model kernels at half the bytes",
      est.matmul_kernels, est.matmul_kernels_with_shapes, matmul_rate,
      typical_kernels == 0 ? std::string()
                           : fmt::format("; {} fp32 SIMT kernels without shapes at most {:.0f}x faster (the typical AMP speedup: "
                                         "no fp16/bf16 matmul of this trace measures the efficiency)",
                                         typical_kernels, kTypicalSimtGemmAmpSpeedup));
  est.transform.Normalize();
  return est;
}

}  // namespace ampscope::graph
