// Attention rules: attention written by hand in eager ops (eager_attention). The SDPA
// implementation that ran (attention_not_flash) is compute_rules.cc's.
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analyzers/diagnosis/rules.h"
#include "analyzers/roofline/eager_attention.h"
#include "base/saturating.h"
#include "base/units.h"

namespace ampscope::diagnosis {
namespace {

Field OptInt(const char* key, const std::optional<int64_t>& v) {
  return v ? Field(key, *v, Unit::kCount) : Field(key, Value());
}

// Without host ops there is no op tree: the same sequence on the kernels of a stream, a GEMM
// kernel, a softmax kernel and a GEMM kernel with only elementwise / cast / reduction / copy-like
// kernels between them (at most roofline::kMaxOpsBetween each side), the two GEMMs of similar
// cost (roofline::SimilarCost). Shapes are unknown then.
roofline::EagerAttention FromKernels(const Facts& in) {
  roofline::EagerAttention e;
  e.qk_op = "GEMM kernel";
  e.softmax_op = "softmax kernel";
  e.pv_op = "GEMM kernel";
  e.shape_basis = "no host ops in the trace: found on the kernel sequence, shapes unknown";
  std::map<std::pair<int32_t, int32_t>, std::vector<size_t>> by_stream;
  for (size_t i = 0; i < in.t.kernels.size(); ++i)
    if (in.InWindow(i)) by_stream[{in.t.kernels[i].device, in.t.kernels[i].stream}].push_back(i);
  auto between = [&](size_t k) {
    const KernelCategory c = in.cls(k).category;
    return IsFusable(c) || c == KernelCategory::kMemcpyLike;
  };
  for (auto& stream : by_stream) {
    std::vector<size_t>& v = stream.second;  // a name, not a structured binding: the lambdas below use it
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return in.t.kernels[a].start_ns < in.t.kernels[b].start_ns; });
    size_t next_free = 0;  // kernels before this index belong to an instance already counted
    for (size_t s = 0; s < v.size(); ++s) {
      if (in.cls(v[s]).category != KernelCategory::kSoftmax || s < next_free) continue;
      auto nearest = [&](int step) -> int64_t {
        for (int k = 1; k <= roofline::kMaxOpsBetween + 1; ++k) {
          const int64_t j = static_cast<int64_t>(s) + step * k;
          if (j < static_cast<int64_t>(next_free) || j >= static_cast<int64_t>(v.size())) return -1;
          const KernelCategory c = in.cls(v[static_cast<size_t>(j)]).category;
          if (c == KernelCategory::kGemm) return j;
          if (!between(v[static_cast<size_t>(j)])) return -1;
        }
        return -1;
      };
      const int64_t qk = nearest(-1), pv = nearest(+1);
      if (qk < 0 || pv < 0) continue;
      // Q·Kᵀ and P·V cost alike; a router's gate GEMM and an expert GEMM do not.
      if (!roofline::SimilarCost(in.t.kernels[v[static_cast<size_t>(qk)]].duration_ns(),
                                 in.t.kernels[v[static_cast<size_t>(pv)]].duration_ns()))
        continue;
      e.calls++;
      for (int64_t j = qk; j <= pv; ++j) {
        const size_t k = v[static_cast<size_t>(j)];
        const double us = static_cast<double>(in.t.kernels[k].duration_ns()) / 1e3;
        e.kernel_time_us += us;
        e.kernels.push_back(static_cast<uint32_t>(k));
        if (j == qk || j == pv) e.gemm_time_us += us;
        if (static_cast<size_t>(j) == s) e.softmax_time_us += us;
      }
      next_free = static_cast<size_t>(pv) + 1;
    }
  }
  return e;
}

