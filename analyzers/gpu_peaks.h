// Peak throughputs of NVIDIA GPUs (dense, no sparsity), from shared/reference/gpu_peaks.tsv,
// and the mapping from the device names CUDA/Kineto report ("NVIDIA A100-SXM4-80GB",
// "Tesla V100-DGXS-32GB", "NVIDIA H100 80GB HBM3") to a row of that table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ampscope {

struct GpuPeak {
  std::string id;              // the table's row name, e.g. "A100-80GB-SXM4"
  double fp16_tflops = 0;      // fp16/bf16 Tensor Core dense (fp32 accumulate on GeForce); 0 = unknown
  double tf32_tflops = 0;      // 0 = no TF32 (pre-Ampere)
  double fp32_tflops = 0;      // fp32 on CUDA cores (SIMT)
  double hbm_gbs = 0;          // device memory bandwidth, GB/s
  double nvlink_gbs = 0;       // total bidirectional NVLink per GPU, GB/s (0 = none)
  double pcie_gbs = 0;         // bidirectional PCIe x16, GB/s (per direction = half)
  bool bf16 = true;            // false on Volta/Turing (no bf16 Tensor Cores)
  double pcie_per_direction_gbs() const { return pcie_gbs / 2.0; }
};

// The built-in table (the rows of gpu_peaks.tsv).
const std::vector<GpuPeak>& BuiltinGpuPeaks();

// Parses a gpu_peaks.tsv-style table (tab-separated, '#' comments, a header row starting with
// "gpu"). Each cell's first number is used; "n/a" is 0; "Gen4 64" gives 64.
StatusOr<std::vector<GpuPeak>> ParseGpuPeaksTsv(std::string_view text, const std::string& display_name);
StatusOr<std::vector<GpuPeak>> LoadGpuPeaksTsv(const std::string& path);

// Finds the row for a device name, or nullptr. A name equal to a row id (case-insensitive,
// e.g. "--gpu A100-80GB-SXM4") wins; otherwise the name's tokens (split at anything not a
// letter or digit) are matched against a data-driven list of token rules.
const GpuPeak* LookupGpuPeak(std::string_view device_name, const std::vector<GpuPeak>& table);
inline const GpuPeak* LookupGpuPeak(std::string_view device_name) {
  return LookupGpuPeak(device_name, BuiltinGpuPeaks());
}

}  // namespace ampscope
