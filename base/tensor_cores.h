// Which Tensor Core precisions an NVIDIA architecture has: the one place that says that bf16 (and
// TF32) Tensor Cores came with sm80 (Ampere). Volta (sm70) and Turing (sm75) have fp16 ones only.
// AMD's Matrix Cores (CDNA2 and later) take bf16 too; callers say when a GPU is AMD. In base/ so
// that the analyzers, their advice and doctor/ read the same line.
#pragma once

#include <cstdint>
#include <string>

namespace ampscope {

// The first compute capability (major) with bf16 and TF32 Tensor Cores.
inline constexpr int32_t kBf16TensorCoreCcMajor = 8;

// Whether an NVIDIA GPU of compute capability `cc_major` has bf16 Tensor Cores.
inline bool HasBf16TensorCores(int32_t cc_major) { return cc_major >= kBf16TensorCoreCcMajor; }
// TF32 Tensor Cores arrived with bf16's (sm80).
inline bool HasTf32TensorCores(int32_t cc_major) { return cc_major >= kBf16TensorCoreCcMajor; }
// A peak-table row knows no compute capability but its peaks: bf16 came with TF32, so a row with a
// TF32 peak has bf16 Tensor Cores (unless it says it has none).
inline bool RowHasBf16TensorCores(double tf32_tflops, bool says_no_bf16) { return tf32_tflops > 0 && !says_no_bf16; }

// "sm80": the architecture that brought bf16 Tensor Cores, as advice names it.
inline std::string Bf16TensorCoreArch() { return "sm" + std::to_string(kBf16TensorCoreCcMajor) + "0"; }

}  // namespace ampscope
