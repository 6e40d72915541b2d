// The AMP transform (docs/whatif.md): what the run's kernels would take under torch.autocast.
//   - fp32 / TF32 GEMMs, convolutions and attention: re-timed from their op's FLOPs and bytes
//     (analyzers/roofline/op_models.h) at the GPU's fp16/bf16 Tensor Core peak times the
//     efficiency this trace's own fp16/bf16 matmuls reach (else kDefaultLowPrecisionEfficiency),
//     and at the device memory bandwidth for half the bytes; never faster than the ratio of the
//     two peaks allows, never slower than they ran. Forward ops also pay the cast of their weight
//     that autocast adds. An op without recorded shapes is scaled by the peak ratio times the
//     efficiency ratio; an fp32 SIMT one by at most kTypicalSimtGemmAmpSpeedup unless this trace
//     measures its own fp16/bf16 efficiency.
//   - memory-bound kernels of the model (elementwise, normalization, reduction) outside the
//     optimizer and outside the ops autocast keeps in fp32: their activations are fp16/bf16, so
//     they move half the bytes (a kernel under kSmallKernelNs is bound by its launch, not its
//     bytes, and keeps its time).
#pragma once

#include <cstdint>
#include <string>

#include "analyzers/peaks/gpu_peaks.h"
#include "analyzers/graph/transforms.h"

namespace ampscope {
class RankContext;
namespace roofline {
struct RooflineResult;
}
}  // namespace ampscope

namespace ampscope::graph {

// [heur] When the trace has no fp16/bf16 matmul of its own to measure: the time-weighted
// efficiency (achieved / attainable) of the Tensor Core GEMMs in the shared traces with shapes
// (docs/whatif.md has the figures).
inline constexpr double kDefaultLowPrecisionEfficiency = 0.5;
// [heur] fp32 SIMT / TF32 matmuls reach this share of their peak when the trace cannot say.
inline constexpr double kDefaultFullPrecisionEfficiency = 0.7;
// The most an fp32 SIMT GEMM/conv kernel without recorded shapes is assumed to gain under AMP
// when this trace has no fp16/bf16 matmul of its own to measure the efficiency with: 3x. Source:
// Carilli, Sarofeen, Ruberry, Barsdell (NVIDIA), "Training Neural Networks with Mixed Precision",
// GTC 2018 (S8923 companion talk): mixed precision makes networks 2-4x faster on Volta, of which
// the Tensor Core GEMMs and convolutions are the part that gains the most; 3x is that range's
// middle. The peak ratio (V100: 125 / 15.7 = 8x; A100: 312 / 19.5 = 16x) times the default
// efficiency ratio gave 5.7x (V100) per kernel, and a ResNet run's whole kernel time 3.3x faster,
// beyond what AMP twins measure (docs/whatif.md). [heur] for sm80 and later, where the same
// library kernels and small per-layer shapes keep the gain far below the 16x peak ratio.
// TF32 -> fp16/bf16 keeps the peak ratio (2x) times the efficiency ratio (1.43x by default).
inline constexpr double kTypicalSimtGemmAmpSpeedup = 3.0;
// [heur] Device memory traffic of casts and memory-bound kernels reaches this share of the peak.
inline constexpr double kMemoryEfficiency = 0.7;
// A kernel shorter than this is bound by its launch and fixed costs, not its bytes.
inline constexpr TimeNs kSmallKernelNs = 5'000;

struct AmpInputs {
  const GpuPeak* peak = nullptr;                       // null: GPU not in the table
  const roofline::RooflineResult* roofline = nullptr;  // may be null
  bool bf16 = false;                                   // autocast to bf16 (else fp16)
  // Without a peak row: the ratios to use (diagnosis' conservative table ratios).
  double fallback_fp32_ratio = 0.25;
  double fallback_tf32_ratio = 0.5;
};

struct AmpEstimate {
  Transform transform;
  TimeNs kernel_ns = 0;          // in-window kernel time, measured
  TimeNs whatif_kernel_ns = 0;   // the same after the transform
  TimeNs matmul_ns = 0;          // fp32/TF32 matmul kernel time re-timed
  TimeNs matmul_whatif_ns = 0;
  TimeNs memory_bound_ns = 0;    // memory-bound kernel time re-timed
  TimeNs memory_bound_whatif_ns = 0;
  TimeNs cast_ns = 0;            // cast time added to forward matmuls
  uint64_t matmul_kernels = 0;
  uint64_t matmul_kernels_with_shapes = 0;
  double efficiency = 0;         // of the low-precision matmuls assumed
  std::string efficiency_basis;
  double peak_lowp_tflops = 0;
};

AmpEstimate AmpTransform(const RankContext& ctx, const AmpInputs& in);

}  // namespace ampscope::graph