// What the same attention costs through an SDPA kernel, in ns (0: not known): its FLOPs
// (Q·Kᵀ and P·V, 4·B·H·N_q·N_kv·d; backward 2.5x that: five GEMMs to two) at kSdpaEfficiencyPct of
// the GPU's dense peak for the precision, or its q, k, v, out traffic at HBM bandwidth if longer,
// and never under kSdpaMinCallNs per call.
double SdpaNs(const Facts& in, const roofline::EagerAttention& e) {
  if (in.gpu.peak == nullptr || !e.batch_heads || !e.seq_q || !e.seq_kv || !e.head_dim || e.calls == 0) return 0;
  const double peak = in.gpu.peak->DenseTflops(e.precision);
  if (peak <= 0) return 0;
  const double bh = static_cast<double>(*e.batch_heads), nq = static_cast<double>(*e.seq_q);
  const double nkv = static_cast<double>(*e.seq_kv), d = static_cast<double>(*e.head_dim);
  const double flop = 4 * bh * nq * nkv * d * (e.backward_time_us > 0 ? 3.5 : 1.0);
  const double bpe = e.precision == Precision::kFp32 ? 4 : 2;
  const double bytes = bh * (2 * nq + 2 * nkv) * d * bpe * (e.backward_time_us > 0 ? 2 : 1);
  const double compute_ns = flop / (peak * 1e12 * kSdpaEfficiencyPct / 100) * 1e9;
  const double memory_ns = in.gpu.peak->hbm_gbs > 0 ? bytes / in.gpu.peak->hbm_gbs : 0;  // bytes / (GB/s) = ns
  // At least one kernel's fixed cost per call (launch and tail) [heur].
  return std::max({compute_ns, memory_ns, kSdpaMinCallNs}) * static_cast<double>(e.calls);
}

std::string Bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.0f} kB", b / 1e3);
}

std::string Dim(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("unknown"); }

// One attention's shape as its evidence row's label: "B 1 x H 16, N 5185, d 64" ("B·H 16" where
// bmm merged batch and heads and no 4-D tensor told them apart; "N 128x256" for cross-attention).
std::string ShapeLabel(const roofline::EagerAttention& e) {
  if (!e.seq_q) return "shape unknown";
  std::string bh = e.batch && e.heads ? fmt::format("B {} x H {}", *e.batch, *e.heads)
                   : e.batch_heads    ? fmt::format("B·H {}", *e.batch_heads)
                                      : std::string("B x H unknown");
  const std::string n = e.seq_kv && *e.seq_kv != *e.seq_q ? fmt::format("{}x{}", *e.seq_q, *e.seq_kv) : std::to_string(*e.seq_q);
  return fmt::format("{}, N {}, d {}", bh, n, Dim(e.head_dim));
}

}  // namespace

