// The GPU peak table: dense (no 2:4 sparsity) TFLOP/s per precision, memory and link bandwidth,
// the SM/CU count, and the device names CUDA/ROCm report for each part. Pure data.
//
// "verified" in a source means the figure was read, for this table, in the source named; the
// rest are the vendors' datasheet figures as commonly quoted and are marked "not re-read". Where
// sources disagree the row says so, and a figure nobody could confirm is 0 (unknown).
// docs/roofline.md repeats the table with its sources.
#include <initializer_list>
#include <iterator>
#include <vector>

#include "analyzers/peaks/gpu_peaks.h"

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

// clang-format off
std::vector<GpuPeak> VoltaTuringRows() {
  return {
    //                                            fp64  fp64mx fp32  fp32mx tf32   fp16    bf16    fp8     int8    fp4     hbm    link  pcie  SMs
    // --- Volta / Turing (no bf16, no TF32)
    Row("V100-SXM2-16/32GB", "NVIDIA Tesla V100 SXM2", kNv, {7.8, 0, 15.7, 0, 0, 125, 0, 0, 0, 0, 900, 300, 32, 80},
        "the reference peaks table (verified: 125, 15.7; 900 and 300 not re-read); fp64 7.8 from the V100 "
        "datasheet, not re-read. DGX Station (DGXS) V100s are the same SXM2 modules: 4 x 125 = its 500 TFLOPS",
        {"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB", "Tesla V100-DGXS-16GB", "Tesla V100-DGXS-32GB"}),
    Row("V100-PCIe", "NVIDIA Tesla V100 PCIe", kNv, {7, 0, 14, 0, 0, 112, 0, 0, 0, 0, 900, 0, 32, 80},
        "V100 PCIe product brief PB-08744-001 (as in the reference peaks table) (not re-read)",
        {"Tesla V100-PCIE-16GB", "Tesla V100-PCIE-32GB"}),
    Row("V100S-PCIe-32GB", "NVIDIA Tesla V100S PCIe", kNv, {8.2, 0, 16.4, 0, 0, 130, 0, 0, 0, 0, 1134, 0, 32, 80},
        "V100S datasheet (not re-read)", {"Tesla V100S-PCIE-32GB"}),
    Row("T4-16GB", "NVIDIA T4", kNv, {0, 0, 8.1, 0, 0, 65, 0, 0, 130, 0, 320, 0, 32, 40},
        "T4 datasheet (as in the reference peaks table) (verified: 65, 8.1, 320); int8 130 TOPS not re-read; "
        "fp64 not in the datasheet", {"Tesla T4"}),
    Row("Quadro-GV100", "NVIDIA Quadro GV100", kNv, {7.4, 0, 14.8, 0, 0, 118.5, 0, 0, 0, 0, 870, 200, 32, 80},
        "Quadro GV100 datasheet: 14.8 FP32, 7.4 FP64, 118.5 Tensor TFLOPS, 870 GB/s, 2 NVLink bridges 200 "
        "GB/s (not re-read)",
        {"Quadro GV100", "NVIDIA Quadro GV100"}),
    Row("TITAN-V", "NVIDIA TITAN V", kNv, {7.45, 0, 14.9, 0, 0, 110, 0, 0, 0, 0, 652.8, 0, 32, 80},
        "TITAN V specifications: 110 Tensor TFLOPS (the deep-learning figure NVIDIA gives), 14.9 FP32 = 80 "
        "SMs x 1455 MHz x 128, FP64 half of FP32, 652.8 GB/s (not re-read)",
        {"TITAN V", "NVIDIA TITAN V"}),
    Row("TITAN-RTX", "NVIDIA TITAN RTX", kNv, {0, 0, 16.3, 0, 0, 130.5, 0, 0, 261, 0, 672, 100, 32, 72},
        "computed: 72 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Quadro RTX 6000: 130.5 FP16 Tensor TFLOPS, full rate with "
        "FP32 accumulate); 672 GB/s from the same specifications (not re-read); TITAN RTX runs FP32 "
        "accumulate at full rate: NVIDIA's 130 Tensor TFLOPS",
        {"TITAN RTX", "NVIDIA TITAN RTX"}),
    Row("Quadro-RTX-8000", "NVIDIA Quadro RTX 8000", kNv, {0, 0, 16.3, 0, 0, 130.5, 0, 0, 261, 0, 672, 100, 32, 72},
        "computed: 72 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Quadro RTX 6000: 130.5 FP16 Tensor TFLOPS, full rate with "
        "FP32 accumulate); 672 GB/s from the same specifications (not re-read); datasheet: 130.5 Tensor "
        "TFLOPS, 16.3 FP32",
        {"Quadro RTX 8000", "NVIDIA Quadro RTX 8000"}),
    Row("Quadro-RTX-6000", "NVIDIA Quadro RTX 6000", kNv, {0, 0, 16.3, 0, 0, 130.5, 0, 0, 261, 0, 672, 100, 32, 72},
        "computed: 72 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Quadro RTX 6000: 130.5 FP16 Tensor TFLOPS, full rate with "
        "FP32 accumulate); 672 GB/s from the same specifications (not re-read); datasheet: 130.5 Tensor "
        "TFLOPS, 16.3 FP32",
        {"Quadro RTX 6000", "NVIDIA Quadro RTX 6000"}),
    Row("Quadro-RTX-5000", "NVIDIA Quadro RTX 5000", kNv, {0, 0, 11.2, 0, 0, 89.2, 0, 0, 178.4, 0, 448, 50, 32, 48},
        "computed: 48 SMs x 1815 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Quadro RTX 6000: 130.5 FP16 Tensor TFLOPS, full rate with "
        "FP32 accumulate); 448 GB/s from the same specifications (not re-read); datasheet: 89.2 Tensor "
        "TFLOPS, 11.2 FP32",
        {"Quadro RTX 5000", "NVIDIA Quadro RTX 5000"}),
    Row("Quadro-RTX-4000", "NVIDIA Quadro RTX 4000", kNv, {0, 0, 7.1, 0, 0, 57, 0, 0, 113.9, 0, 416, 0, 32, 36},
        "computed: 36 SMs x 1545 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Quadro RTX 6000: 130.5 FP16 Tensor TFLOPS, full rate with "
        "FP32 accumulate); 416 GB/s from the same specifications (not re-read); datasheet: 57 Tensor TFLOPS, "
        "7.1 FP32",
        {"Quadro RTX 4000", "NVIDIA Quadro RTX 4000"}),
    Row("RTX-2080-Ti", "NVIDIA GeForce RTX 2080 Ti", kNv, {0, 0, 13.4, 0, 0, 53.8, 0, 0, 215.2, 0, 616, 100, 32, 68},
        "computed: 68 SMs x 1545 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 616 GB/s "
        "from the same specifications (not re-read); the whitepaper's own reference-board figures: 13.4 FP32, "
        "53.8 FP16 (107.6 with FP16 accumulate), 215.2 INT8",
        {"NVIDIA GeForce RTX 2080 Ti", "GeForce RTX 2080 Ti"}),
    Row("RTX-2080-Super", "NVIDIA GeForce RTX 2080 SUPER", kNv, {0, 0, 11.2, 0, 0, 44.6, 0, 0, 178.4, 0, 496, 50, 32, 48},
        "computed: 48 SMs x 1815 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 496 GB/s "
        "from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 2080 SUPER", "GeForce RTX 2080 SUPER"}),
    Row("RTX-2080", "NVIDIA GeForce RTX 2080", kNv, {0, 0, 10.1, 0, 0, 40.3, 0, 0, 161.1, 0, 448, 50, 32, 46},
        "computed: 46 SMs x 1710 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 448 GB/s "
        "from the same specifications (not re-read); the whitepaper's reference-board FP16 figure: 40.3",
        {"NVIDIA GeForce RTX 2080", "GeForce RTX 2080"}),
    Row("RTX-2070-Super", "NVIDIA GeForce RTX 2070 SUPER", kNv, {0, 0, 9.1, 0, 0, 36.2, 0, 0, 145, 0, 448, 50, 32, 40},
        "computed: 40 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 448 GB/s "
        "from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 2070 SUPER", "GeForce RTX 2070 SUPER"}),
    Row("RTX-2070", "NVIDIA GeForce RTX 2070", kNv, {0, 0, 7.5, 0, 0, 29.9, 0, 0, 119.4, 0, 448, 0, 32, 36},
        "computed: 36 SMs x 1620 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 448 GB/s "
        "from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 2070", "GeForce RTX 2070"}),
    Row("RTX-2060-Super", "NVIDIA GeForce RTX 2060 SUPER", kNv, {0, 0, 7.2, 0, 0, 28.7, 0, 0, 114.9, 0, 448, 0, 32, 34},
        "computed: 34 SMs x 1650 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 448 GB/s "
        "from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 2060 SUPER", "GeForce RTX 2060 SUPER"}),
    Row("RTX-2060", "NVIDIA GeForce RTX 2060", kNv, {0, 0, 6.5, 0, 0, 25.8, 0, 0, 103.2, 0, 336, 0, 32, 30},
        "computed: 30 SMs x 1680 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Turing GPU architecture whitepaper (Appendix A: GeForce RTX 2080 Ti 53.8 / RTX 2080 40.3 FP16 "
        "Tensor TFLOPS with FP32 accumulate at the reference boost clock; 4 x that in INT8 TOPS); 336 GB/s "
        "from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 2060", "GeForce RTX 2060"}),
  };
}
// clang-format on

