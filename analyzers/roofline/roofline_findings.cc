#include "analyzers/roofline/roofline_findings.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "analyzers/roofline/eager_attention.h"

namespace ampscope::roofline {
namespace {

bool LowPrecision(Precision p) { return p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8; }

// min(peak, intensity x bandwidth) in TFLOP/s, or 0 when not known.
double Attainable(const OpRow& r, const GpuPeak& peak) {
  if (!r.roof.peak_tflops || !r.work.flop_per_byte || peak.hbm_gbs <= 0) return 0;
  return std::min(*r.roof.peak_tflops, *r.work.flop_per_byte * peak.hbm_gbs / 1e3);
}

}  // namespace

const char* GemmCauseName(GemmCause c) {
  switch (c) {
    case GemmCause::kMisaligned: return "misaligned";
    case GemmCause::kMemoryBound: return "memory_bound";
    case GemmCause::kTooFewTiles: return "too_few_tiles";
    case GemmCause::kFp32: return "fp32";
    case GemmCause::kOther: break;
  }
  return "other";
}

GemmAssessment AssessGemms(const RooflineResult& r, const GemmPolicy& policy) {
  GemmAssessment out;
  if (!r.available) {
    out.reason = r.reason.empty() ? "no roofline" : r.reason;
    return out;
  }
  if (!r.gpu.peak) {
    out.reason = "GPU not in the peak table (pass --gpu NAME)";
    return out;
  }
  const GpuPeak& peak = *r.gpu.peak;
  bool any_gemm = false, run_uses_low_precision = false;
  for (const OpRow& row : r.ops)
    if (row.id.family == OpFamily::kGemm && LowPrecision(row.id.precision)) run_uses_low_precision = true;

  struct Judged {
    const OpRow* row;
    double ns, ideal_ns, efficiency;
  };
  std::vector<Judged> judged;
  for (const OpRow& row : r.ops) {
    if (row.id.family != OpFamily::kGemm || !row.work.known) continue;
    any_gemm = true;
    const double att = Attainable(row, peak);
    const double ns = row.timing.kernel_time_us * 1e3;
    if (row.work.gflop < policy.min_gflop || att <= 0 || ns <= 0 || row.timing.calls_with_kernels == 0) continue;
    // Ideal: every call with kernels at the attainable rate (GFLOP / TFLOP/s = ms).
    const double ideal_ns = static_cast<double>(row.timing.calls_with_kernels) * row.work.gflop / att * 1e6;
    judged.push_back({&row, ns, ideal_ns, 100.0 * ideal_ns / ns});
  }
  if (judged.empty()) {
    out.reason = !any_gemm ? "profile with record_shapes=True (GEMM shapes unknown)"
                           : "no GEMM call of >= " + std::to_string(static_cast<int>(policy.min_gflop)) + " GFLOP with a known peak";
    return out;
  }
  out.known = true;
  double ns = 0, ideal = 0;
  for (const Judged& j : judged) ns += j.ns, ideal += j.ideal_ns;
  out.efficiency_pct = 100.0 * ideal / ns;
  // Target: what this run's own GEMMs reach (p90 by time), and at least the threshold.
  std::vector<std::pair<double, double>> by_eff;
  for (const Judged& j : judged) by_eff.emplace_back(j.efficiency, j.ns);
  std::sort(by_eff.begin(), by_eff.end());
  double acc = 0, p90 = by_eff.back().first;
  for (const auto& [e, t] : by_eff) {
    acc += t;
    if (acc >= ns * 0.9) {
      p90 = e;
      break;
    }
  }
  out.target_pct = std::max(policy.low_pct, p90);

  for (const Judged& j : judged) {
    // The GEMMs of hand-written attention are slow for the attention's reasons (the eager_attention
    // finding, whose fix is SDPA), not for their shapes.
    if (j.efficiency >= policy.low_pct || IsEagerAttentionGemm(r, *j.row)) continue;
    LowGemm low;
    low.row = j.row;
    low.efficiency_pct = j.efficiency;
    const OpRow& row = *j.row;
    if (row.work.gemm) {
      const GemmDims& d = *row.work.gemm;
      low.tiles = d.batch * std::ceil(d.m / 128) * std::ceil(d.n / 128);
      const double a = policy.dim_alignment;
      low.aligned = !LowPrecision(row.id.precision) ||
                    (std::fmod(d.m, a) == 0 && std::fmod(d.n, a) == 0 && std::fmod(d.k, a) == 0);
    }
    if (!low.aligned) low.cause = GemmCause::kMisaligned;
    else if (row.roof.bound == "memory") low.cause = GemmCause::kMemoryBound;
    else if (policy.sm_count > 0 && low.tiles > 0 && low.tiles < policy.sm_count) low.cause = GemmCause::kTooFewTiles;
    else if (row.id.precision == Precision::kFp32 && run_uses_low_precision) low.cause = GemmCause::kFp32;
    out.low_time_ns += j.ns;
    out.saving_ns += std::max(0.0, j.ns - j.ideal_ns * 100.0 / out.target_pct);
    out.low.push_back(low);
  }
  std::sort(out.low.begin(), out.low.end(),
            [](const LowGemm& a, const LowGemm& b) { return a.row->timing.kernel_time_us > b.row->timing.kernel_time_us; });
  return out;
}

AttentionAssessment AssessAttention(const RooflineResult& r, const AttentionPolicy& policy) {
  AttentionAssessment out;
  if (policy.vendor == GpuVendor::kNvidia && policy.cc_major >= 8) {
    out.flash_available = true;
    out.availability = "sm" + std::to_string(policy.cc_major) + "x: PyTorch's flash SDPA kernel runs on sm80 and newer";
  } else if (policy.vendor == GpuVendor::kNvidia && policy.cc_major > 0) {
    out.availability = "sm" + std::to_string(policy.cc_major) +
                       "x: PyTorch's flash SDPA kernel needs sm80 or newer; memory-efficient attention is the fused choice here";
  } else {
    out.availability = "the GPU's architecture is not known, so whether a flash kernel exists for it is not known";
  }
  for (const AttentionUse& u : r.attention) {
    bool slow = u.impl == AttentionImpl::kMath;
    if (u.impl == AttentionImpl::kEfficient && out.flash_available) {
      // Flash takes fp16/bf16 only: fp32 attention has no flash kernel to move to.
      const Precision p = PrecisionFromTypeTags(u.input_types);
      slow = p == Precision::kFp16 || p == Precision::kBf16;
    }
    if (!slow || u.kernel_time_us <= 0) continue;
    out.slow.push_back(&u);
    out.slow_time_us += u.kernel_time_us;
  }
  out.saving_us = out.slow_time_us * (1 - 1 / policy.speedup);
  return out;
}

}  // namespace ampscope::roofline
