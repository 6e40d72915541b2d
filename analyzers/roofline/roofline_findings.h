// What the roofline says is worth fixing (issue 14): GEMMs far below what the GPU attains at
// their arithmetic intensity, each with its likely cause, and attention that does not run on a
// flash kernel. Pure functions of the typed roofline result; the diagnosis turns them into the
// findings `low_gemm_tflops` and `attention_not_flash` (docs/findings.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzers/roofline/roofline_result.h"

namespace ampscope::roofline {

// Why a GEMM shape is slow, in the order they are checked (the first that applies).
enum class GemmCause : uint8_t {
  kMisaligned,    // fp16/bf16/fp8 with M, N or K not a multiple of 8 [NV-guide]
  kMemoryBound,   // FLOP per byte below the ridge point: too little work per byte moved
  kTooFewTiles,   // fewer 128x128 output tiles than the GPU has SMs: part of the GPU idles
  kFp32,          // fp32 math in a run whose other GEMMs use fp16/bf16 (outside autocast)
  kOther,         // none of the above: the library's kernel choice for this shape
};
const char* GemmCauseName(GemmCause c);  // "misaligned", "memory_bound", "too_few_tiles", "fp32", "other"

struct GemmPolicy {
  double low_pct = 30;          // [heur] a shape below this % of attainable is low
  double min_gflop = 1;         // [heur] only calls of at least this many GFLOP are judged
  int32_t sm_count = 0;         // of the GPU (0: unknown; the tile check is skipped)
  int dim_alignment = 8;        // [NV-guide]
};

struct LowGemm {
  const OpRow* row = nullptr;
  double efficiency_pct = 0;    // achieved / attainable x 100
  double tiles = 0;             // 128x128 output tiles per call (batch x ceil(M/128) x ceil(N/128))
  bool aligned = true;          // M, N, K multiples of 8 (always true outside fp16/bf16/fp8)
  GemmCause cause = GemmCause::kOther;
};

struct GemmAssessment {
  bool known = false;
  std::string reason;               // when not known: why (no shapes, GPU not known, no large GEMM)
  double efficiency_pct = 0;        // time-weighted over judged calls: ideal time / kernel time
  double target_pct = 0;            // max(low_pct, the p90-by-time efficiency of this run's GEMMs)
  double low_time_ns = 0;           // kernel time of the low shapes
  double saving_ns = 0;             // sum over low shapes of time - ideal time at the target
  std::vector<LowGemm> low;         // by kernel time, descending
};

GemmAssessment AssessGemms(const RooflineResult& r, const GemmPolicy& policy);

struct AttentionPolicy {
  GpuVendor vendor = GpuVendor::kUnknown;
  int32_t cc_major = -1;            // NVIDIA compute capability major (-1: unknown)
  double speedup = 2.0;             // [heur] flash over math/mem-efficient (FlashAttention-2 paper: 2-4x over eager)
};

struct AttentionAssessment {
  bool flash_available = false;     // on this GPU (NVIDIA sm80+: PyTorch's flash SDPA kernel)
  std::string availability;         // why (or why it is not known)
  std::vector<const AttentionUse*> slow;  // calls on the math path, or mem-efficient where flash is available
  double slow_time_us = 0;
  double saving_us = 0;             // slow time x (1 - 1/speedup)
};

AttentionAssessment AssessAttention(const RooflineResult& r, const AttentionPolicy& policy);

}  // namespace ampscope::roofline