// clang-format off
std::vector<GpuPeak> AmpereRows() {
  return {
    //                                            fp64  fp64mx fp32  fp32mx tf32   fp16    bf16    fp8     int8    fp4     hbm    link  pcie  SMs
    // --- Ampere
    Row("A10-24GB", "NVIDIA A10", kNv, {0, 0, 31.2, 0, 62.5, 125, 125, 0, 250, 0, 600, 0, 64, 72},
        "A10 datasheet (not re-read); fp64 not in the datasheet", {"NVIDIA A10"}),
    Row("A100-40GB-SXM4", "NVIDIA A100 SXM4 40GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 600, 64, 108},
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (as in the reference peaks table) (verified: 312, 156, "
        "19.5, 1555); fp64 9.7/19.5 and int8 624 not re-read",
        {"NVIDIA A100-SXM4-40GB"}),
    Row("A100-80GB-SXM4", "NVIDIA A100 SXM4 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 2039, 600, 64, 108},
        "A100 datasheet r4 (as in the reference peaks table) (verified: 312, 156, 19.5, 2039)",
        {"NVIDIA A100-SXM4-80GB"}),
    Row("A100-40GB-PCIe", "NVIDIA A100 PCIe 40GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 600, 64, 108},
        "A100 datasheet r4 (not re-read)", {"NVIDIA A100-PCIE-40GB"}),
    Row("A100-80GB-PCIe", "NVIDIA A100 PCIe 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1935, 600, 64, 108},
        "A100 datasheet r4 (as in the reference peaks table) (not re-read)",
        {"NVIDIA A100 80GB PCIe"}),
    Row("RTX-3080", "NVIDIA GeForce RTX 3080", kNv, {0, 0, 29.8, 0, 29.8, 59.5, 59.5, 0, 238, 0, 760, 0, 64, 68},
        "NVIDIA Ampere GA102 whitepaper, Appendix A (fp16/bf16 with fp32 accumulate; not re-read)",
        {"NVIDIA GeForce RTX 3080", "GeForce RTX 3080"}),
    Row("RTX-3090", "NVIDIA GeForce RTX 3090", kNv, {0, 0, 35.6, 0, 35.6, 71, 71, 0, 284, 0, 936, 112.5, 64, 82},
        "NVIDIA Ampere GA102 whitepaper, Appendix A (as in the reference peaks table) (fp16/bf16 with fp32 "
        "accumulate, as PyTorch's GEMMs run; 142 with fp16 accumulate; not re-read)",
        {"NVIDIA GeForce RTX 3090", "GeForce RTX 3090"}),
    Row("RTX-3090-Ti", "NVIDIA GeForce RTX 3090 Ti", kNv, {0, 0, 40, 0, 40, 80, 80, 0, 320, 0, 1008, 112.5, 64, 84},
        "NVIDIA GeForce RTX 3090 Ti specifications (not verified)", {"NVIDIA GeForce RTX 3090 Ti", "GeForce RTX 3090 Ti"}),
    Row("A2-16GB", "NVIDIA A2", kNv, {0, 0, 4.5, 0, 9.1, 18.1, 18.1, 0, 36.2, 0, 200, 0, 64, 10},
        "computed: 10 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 200 GB/s from the same specifications "
        "(not re-read); datasheet: 4.5 FP32, 9 TF32, 18 FP16 dense (36 sparse)",
        {"NVIDIA A2"}),
    Row("A16-per-GPU", "NVIDIA A16 (one of its 4 GPUs)", kNv, {0, 0, 4.5, 0, 9, 18, 18, 0, 35.9, 0, 200, 0, 64, 10},
        "computed: 10 SMs x 1755 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 200 GB/s from the same specifications "
        "(not re-read); datasheet per board 4 x 4.5 FP32, 4 x 17.9 FP16 dense; CUDA shows each GPU of the "
        "board as a device",
        {"NVIDIA A16"}),
    Row("A30-24GB", "NVIDIA A30", kNv, {0, 0, 10.3, 0, 82.6, 165.2, 165.2, 0, 330.3, 0, 933, 200, 64, 56},
        "computed: 56 SMs x 1440 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA A100 Tensor Core GPU architecture whitepaper rates (GA100: 2048 dense FP16 FLOP/clk/SM, 1024 "
        "TF32, 128 FP32); 933 GB/s from the same specifications (not re-read); datasheet: 10.3 FP32, 82 TF32, "
        "165 FP16, 330 INT8 dense; FP64 5.2 / FP64 Tensor 10.3",
        {"NVIDIA A30"}),
    Row("A40-48GB", "NVIDIA A40", kNv, {0, 0, 37.4, 0, 74.8, 149.7, 149.7, 0, 299.3, 0, 696, 112.5, 64, 84},
        "computed: 84 SMs x 1740 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 696 GB/s from the same specifications "
        "(not re-read); datasheet: 37.4 FP32, 74.8 TF32, 149.7 FP16 dense",
        {"NVIDIA A40"}),
    Row("A800-80GB-SXM4", "NVIDIA A800 SXM4 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 2039, 400, 64, 108},
        "A800 = A100 compute with NVLink cut to 400 GB/s (NVIDIA A800 product brief; A100 datasheet r4 "
        "figures) (not re-read)",
        {"NVIDIA A800-SXM4-80GB"}),
    Row("A800-40GB-SXM4", "NVIDIA A800 SXM4 40GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 400, 64, 108},
        "A800 = A100 compute with NVLink cut to 400 GB/s (NVIDIA A800 product brief; A100 datasheet r4 "
        "figures) (not re-read)",
        {"NVIDIA A800-SXM4-40GB"}),
    Row("A800-80GB-PCIe", "NVIDIA A800 PCIe 80GB", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1935, 400, 64, 108},
        "A800 = A100 compute with NVLink cut to 400 GB/s (NVIDIA A800 product brief; A100 80GB PCIe figures) "
        "(not re-read)",
        {"NVIDIA A800 80GB PCIe"}),
    Row("A800-40GB-Active", "NVIDIA A800 40GB Active", kNv, {9.7, 19.5, 19.5, 0, 156, 312, 312, 0, 624, 0, 1555, 400, 64, 108},
        "NVIDIA A800 40GB Active datasheet: A100 compute (9.7 FP64, 19.5 FP32, 156 TF32, 312 FP16 dense), 1.5 "
        "TB/s, NVLink 400 GB/s (not re-read)",
        {"NVIDIA A800 40GB Active"}),
    Row("RTX-A6000", "NVIDIA RTX A6000", kNv, {0, 0, 38.7, 0, 77.4, 154.8, 154.8, 0, 309.7, 0, 768, 112.5, 64, 84},
        "computed: 84 SMs x 1800 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 768 GB/s from the same specifications "
        "(not re-read); datasheet: 38.7 FP32, 309.7 Tensor TFLOPS with sparsity",
        {"NVIDIA RTX A6000"}),
    Row("RTX-A5500", "NVIDIA RTX A5500", kNv, {0, 0, 34.1, 0, 68.2, 136.4, 136.4, 0, 272.8, 0, 768, 112.5, 64, 80},
        "computed: 80 SMs x 1665 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 768 GB/s from the same specifications "
        "(not re-read); datasheet: 34.1 FP32",
        {"NVIDIA RTX A5500"}),
    Row("RTX-A5000", "NVIDIA RTX A5000", kNv, {0, 0, 27.8, 0, 55.5, 111.1, 111.1, 0, 222.2, 0, 768, 112.5, 64, 64},
        "computed: 64 SMs x 1695 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 768 GB/s from the same specifications "
        "(not re-read); datasheet: 27.8 FP32, 222.2 Tensor TFLOPS with sparsity",
        {"NVIDIA RTX A5000"}),
    Row("RTX-A4500", "NVIDIA RTX A4500", kNv, {0, 0, 23.7, 0, 47.3, 94.6, 94.6, 0, 189.2, 0, 640, 112.5, 64, 56},
        "computed: 56 SMs x 1650 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 640 GB/s from the same specifications "
        "(not re-read); datasheet: 23.7 FP32",
        {"NVIDIA RTX A4500"}),
    Row("RTX-A4000", "NVIDIA RTX A4000", kNv, {0, 0, 19.2, 0, 38.3, 76.7, 76.7, 0, 153.4, 0, 448, 0, 64, 48},
        "computed: 48 SMs x 1560 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 448 GB/s from the same specifications "
        "(not re-read); datasheet: 19.2 FP32, 153.4 Tensor TFLOPS with sparsity",
        {"NVIDIA RTX A4000"}),
    Row("RTX-A2000", "NVIDIA RTX A2000", kNv, {0, 0, 8, 0, 16, 31.9, 31.9, 0, 63.9, 0, 288, 0, 64, 26},
        "computed: 26 SMs x 1200 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 whitepaper rates at full speed with FP32 accumulate, as the RTX A-series / A10 / "
        "A40 datasheets give them (A10: 125 FP16, 62.5 TF32 dense); 288 GB/s from the same specifications "
        "(not re-read); datasheet: 8.0 FP32, 63.9 Tensor TFLOPS with sparsity",
        {"NVIDIA RTX A2000", "NVIDIA RTX A2000 12GB"}),
    Row("RTX-3050", "NVIDIA GeForce RTX 3050", kNv, {0, 0, 9.1, 0, 9.1, 18.2, 18.2, 0, 72.8, 0, 224, 0, 64, 20},
        "computed: 20 SMs x 1777 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 224 GB/s from the same specifications (not "
        "re-read); the 8 GB desktop part",
        {"NVIDIA GeForce RTX 3050", "GeForce RTX 3050"}),
    Row("RTX-3060", "NVIDIA GeForce RTX 3060", kNv, {0, 0, 12.7, 0, 12.7, 25.5, 25.5, 0, 101.9, 0, 360, 0, 64, 28},
        "computed: 28 SMs x 1777 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 360 GB/s from the same specifications (not "
        "re-read); the 12 GB part",
        {"NVIDIA GeForce RTX 3060", "GeForce RTX 3060"}),
    Row("RTX-3060-Ti", "NVIDIA GeForce RTX 3060 Ti", kNv, {0, 0, 16.2, 0, 16.2, 32.4, 32.4, 0, 129.6, 0, 448, 0, 64, 38},
        "computed: 38 SMs x 1665 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 448 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 3060 Ti", "GeForce RTX 3060 Ti"}),
    Row("RTX-3070", "NVIDIA GeForce RTX 3070", kNv, {0, 0, 20.3, 0, 20.3, 40.6, 40.6, 0, 162.5, 0, 448, 0, 64, 46},
        "computed: 46 SMs x 1725 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 448 GB/s from the same specifications (not "
        "re-read); the GA102 whitepaper's Appendix A gives 40.6 FP16",
        {"NVIDIA GeForce RTX 3070", "GeForce RTX 3070"}),
    Row("RTX-3070-Ti", "NVIDIA GeForce RTX 3070 Ti", kNv, {0, 0, 21.7, 0, 21.7, 43.5, 43.5, 0, 174, 0, 608, 0, 64, 48},
        "computed: 48 SMs x 1770 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 608 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 3070 Ti", "GeForce RTX 3070 Ti"}),
    Row("RTX-3080-12GB", "NVIDIA GeForce RTX 3080 12GB", kNv, {0, 0, 30.6, 0, 30.6, 61.3, 61.3, 0, 245.1, 0, 912, 0, 64, 70},
        "computed: 70 SMs x 1710 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 912 GB/s from the same specifications (not "
        "re-read); CUDA names it \"NVIDIA GeForce RTX 3080\" like the 10 GB part: told apart by its 70 SMs",
        {}),
    Row("RTX-3080-Ti", "NVIDIA GeForce RTX 3080 Ti", kNv, {0, 0, 34.1, 0, 34.1, 68.2, 68.2, 0, 272.8, 0, 912, 0, 64, 80},
        "computed: 80 SMs x 1665 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ampere GA102 GPU architecture whitepaper (Appendix A: RTX 3090 71 / RTX 3080 59.5 FP16 Tensor "
        "TFLOPS with FP32 accumulate, TF32 half of that); 912 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 3080 Ti", "GeForce RTX 3080 Ti"}),
  };
}
// clang-format on

