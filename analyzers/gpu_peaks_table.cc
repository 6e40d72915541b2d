// The GPU peak table: dense (no 2:4 sparsity) TFLOP/s per precision, memory and link bandwidth,
// the SM/CU count, and the device names CUDA/ROCm report for each part. Pure data.
//
// "verified" in a source means the figure was read, for this table, in the source named; the
// rest are the vendors' datasheet figures as commonly quoted and are marked "not re-read". Where
// sources disagree the row says so, and a figure nobody could confirm is 0 (unknown).
// docs/roofline.md repeats the table with its sources.
#include <initializer_list>

#include "analyzers/gpu_peaks.h"

namespace ampscope {
namespace {

struct Figures {
  double fp64, fp64_matrix, fp32, fp32_matrix, tf32, fp16, bf16, fp8, int8, fp4;  // dense TFLOP/s (TOP/s)
  double hbm_gbs, link_gbs, pcie_gbs;
  int32_t sms;
};

GpuPeak Row(const char* id, const char* name, GpuVendor vendor, const Figures& f, const char* source,
            std::initializer_list<const char*> device_names) {
  GpuPeak p;
  p.id = id;
  p.name = name;
  p.vendor = vendor;
  p.fp64_tflops = f.fp64;
  p.fp64_matrix_tflops = f.fp64_matrix;
  p.fp32_tflops = f.fp32;
  p.fp32_matrix_tflops = f.fp32_matrix;
  p.tf32_tflops = f.tf32;
  p.fp16_tflops = f.fp16;
  p.bf16_tflops = f.bf16;
  p.bf16 = f.bf16 > 0;
  p.fp8_tflops = f.fp8;
  p.int8_tops = f.int8;
  p.fp4_tflops = f.fp4;
  p.hbm_gbs = f.hbm_gbs;
  p.nvlink_gbs = f.link_gbs;
  p.pcie_gbs = f.pcie_gbs;
  p.sm_count = f.sms;
  p.source = source;
  for (const char* n : device_names) p.device_names.emplace_back(n);
  return p;
}

constexpr GpuVendor kNv = GpuVendor::kNvidia;
constexpr GpuVendor kAmd = GpuVendor::kAmd;

}  // namespace

const std::vector<GpuPeak>& BuiltinGpuPeaks() {
  // clang-format off
  static const std::vector<GpuPeak> table = {
    //                                            fp64  fp64mx fp32  fp32mx tf32   fp16    bf16    fp8     int8    fp4     hbm    link  pcie  SMs
    // --- Volta / Turing (no bf16, no TF32)
    Row("V100-SXM2-16/32GB", "NVIDIA Tesla V100 SXM2", kNv, {7.8, 0, 15.7, 0, 0, 125, 0, 0, 0, 0, 900, 300, 32, 80},
        "shared/reference/gpu_peaks.tsv (verified: 125, 15.7; 900 and 300 not re-read); fp64 7.8 from the V100 "
        "datasheet, not re-read. DGX Station (DGXS) V100s are the same SXM2 modules: 4 x 125 = its 500 TFLOPS",
        {"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB", "Tesla V100-DGXS-16GB", "Tesla V100-DGXS-32GB"}),
    Row("V100-PCIe", "NVIDIA Tesla V100 PCIe", kNv, {7, 0, 14, 0, 0, 112, 0, 0, 0, 0, 900, 0, 32, 80},
        "V100 PCIe product brief PB-08744-001 via shared/reference/gpu_peaks.tsv (not re-read)",
        {"Tesla V100-PCIE-16GB", "Tesla V100-PCIE-32GB"}),
    Row("V100S-PCIe-32GB", "NVIDIA Tesla V100S PCIe", kNv, {8.2, 0, 16.4, 0, 0, 130, 0, 0, 0, 0, 1134, 0, 32, 80},
        "V100S datasheet (not re-read)", {"Tesla V100S-PCIE-32GB"}),
    Row("T4-16GB", "NVIDIA T4", kNv, {0, 0, 8.1, 0, 0, 65, 0, 0, 130, 0, 320, 0, 32, 40},
        "T4 datasheet via shared/reference/gpu_peaks.tsv (verified: 65, 8.1, 320); int8 130 TOPS not re-read; "
        "fp64 not in the datasheet", {"Tesla T4"}),
    // --- Ampere
    Row("A10-24GB", "NVIDIA A10", kNv, {0, 0, 31.2, 0, 62.5, 125, 125, 0, 250, 0, 600, 0, 64, 72},
        "A10 datasheet (not re-read); fp64 not in the datasheet", {"NVIDIA A10"}),
    Row("A100-40GB-SXM4", "NVIDIA A100 SXM4 40GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 600, 64, 108},
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf via shared/reference/gpu_peaks.tsv (verified: 312, 156, "
        "19.5, 1555); fp64 9.7/19.5 and int8 624 not re-read",
        {"NVIDIA A100-SXM4-40GB"}),
    Row("A100-80GB-SXM4", "NVIDIA A100 SXM4 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 2039, 600, 64, 108},
        "A100 datasheet r4 via shared/reference/gpu_peaks.tsv (verified: 312, 156, 19.5, 2039)",
        {"NVIDIA A100-SXM4-80GB"}),
    Row("A100-40GB-PCIe", "NVIDIA A100 PCIe 40GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 600, 64, 108},
        "A100 datasheet r4 (not re-read)", {"NVIDIA A100-PCIE-40GB"}),
    Row("A100-80GB-PCIe", "NVIDIA A100 PCIe 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1935, 600, 64, 108},
        "A100 datasheet r4 via shared/reference/gpu_peaks.tsv (not re-read)",
        {"NVIDIA A100 80GB PCIe"}),
    Row("RTX-3080", "NVIDIA GeForce RTX 3080", kNv, {0, 0, 29.8, 0, 29.8, 59.5, 59.5, 0, 238, 0, 760, 0, 64, 68},
        "NVIDIA Ampere GA102 whitepaper, Appendix A (fp16/bf16 with fp32 accumulate; not re-read)",
        {"NVIDIA GeForce RTX 3080"}),
    Row("RTX-3090", "NVIDIA GeForce RTX 3090", kNv, {0, 0, 35.6, 0, 35.6, 71, 71, 0, 284, 0, 936, 112.5, 64, 82},
        "NVIDIA Ampere GA102 whitepaper, Appendix A via shared/reference/gpu_peaks.tsv (fp16/bf16 with fp32 "
        "accumulate, as PyTorch's GEMMs run; 142 with fp16 accumulate; not re-read)",
        {"NVIDIA GeForce RTX 3090"}),
    Row("RTX-3090-Ti", "NVIDIA GeForce RTX 3090 Ti", kNv, {0, 0, 40, 0, 40, 80, 80, 0, 320, 0, 1008, 112.5, 64, 84},
        "NVIDIA GeForce RTX 3090 Ti specifications (not verified)", {"NVIDIA GeForce RTX 3090 Ti"}),
    // --- Ada
    Row("L4-24GB", "NVIDIA L4", kNv, {0, 0, 30.3, 0, 60, 121, 121, 242, 242, 0, 300, 0, 64, 58},
        "L4 datasheet via shared/reference/gpu_peaks.tsv (verified: 30.3, 300; 121 and 60 not re-read); fp8/int8 "
        "242 = half the datasheet's 485 with sparsity, not re-read", {"NVIDIA L4"}),
    Row("L40S-48GB", "NVIDIA L40S", kNv, {0, 0, 91.6, 0, 183, 362.05, 362.05, 733, 733, 0, 864, 0, 64, 142},
        "L40S datasheet: dense BF16/FP16 362.05 (733 with sparsity), TF32 183, FP8/INT8 733 (1,466 with "
        "sparsity) (not re-read)",
        {"NVIDIA L40S"}),
    Row("RTX-4080", "NVIDIA GeForce RTX 4080", kNv, {0, 0, 48.7, 0, 48.7, 97.5, 97.5, 0, 389.9, 0, 716.8, 0, 64, 76},
        "NVIDIA Ada Lovelace architecture whitepaper, Appendix (fp16/bf16 with fp32 accumulate; not verified)",
        {"NVIDIA GeForce RTX 4080"}),
    Row("RTX-4090", "NVIDIA GeForce RTX 4090", kNv, {0, 0, 82.6, 0, 82.6, 165.2, 165.2, 330.3, 660.6, 0, 1008, 0, 64, 128},
        "Ada Lovelace architecture whitepaper appendix via shared/reference/gpu_peaks.tsv (verified: 165.2 with "
        "fp32 accumulate, 82.6, 1008); fp8 330.3 (fp32 accumulate) and int8 660.6 not re-read",
        {"NVIDIA GeForce RTX 4090"}),
    // --- Hopper
    Row("H100-SXM5-80GB", "NVIDIA H100 SXM5 80GB", kNv, {34, 67, 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 3350, 900, 128, 132},
        "H100 datasheet via shared/reference/gpu_peaks.tsv (verified: 989.4, 494.7, 66.9, 3350; 1,979 is with "
        "sparsity); fp64 34/67 and fp8/int8 1978.9 not re-read",
        {"NVIDIA H100 80GB HBM3"}),
    Row("H100-PCIe-80GB", "NVIDIA H100 PCIe", kNv, {25.6, 51.2, 51, 0, 378, 756, 756, 1513, 1513, 0, 2000, 600, 128, 114},
        "H100 PCIe product brief PB-11133-001 via shared/reference/gpu_peaks.tsv (verified: >2,000 GB/s; rest not "
        "re-read)", {"NVIDIA H100 PCIe"}),
    Row("H100-NVL-94GB", "NVIDIA H100 NVL", kNv, {30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 1670.5, 0, 3900, 600, 128, 132},
        "H100 NVL datasheet, per GPU: half the with-sparsity TF32 835 / BF16 1,671 / FP8 3,341 (not re-read)",
        {"NVIDIA H100 NVL"}),
    Row("H200-SXM-141GB", "NVIDIA H200 SXM 141GB", kNv, {34, 67, 67, 0, 494.7, 989, 989, 1979, 1979, 0, 4800, 900, 128, 132},
        "H200 datasheet via shared/reference/gpu_peaks.tsv (verified: 989 dense, 494.7, 67, 4800); fp8/int8 not "
        "re-read", {"NVIDIA H200"}),
    Row("H200-NVL-141GB", "NVIDIA H200 NVL", kNv, {30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 1670.5, 0, 4800, 900, 128, 0},
        "H200 NVL datasheet: half the with-sparsity TF32 835 / BF16 1,671 / FP8 3,341 (not re-read)",
        {"NVIDIA H200 NVL"}),
    Row("H800-SXM5-80GB", "NVIDIA H800 SXM5 80GB", kNv, {1, 1, 67, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 3350, 400, 128, 132},
        "H800 product brief: H100 SXM5 compute with fp64 cut to 1 TFLOPS and NVLink to 400 GB/s (not verified); "
        "132 SMs as the shared DeepSeek trace reports", {"NVIDIA H800"}),
    Row("H20-96GB", "NVIDIA H20", kNv, {1, 1, 44, 0, 74, 148, 148, 296, 296, 0, 4000, 900, 128, 0},
        "H20 specification as published by resellers (not verified against an NVIDIA datasheet)", {"NVIDIA H20"}),
    // --- Blackwell
    Row("B200", "NVIDIA B200 (HGX, 1000 W)", kNv, {40, 40, 80, 0, 1100, 2250, 2250, 4500, 4500, 9000, 8000, 1800, 0, 0},
        "glennklockwood.com/garden/processors/B200, HGX B200 at 1000 W from NVIDIA's Blackwell datasheet "
        "(verified there); TF32 1,100 there vs 1,125 = 18 PF sparse / 16 in the HGX datasheet; PCIe not verified",
        {"NVIDIA B200"}),
    Row("GB200", "NVIDIA GB200 (per GPU, NVL72)", kNv, {45, 45, 90, 0, 1250, 2500, 2500, 5000, 5000, 10000, 8000, 1800, 0, 0},
        "glennklockwood.com/garden/processors/B200, GB200 at 1,200 W (verified there); BF16 2,500 = 360 PF sparse "
        "/ 72 GPUs / 2 (GB200 NVL72 page, quoted in prime-rl#3168)", {"NVIDIA GB200"}),
    Row("B300", "NVIDIA B300 (HGX, Blackwell Ultra)", kNv, {1.25, 1.25, 75, 0, 1125, 2250, 2250, 4500, 0, 13500, 8000, 1800, 0, 0},
        "glennklockwood.com/garden/processors/B300 (verified there: fp64 1.25, fp32 75, TF32 1,125, BF16 2,250, "
        "FP8 4,500); FP4 13,500 dense per NVIDIA (prime-rl#3168); int8 unknown (sources disagree: 4,500 there, "
        "about 2 POPS for the whole HGX B300 elsewhere)", {"NVIDIA B300 SXM6 AC"}),
    Row("GB300", "NVIDIA GB300 (per GPU, NVL72)", kNv, {0, 0, 0, 0, 1250, 2500, 2500, 5000, 0, 15000, 8000, 1800, 0, 0},
        "GB300 NVL72: BF16 2,500 = 360 PF sparse / 72 / 2 and FP4 15,000 dense per NVIDIA (prime-rl#3168); FP8 "
        "5,000 = 360 PF / 72 (glennklockwood.com/garden/processors/B300); fp64/fp32/int8 not verified",
        {"NVIDIA GB300"}),
    // --- AMD CDNA (ROCm shows each MI250/MI250X GCD as its own device: rows are per GCD)
    Row("MI210", "AMD Instinct MI210", kAmd, {22.6, 45.3, 22.6, 45.3, 0, 181, 181, 0, 181, 0, 1638.4, 300, 64, 104},
        "AMD Instinct MI210 datasheet (not re-read); 104 CUs as the shared TraceLens MI210 trace reports",
        {"AMD Instinct MI210"}),
    Row("MI250-GCD", "AMD Instinct MI250 (one GCD)", kAmd, {22.65, 45.25, 22.65, 45.25, 0, 181.05, 181.05, 0, 181.05, 0, 1638.4, 0, 64, 104},
        "AMD Instinct MI250 datasheet package figures (fp64 45.3 / matrix 90.5, fp16 362.1, 3,276.8 GB/s) halved "
        "per GCD (not re-read); ROCm names it \"AMD Instinct MI250X/MI250\" (told apart by its 104 CUs)", {}),
    Row("MI250X-GCD", "AMD Instinct MI250X (one GCD)", kAmd, {23.95, 47.85, 23.95, 47.85, 0, 191.5, 191.5, 0, 191.5, 0, 1638.4, 0, 64, 110},
        "AMD Instinct MI250X datasheet package figures (fp64 47.9 / matrix 95.7, fp16 383, 3,276.8 GB/s) halved "
        "per GCD (not re-read)", {"AMD Instinct MI250X"}),
    Row("MI300X", "AMD Instinct MI300X", kAmd, {81.7, 163.4, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 2614.9, 0, 5300, 896, 128, 304},
        "AMD Instinct MI300X datasheet (not re-read; 2,614.9 fp16 is its with-sparsity figure); 304 CUs as the "
        "shared Qwen trace reports", {"AMD Instinct MI300X", "AMD Instinct MI300X OAM", "AMD Instinct MI300X VF"}),
  };
  // clang-format on
  return table;
}

}  // namespace ampscope
