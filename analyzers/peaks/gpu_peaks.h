// Peak throughputs of GPUs by exact model (dense, no 2:4 sparsity), with the source of each row,
// and the mapping from the device names CUDA/Kineto/ROCm report ("NVIDIA H100 80GB HBM3",
// "Tesla V100-DGXS-32GB", "AMD Instinct MI300X") to a row.
//
// Matching is exact: a device name must be one of a row's known device names (ignoring case and
// the difference between '-', '_' and ' '). A name that is not known, a MIG slice, or a device
// whose SM/CU count does not fit the part (a partition) is "not found" with the reason -- never
// another GPU's peaks (a B300 read as an A100 made MFU 7x too high, prime-rl#3168).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trace/classify/kernel_classifier.h"
#include "trace/model.h"

namespace ampscope {

struct GpuPeak {
  std::string id;              // the row name, e.g. "A100-80GB-SXM4"
  double fp16_tflops = 0;      // fp16 Tensor Core / Matrix Core dense (fp32 accumulate on GeForce); 0 = unknown
  double tf32_tflops = 0;      // 0 = no TF32
  double fp32_tflops = 0;      // fp32 on CUDA cores / AMD vector ALUs
  double hbm_gbs = 0;          // device memory bandwidth, GB/s
  double nvlink_gbs = 0;       // total bidirectional NVLink (AMD: Infinity Fabric) per GPU, GB/s (0 = none)
  double pcie_gbs = 0;         // bidirectional PCIe x16, GB/s (per direction = half)
  bool bf16 = true;            // false on Volta/Turing (no bf16 Tensor Cores)
  double pcie_per_direction_gbs() const { return pcie_gbs / 2.0; }

  // Per precision, dense TFLOP/s (TOP/s for int8); 0 = the part has none or it is not known.
  double bf16_tflops = 0;
  double fp64_tflops = 0;         // vector fp64
  double fp64_matrix_tflops = 0;  // fp64 Tensor Core / Matrix Core
  double fp32_matrix_tflops = 0;  // AMD Matrix Core fp32 (NVIDIA has none: fp32 GEMMs use TF32 or CUDA cores)
  double fp8_tflops = 0;
  double int8_tops = 0;
  double fp4_tflops = 0;
  std::string name;               // e.g. "NVIDIA H100 SXM5 80GB"
  GpuVendor vendor = GpuVendor::kUnknown;
  int32_t sm_count = 0;           // SMs (NVIDIA) / CUs (AMD) of the part; 0 = not checked
  std::string source;             // where the figures come from, and what was not verified
  std::vector<std::string> device_names;  // names CUDA/ROCm report for exactly this part

  // The dense matrix-unit peak for math in precision p (fp64: the Tensor/Matrix Core peak, fp32 on
  // NVIDIA: CUDA cores); 0 if the part has none or it is not known.
  double DenseTflops(Precision p) const;
};

// The built-in table (analyzers/peaks/gpu_peaks_table.cc); the first rows are those of
// shared/reference/gpu_peaks.tsv.
const std::vector<GpuPeak>& BuiltinGpuPeaks();

// Parses a gpu_peaks.tsv-style table (tab-separated, '#' comments, a header row starting with
// "gpu"). Each cell's first number is used; "n/a" is 0; "Gen4 64" gives 64. Rows are matched by
// their id only (the file has no device names).
StatusOr<std::vector<GpuPeak>> ParseGpuPeaksTsv(std::string_view text, const std::string& display_name);
StatusOr<std::vector<GpuPeak>> LoadGpuPeaksTsv(const std::string& path);

// What the trace says about a device.
struct GpuQuery {
  std::string_view name;       // deviceProperties name / CUDA device name
  int32_t sm_count = 0;        // 0 = unknown
  int64_t memory_bytes = 0;    // 0 = unknown
  // A trace without device names: the compute capability inferred from its kernel names
  // (Device::arch_basis), for which one GPU is assumed (AssumedGpuForArch).
  int32_t inferred_cc_major = -1;
  int32_t inferred_cc_minor = -1;
};
// The query for a trace's device: its name, SM count and memory, and its inferred architecture.
GpuQuery QueryFor(const Device& device);

// The GPU assumed for an architecture inferred from kernel names (no device name in the trace):
// the datacenter GPU of that architecture, where one part defines it (sm70 V100 SXM2, sm80 A100
// SXM4 80GB, sm90 H100 SXM5, sm100 B200); null for architectures shared by many parts (sm75,
// sm86, sm89, sm120: GeForce, workstation and datacenter parts differ several-fold).
const char* AssumedGpuForArch(int32_t cc_major, int32_t cc_minor);

struct GpuMatch {
  const GpuPeak* peak = nullptr;     // nullptr: not found
  std::string reason;                // not found: why; found: how ("device name", "row id")
  std::vector<std::string> close;    // row ids that look close (for messages)
};

// Exact match of a device (see the file comment).
GpuMatch MatchGpu(const GpuQuery& device, const std::vector<GpuPeak>& table);
inline GpuMatch MatchGpu(const GpuQuery& device) { return MatchGpu(device, BuiltinGpuPeaks()); }

// `--gpu NAME`: a row id or a known device name, exactly; anything else is an error that lists
// the close matches.
StatusOr<const GpuPeak*> ResolveGpuOverride(std::string_view name, const std::vector<GpuPeak>& table);

// The row for a device name or row id, or nullptr (MatchGpu without SM/memory checks).
const GpuPeak* LookupGpuPeak(std::string_view device_name, const std::vector<GpuPeak>& table);
inline const GpuPeak* LookupGpuPeak(std::string_view device_name) {
  return LookupGpuPeak(device_name, BuiltinGpuPeaks());
}

}  // namespace ampscope