// clang-format off
std::vector<GpuPeak> AdaHopperRows() {
  return {
    //                                            fp64  fp64mx fp32  fp32mx tf32   fp16    bf16    fp8     int8    fp4     hbm    link  pcie  SMs
    // --- Ada
    Row("L4-24GB", "NVIDIA L4", kNv, {0, 0, 30.3, 0, 60, 121, 121, 242, 242, 0, 300, 0, 64, 58},
        "L4 datasheet (as in the reference peaks table) (verified: 30.3, 300; 121 and 60 not re-read); fp8/int8 "
        "242 = half the datasheet's 485 with sparsity, not re-read", {"NVIDIA L4"}),
    Row("L40S-48GB", "NVIDIA L40S", kNv, {0, 0, 91.6, 0, 183, 362.05, 362.05, 733, 733, 0, 864, 0, 64, 142},
        "L40S datasheet: dense BF16/FP16 362.05 (733 with sparsity), TF32 183, FP8/INT8 733 (1,466 with "
        "sparsity) (not re-read)",
        {"NVIDIA L40S"}),
    Row("RTX-4080", "NVIDIA GeForce RTX 4080", kNv, {0, 0, 48.7, 0, 48.7, 97.5, 97.5, 0, 389.9, 0, 716.8, 0, 64, 76},
        "NVIDIA Ada Lovelace architecture whitepaper, Appendix (fp16/bf16 with fp32 accumulate; not verified)",
        {"NVIDIA GeForce RTX 4080"}),
    Row("RTX-4090", "NVIDIA GeForce RTX 4090", kNv, {0, 0, 82.6, 0, 82.6, 165.2, 165.2, 330.3, 660.6, 0, 1008, 0, 64, 128},
        "Ada Lovelace architecture whitepaper appendix (as in the reference peaks table) (verified: 165.2 with "
        "fp32 accumulate, 82.6, 1008); fp8 330.3 (fp32 accumulate) and int8 660.6 not re-read",
        {"NVIDIA GeForce RTX 4090"}),
    Row("L40-48GB", "NVIDIA L40", kNv, {0, 0, 90.5, 0, 90.5, 181.05, 181.05, 362, 362, 0, 864, 0, 64, 142},
        "L40 datasheet: 90.5 FP32; TF32 90.5, BF16/FP16 181.05, FP8/INT8 362 dense (twice that with "
        "sparsity); 864 GB/s (not re-read). Half the L40S's tensor rate at the same SM count",
        {"NVIDIA L40"}),
    Row("L20-48GB", "NVIDIA L20", kNv, {0, 0, 59.8, 0, 59.8, 119.5, 119.5, 239, 239, 0, 864, 0, 64, 92},
        "China-market part: 59.8 FP32, 119.5 FP16/BF16, 239 FP8 dense, 864 GB/s as published by resellers "
        "(not verified against an NVIDIA datasheet)",
        {"NVIDIA L20"}),
    Row("RTX-6000-Ada", "NVIDIA RTX 6000 Ada Generation", kNv, {0, 0, 91.1, 0, 182.1, 364.2, 364.2, 728.5, 728.5, 0, 960, 0, 64, 142},
        "computed: 142 SMs x 2505 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 960 GB/s from the same specifications "
        "(not re-read); datasheet: 91.1 FP32, 1,457 FP8 TFLOPS with sparsity",
        {"NVIDIA RTX 6000 Ada Generation"}),
    Row("RTX-5000-Ada", "NVIDIA RTX 5000 Ada Generation", kNv, {0, 0, 65.3, 0, 130.6, 261.1, 261.1, 522.2, 522.2, 0, 576, 0, 64, 100},
        "computed: 100 SMs x 2550 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 576 GB/s from the same specifications "
        "(not re-read); datasheet: 65.3 FP32",
        {"NVIDIA RTX 5000 Ada Generation"}),
    Row("RTX-4500-Ada", "NVIDIA RTX 4500 Ada Generation", kNv, {0, 0, 39.6, 0, 79.3, 158.5, 158.5, 317, 317, 0, 432, 0, 64, 60},
        "computed: 60 SMs x 2580 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 432 GB/s from the same specifications "
        "(not re-read); datasheet: 39.6 FP32",
        {"NVIDIA RTX 4500 Ada Generation"}),
    Row("RTX-4000-Ada", "NVIDIA RTX 4000 Ada Generation", kNv, {0, 0, 26.7, 0, 53.5, 106.9, 106.9, 213.8, 213.8, 0, 360, 0, 64, 48},
        "computed: 48 SMs x 2175 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 360 GB/s from the same specifications "
        "(not re-read); datasheet: 26.7 FP32",
        {"NVIDIA RTX 4000 Ada Generation"}),
    Row("RTX-4000-SFF-Ada", "NVIDIA RTX 4000 SFF Ada Generation", kNv, {0, 0, 19.2, 0, 38.5, 76.9, 76.9, 153.8, 153.8, 0, 280, 0, 64, 48},
        "computed: 48 SMs x 1565 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 280 GB/s from the same specifications "
        "(not re-read); datasheet: 19.2 FP32",
        {"NVIDIA RTX 4000 SFF Ada Generation"}),
    Row("RTX-2000-Ada", "NVIDIA RTX 2000 Ada Generation", kNv, {0, 0, 12, 0, 24, 48, 48, 96, 96, 0, 224, 0, 64, 22},
        "computed: 22 SMs x 2130 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper rates at full speed with FP32 accumulate, as the RTX Ada / "
        "L-series datasheets give them (L4: 121 FP16, 242 FP8 dense); 224 GB/s from the same specifications "
        "(not re-read); datasheet: 12.0 FP32",
        {"NVIDIA RTX 2000 Ada Generation"}),
    Row("RTX-4060", "NVIDIA GeForce RTX 4060", kNv, {0, 0, 15.1, 0, 15.1, 30.2, 30.2, 60.5, 120.9, 0, 272, 0, 64, 24},
        "computed: 24 SMs x 2460 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 272 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4060", "GeForce RTX 4060"}),
    Row("RTX-4060-Ti", "NVIDIA GeForce RTX 4060 Ti", kNv, {0, 0, 22.1, 0, 22.1, 44.1, 44.1, 88.3, 176.5, 0, 288, 0, 64, 34},
        "computed: 34 SMs x 2535 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 288 GB/s from the same specifications (not re-read); 8 GB and 16 GB "
        "parts alike",
        {"NVIDIA GeForce RTX 4060 Ti", "GeForce RTX 4060 Ti"}),
    Row("RTX-4070", "NVIDIA GeForce RTX 4070", kNv, {0, 0, 29.1, 0, 29.1, 58.3, 58.3, 116.6, 233.2, 0, 504, 0, 64, 46},
        "computed: 46 SMs x 2475 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 504 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4070", "GeForce RTX 4070"}),
    Row("RTX-4070-Super", "NVIDIA GeForce RTX 4070 SUPER", kNv, {0, 0, 35.5, 0, 35.5, 71, 71, 141.9, 283.9, 0, 504, 0, 64, 56},
        "computed: 56 SMs x 2475 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 504 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4070 SUPER", "GeForce RTX 4070 SUPER"}),
    Row("RTX-4070-Ti", "NVIDIA GeForce RTX 4070 Ti", kNv, {0, 0, 40.1, 0, 40.1, 80.2, 80.2, 160.4, 320.7, 0, 504, 0, 64, 60},
        "computed: 60 SMs x 2610 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 504 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4070 Ti", "GeForce RTX 4070 Ti"}),
    Row("RTX-4070-Ti-Super", "NVIDIA GeForce RTX 4070 Ti SUPER", kNv, {0, 0, 44.1, 0, 44.1, 88.2, 88.2, 176.4, 352.8, 0, 672, 0, 64, 66},
        "computed: 66 SMs x 2610 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 672 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4070 Ti SUPER", "GeForce RTX 4070 Ti SUPER"}),
    Row("RTX-4080-Super", "NVIDIA GeForce RTX 4080 SUPER", kNv, {0, 0, 52.2, 0, 52.2, 104.4, 104.4, 208.9, 417.8, 0, 736, 0, 64, 80},
        "computed: 80 SMs x 2550 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 736 GB/s from the same specifications (not re-read)",
        {"NVIDIA GeForce RTX 4080 SUPER", "GeForce RTX 4080 SUPER"}),
    Row("RTX-4090-D", "NVIDIA GeForce RTX 4090 D", kNv, {0, 0, 73.5, 0, 73.5, 147.1, 147.1, 294.2, 588.3, 0, 1008, 0, 64, 114},
        "computed: 114 SMs x 2520 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA Ada GPU architecture whitepaper (Appendix: RTX 4090 165.2 FP16 / 330.3 FP8 Tensor TFLOPS with "
        "FP32 accumulate, 82.6 TF32); 1008 GB/s from the same specifications (not re-read); China-market part",
        {"NVIDIA GeForce RTX 4090 D", "GeForce RTX 4090 D"}),
    // --- Hopper
    Row("H100-SXM5-80GB", "NVIDIA H100 SXM5 80GB", kNv, {34, 67, 66.9, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 3350, 900, 128, 132},
        "H100 datasheet (as in the reference peaks table) (verified: 989.4, 494.7, 66.9, 3350; 1,979 is with "
        "sparsity); fp64 34/67 and fp8/int8 1978.9 not re-read",
        {"NVIDIA H100 80GB HBM3"}),
    Row("H100-PCIe-80GB", "NVIDIA H100 PCIe", kNv, {25.6, 51.2, 51, 0, 378, 756, 756, 1513, 1513, 0, 2000, 600, 128, 114},
        "H100 PCIe product brief PB-11133-001 (as in the reference peaks table) (verified: >2,000 GB/s; rest not "
        "re-read)", {"NVIDIA H100 PCIe"}),
    Row("H100-NVL-94GB", "NVIDIA H100 NVL", kNv, {30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 1670.5, 0, 3900, 600, 128, 132},
        "H100 NVL datasheet, per GPU: half the with-sparsity TF32 835 / BF16 1,671 / FP8 3,341 (not re-read)",
        {"NVIDIA H100 NVL"}),
    Row("H200-SXM-141GB", "NVIDIA H200 SXM 141GB", kNv, {34, 67, 67, 0, 494.7, 989, 989, 1979, 1979, 0, 4800, 900, 128, 132},
        "H200 datasheet (as in the reference peaks table) (verified: 989 dense, 494.7, 67, 4800); fp8/int8 not "
        "re-read", {"NVIDIA H200"}),
    Row("H200-NVL-141GB", "NVIDIA H200 NVL", kNv, {30, 60, 60, 0, 417.5, 835.5, 835.5, 1670.5, 1670.5, 0, 4800, 900, 128, 0},
        "H200 NVL datasheet: half the with-sparsity TF32 835 / BF16 1,671 / FP8 3,341 (not re-read)",
        {"NVIDIA H200 NVL"}),
    Row("H800-SXM5-80GB", "NVIDIA H800 SXM5 80GB", kNv, {1, 1, 67, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 3350, 400, 128, 132},
        "H800 product brief: H100 SXM5 compute with fp64 cut to 1 TFLOPS and NVLink to 400 GB/s (not verified); "
        "132 SMs as the shared DeepSeek trace reports", {"NVIDIA H800"}),
    Row("H20-96GB", "NVIDIA H20", kNv, {1, 1, 44, 0, 74, 148, 148, 296, 296, 0, 4000, 900, 128, 0},
        "H20 specification as published by resellers (not verified against an NVIDIA datasheet)", {"NVIDIA H20"}),
    Row("H800-PCIe-80GB", "NVIDIA H800 PCIe", kNv, {0.8, 0.8, 51, 0, 378, 756, 756, 1513, 1513, 0, 2000, 400, 128, 114},
        "H800 PCIe product brief: H100 PCIe compute with fp64 cut and NVLink to 400 GB/s (not verified)",
        {"NVIDIA H800 PCIe"}),
    Row("GH200-96GB", "NVIDIA GH200 Grace Hopper (96 GB HBM3)", kNv, {34, 67, 67, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 4000, 900, 128, 132},
        "GH200 datasheet: H100 SXM5 compute (989 BF16, 1,979 FP8 dense), 96 GB HBM3 at 4 TB/s, NVLink-C2C 900 "
        "GB/s (not re-read)",
        {"NVIDIA GH200 480GB"}),
    Row("GH200-144GB", "NVIDIA GH200 Grace Hopper (144 GB HBM3e)", kNv, {34, 67, 67, 0, 494.7, 989.4, 989.4, 1978.9, 1978.9, 0, 4900, 900, 128, 132},
        "GH200 datasheet: H100 SXM5 compute, 144 GB HBM3e at 4.9 TB/s (not re-read)",
        {"NVIDIA GH200 144G HBM3e"}),
  };
}
// clang-format on

