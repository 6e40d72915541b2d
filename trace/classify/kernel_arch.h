// The GPU architecture that a trace's kernel names prove, for traces without device properties
// (sampled and GPU-only Kineto traces). Kernel libraries name the architecture they were built
// for: cuBLAS/cuDNN's volta_/turing_/ampere_ kernels, cuDNN's sm80_xmma_/sm86_xmma_/sm90_xmma_,
// CUTLASS's cutlass_75_/cutlass_80_ and cutlass3x_sm90_, cute's SM90_ atoms and ...::Sm90 arch
// tags (FlashAttention-3's FlashAttnFwdSm90), cuBLASLt's nvjet kernels (Hopper and later), and
// the sm90 warpgroup MMA (wgmma) and TMA warp-specialized kernels.
//
// A kernel built for sm_X runs on sm_X and later GPUs only (cuBLAS runs its ampere_ and
// cutlass_80_ kernels on an RTX 3080, sm86; an H100 runs cutlass_75_ kernels), so a name proves a
// lower bound and a trace's architecture is the highest bound its names prove. Not a token:
// CUB's "Policy800", which names the top of CUB's policy chain whatever GPU runs the kernel (the
// shared V100 DLRM traces carry Policy800 kernels).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/model.h"

namespace ampscope {

// What one kernel name proves: at least compute capability cc_major.cc_minor (NVIDIA).
struct KernelArch {
  int32_t cc_major = -1;
  int32_t cc_minor = -1;
  std::string_view token;  // the part of the name that proves it ("cutlass_80_", "sm90", "ampere_")
};
std::optional<KernelArch> KernelArchOf(std::string_view name);

// The highest lower bound the trace's kernel names prove, with its evidence.
struct ArchEvidence {
  int32_t cc_major = -1;         // -1: no kernel name proves an architecture
  int32_t cc_minor = -1;
  uint64_t names = 0;            // distinct kernel names that prove this bound
  std::string token;             // the first such name's token
  std::string example;           // the first such name (cut to 96 characters)
  // "inferred from kernel names: compute capability >= 8.0 (53 kernel names built for it, e.g.
  // cutlass_80_tensorop_s1688gemm_...; token cutlass_80_)".
  std::string Basis() const;
};
ArchEvidence InferArchFromKernels(const Trace& trace);

}  // namespace ampscope