void RuleEagerAttention(const Facts& in, FindingSink& out) {
  if (in.kernel_total_ns <= 0) return;
  std::vector<roofline::EagerAttention> found;
  if (in.ra.roofline != nullptr && !in.t.cpu_ops.empty()) {
    found = in.ra.roofline->eager_attention;
  } else if (in.t.cpu_ops.empty()) {
    roofline::EagerAttention e = FromKernels(in);
    if (e.calls > 0) found.push_back(std::move(e));
  }
  double total_us = 0, gemm_us = 0, softmax_us = 0, backward_us = 0;
  uint64_t calls = 0;
  for (const roofline::EagerAttention& e : found) {
    total_us += e.kernel_time_us;
    gemm_us += e.gemm_time_us;
    softmax_us += e.softmax_time_us;
    backward_us += e.backward_time_us;
    calls += e.calls;
  }
  const double gpu_pct = 100.0 * total_us * 1e3 / static_cast<double>(in.kernel_total_ns);
  if (found.empty() || total_us <= 0 || gpu_pct < kEagerAttentionPct) return;
  // The fix: the same attention through an SDPA kernel: its FLOPs at kSdpaEfficiencyPct of the
  // peak where the shapes and the GPU are known, and at least kFlashSpeedup x faster than the
  // eager ops ([heur], FlashAttention-2 reports 2-4x over standard attention); never more than
  // the GPU's busy time.
  // The replayed fix: each shape's kernels at the SDPA time's share of their eager time.
  bool modelled = false;
  graph::Transform fix;
  fix.name = graph::kScaleKernels;
  for (const roofline::EagerAttention& e : found) {
    const double eager_ns = e.kernel_time_us * 1e3, sdpa_ns = SdpaNs(in, e);
    modelled = modelled || sdpa_ns > 0;
    const double factor = std::min(1.0 / kFlashSpeedup, sdpa_ns > 0 && eager_ns > 0 ? sdpa_ns / eager_ns : 1.0);
    for (uint32_t k : e.kernels)
      fix.kernels.push_back({k, static_cast<TimeNs>(static_cast<double>(in.t.kernels[k].duration_ns()) * factor)});
  }
  fix.selection = fmt::format("the kernels of {} hand-written attention call{} (Q·Kᵀ to P·V, with backward) at an SDPA "
                              "kernel's time", calls, calls == 1 ? "" : "s");
  fix.Normalize();
  const roofline::EagerAttention& top = found.front();
  std::vector<FieldList> shapes;
  for (size_t i = 0; i < found.size() && i < 5; ++i) {
    const roofline::EagerAttention& e = found[i];
    shapes.push_back({{"shape", ShapeLabel(e)}, {"ops", fmt::format("{} -> {} -> {}", e.qk_op, e.softmax_op, e.pv_op)},
                      {"qk_input_dims", e.qk_input_dims}, {"pv_input_dims", e.pv_input_dims},
                      OptInt("batch", e.batch), OptInt("heads", e.heads), OptInt("batch_x_heads", e.batch_heads),
                      OptInt("seq_q", e.seq_q), OptInt("seq_kv", e.seq_kv), OptInt("head_dim", e.head_dim),
                      {"precision", PrecisionName(e.precision)},
                      {"attention_matrix_bytes", e.matrix_bytes, Unit::kBytes},
                      {"shape_basis", e.shape_basis},
                      {"calls", e.calls, Unit::kCount}, {"time_us", Round(e.kernel_time_us, 3), Unit::kUs}});
  }
  std::string shape;
  if (top.seq_q) {
    shape = fmt::format("batch {}, heads {}, sequence {}{}, head_dim {}", Dim(top.batch), Dim(top.heads), *top.seq_q,
                        top.seq_kv && *top.seq_kv != *top.seq_q ? fmt::format(" x {}", *top.seq_kv) : "", Dim(top.head_dim));
    if (!top.batch && top.batch_heads) shape += fmt::format(" (batch x heads = {})", *top.batch_heads);
    if (top.matrix_bytes) shape += fmt::format("; each call writes a {} x {} score matrix per head, {} in all", *top.seq_q,
                                               top.seq_kv.value_or(*top.seq_q), Bytes(*top.matrix_bytes));
  } else {
    shape = "batch, heads, sequence and head_dim unknown (" + top.shape_basis + ")";
  }
  std::string align;
  const bool low_precision = top.precision == Precision::kFp16 || top.precision == Precision::kBf16;
  if (low_precision && top.seq_kv && *top.seq_kv % kDimAlignment != 0)
    align = fmt::format(" The {}-token sequence is not a multiple of {}, so Q·Kᵀ and P·V fall back to unaligned GEMM "
                        "kernels; SDPA's kernels take any length.", *top.seq_kv, kDimAlignment);
  Finding& x = out.Add(
      "eager_attention", 0.0,
      fmt::format("Hand-written attention ({} -> {} -> {}) takes {:.0f}% of GPU time", top.qk_op, top.softmax_op, top.pv_op, gpu_pct),
      fmt::format("The attention is computed in separate ops: Q·Kᵀ, a softmax over the materialised scores, then P·V "
                  "({}; softmax {:.1f} ms, GEMMs {:.1f} ms{}). Call torch.nn.functional.scaled_dot_product_attention(q, k, v, "
                  "attn_mask=..., dropout_p=..., is_causal=...) instead (Hugging Face models: from_pretrained(..., "
                  "attn_implementation=\"sdpa\")): it runs a fused kernel that never writes the score matrix.{}",
                  shape, softmax_us / 1e3, gemm_us / 1e3,
                  backward_us > 0 ? fmt::format(", backward {:.1f} ms", backward_us / 1e3) : "", align));
  x.evidence = {{"attention_time_us", Round(total_us, 3), Unit::kUs},
                {"pct_of_gpu_time", Round(gpu_pct), Unit::kPctOfKernelTime},
                {"gemm_time_us", Round(gemm_us, 3), Unit::kUs},
                {"softmax_time_us", Round(softmax_us, 3), Unit::kUs},
                {"other_time_us", Round(std::max(0.0, total_us - gemm_us - softmax_us), 3), Unit::kUs},
                {"backward_time_us", Round(backward_us, 3), Unit::kUs},
                {"calls", calls, Unit::kCount},
                {"shapes", shapes},
                {"estimate", fmt::format("replayed: per shape, the attention's kernels re-timed as the same attention through an SDPA kernel: "
                                         "its FLOPs (4·B·H·N_q·N_kv·d, x3.5 with backward) at {:.0f}% of the {} dense peak{}, "
                                         "and at least {:.0f}x faster than the eager ops [heur; FlashAttention-2 reports 2-4x "
                                         "over standard attention]",
                                         kSdpaEfficiencyPct, in.gpu.peak != nullptr ? in.gpu.peak->id : std::string("GPU's"),
                                         modelled ? "" : " (not known here: shapes or GPU peak unknown)", kFlashSpeedup)}};
  out.Fix(x, std::move(fix));
}

}  // namespace ampscope::diagnosis