// clang-format off
std::vector<GpuPeak> BlackwellAmdRows() {
  return {
    //                                            fp64  fp64mx fp32  fp32mx tf32   fp16    bf16    fp8     int8    fp4     hbm    link  pcie  SMs
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
    Row("B100", "NVIDIA B100 (HGX, 700 W)", kNv, {30, 30, 60, 0, 875, 1750, 1750, 3500, 3500, 7000, 8000, 1800, 128, 0},
        "NVIDIA Blackwell datasheet, HGX B100 per GPU: 3.5 PF FP16 and 7 PF FP8 with sparsity, halved here "
        "(not verified)",
        {"NVIDIA B100"}),
    Row("RTX-PRO-6000-Blackwell", "NVIDIA RTX PRO 6000 Blackwell", kNv, {0, 0, 126, 0, 251.9, 503.8, 503.8, 1007.6, 1007.6, 2015.2, 1792, 0, 128, 188},
        "computed: 188 SMs x 2617 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper rates, with FP32 accumulate at full speed as on the "
        "earlier RTX professional parts (assumed, not verified; RTX PRO 'AI TOPS' = sparse FP4 = 8192 "
        "OP/clk/SM); 1792 GB/s from the same specifications (not re-read); datasheet: 4,000 AI TOPS (sparse "
        "FP4) = 188 x 2617 MHz x 8192; the 300 W Max-Q edition clocks lower and is not in the table",
        {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "NVIDIA RTX PRO 6000 Blackwell Server Edition"}),
    Row("RTX-PRO-5000-Blackwell", "NVIDIA RTX PRO 5000 Blackwell", kNv, {0, 0, 64.5, 0, 129, 257.9, 257.9, 515.9, 515.9, 1031.8, 1344, 0, 128, 110},
        "computed: 110 SMs x 2290 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper rates, with FP32 accumulate at full speed as on the "
        "earlier RTX professional parts (assumed, not verified; RTX PRO 'AI TOPS' = sparse FP4 = 8192 "
        "OP/clk/SM); 1344 GB/s from the same specifications (not re-read); clock from the datasheet's 2,064 "
        "AI TOPS (sparse FP4) / (110 SMs x 8192) (not verified)",
        {"NVIDIA RTX PRO 5000 Blackwell"}),
    Row("RTX-PRO-4500-Blackwell", "NVIDIA RTX PRO 4500 Blackwell", kNv, {0, 0, 52.7, 0, 105.4, 210.8, 210.8, 421.5, 421.5, 843, 896, 0, 128, 82},
        "computed: 82 SMs x 2510 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper rates, with FP32 accumulate at full speed as on the "
        "earlier RTX professional parts (assumed, not verified; RTX PRO 'AI TOPS' = sparse FP4 = 8192 "
        "OP/clk/SM); 896 GB/s from the same specifications (not re-read); clock from the datasheet's 1,687 AI "
        "TOPS (sparse FP4) / (82 SMs x 8192) (not verified)",
        {"NVIDIA RTX PRO 4500 Blackwell"}),
    Row("RTX-PRO-4000-Blackwell", "NVIDIA RTX PRO 4000 Blackwell", kNv, {0, 0, 38.9, 0, 77.8, 155.5, 155.5, 311.1, 311.1, 622.2, 672, 0, 128, 70},
        "computed: 70 SMs x 2170 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper rates, with FP32 accumulate at full speed as on the "
        "earlier RTX professional parts (assumed, not verified; RTX PRO 'AI TOPS' = sparse FP4 = 8192 "
        "OP/clk/SM); 672 GB/s from the same specifications (not re-read); clock from the datasheet's 1,247 AI "
        "TOPS (sparse FP4) / (70 SMs x 8192) (not verified)",
        {"NVIDIA RTX PRO 4000 Blackwell"}),
    Row("RTX-5090", "NVIDIA GeForce RTX 5090", kNv, {0, 0, 104.8, 0, 104.8, 209.5, 209.5, 419, 838, 1676, 1792, 0, 128, 170},
        "computed: 170 SMs x 2407 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 1792 GB/s from the same "
        "specifications (not re-read); 3,352 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5090", "GeForce RTX 5090"}),
    Row("RTX-5080", "NVIDIA GeForce RTX 5080", kNv, {0, 0, 56.3, 0, 56.3, 112.6, 112.6, 225.1, 450.2, 900.4, 960, 0, 128, 84},
        "computed: 84 SMs x 2617 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 960 GB/s from the same specifications "
        "(not re-read); 1,801 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5080", "GeForce RTX 5080"}),
    Row("RTX-5070-Ti", "NVIDIA GeForce RTX 5070 Ti", kNv, {0, 0, 43.9, 0, 43.9, 87.9, 87.9, 175.8, 351.5, 703, 896, 0, 128, 70},
        "computed: 70 SMs x 2452 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 896 GB/s from the same specifications "
        "(not re-read); 1,406 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5070 Ti", "GeForce RTX 5070 Ti"}),
    Row("RTX-5070", "NVIDIA GeForce RTX 5070", kNv, {0, 0, 30.9, 0, 30.9, 61.7, 61.7, 123.5, 246.9, 493.9, 672, 0, 128, 48},
        "computed: 48 SMs x 2512 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 672 GB/s from the same specifications "
        "(not re-read); 988 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5070", "GeForce RTX 5070"}),
    Row("RTX-5060-Ti", "NVIDIA GeForce RTX 5060 Ti", kNv, {0, 0, 23.7, 0, 23.7, 47.4, 47.4, 94.8, 189.6, 379.3, 448, 0, 128, 36},
        "computed: 36 SMs x 2572 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 448 GB/s from the same specifications "
        "(not re-read); 759 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5060 Ti", "GeForce RTX 5060 Ti"}),
    Row("RTX-5060", "NVIDIA GeForce RTX 5060", kNv, {0, 0, 19.2, 0, 19.2, 38.4, 38.4, 76.7, 153.4, 306.8, 448, 0, 128, 30},
        "computed: 30 SMs x 2497 MHz boost (NVIDIA product specifications) x the per-SM dense rates of the "
        "NVIDIA RTX Blackwell GPU architecture whitepaper (RTX 5090: 209.5 FP16 Tensor TFLOPS with FP32 "
        "accumulate; FP4 at 4 x that = 'AI TOPS' / 2 without sparsity); 448 GB/s from the same specifications "
        "(not re-read); 614 AI TOPS = 2 x the FP4 dense figure",
        {"NVIDIA GeForce RTX 5060", "GeForce RTX 5060"}),
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
}
// clang-format on

}  // namespace

const std::vector<GpuPeak>& BuiltinGpuPeaks() {
  // In this order (a lookup takes the first row that matches); the first rows are those of
  // shared/reference/gpu_peaks.tsv.
  static const std::vector<GpuPeak> table = [] {
    std::vector<GpuPeak> t;
    for (std::vector<GpuPeak> (*family)() : {VoltaTuringRows, AmpereRows, AdaHopperRows, BlackwellAmdRows}) {
      std::vector<GpuPeak> rows = family();
      t.insert(t.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    }
    return t;
  }();
  return table;
}

}  // namespace ampscope
