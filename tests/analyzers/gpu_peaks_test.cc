// Tests of analyzers/gpu_peaks: exact-model matching with real device-name strings, and the
// table against shared/reference/gpu_peaks.tsv.
//
// Device names, SM counts and memory sizes come from:
//   - the shared traces' deviceProperties (tb_plugin ResNet50: "Tesla V100-DGXS-32GB", 80 SMs;
//     HTA: "Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB" 108 SMs, "NVIDIA A100-PG509-200" 108 SMs
//     42297524224 bytes, "AMD Radeon Graphics" 104 CUs 68702699520 bytes (the MI250 toy trace);
//     DeepSeek: "NVIDIA H800" 132 SMs; TraceLens: "AMD Instinct MI210" 104 CUs,
//     "AMD Instinct MI300X VF" 304 CUs);
//   - public reports of torch.cuda.get_device_name(): "NVIDIA B300 SXM6 AC" (allenai/OLMo-core#817,
//     NVIDIA/cosmos-framework#114), "NVIDIA GB300" (allenai/OLMo-core#747), "NVIDIA H100 80GB HBM3"
//     (karpathy/nanoGPT#464), "AMD Instinct MI250X/MI250" (ROCm's marketing name of device 0x740c,
//     as Ray's AMD product table lists it);
//   - the CUDA names of the other parts as cudaGetDeviceProperties reports them.
// Peak values are the vendors' datasheet figures named in each row's source.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analyzers/peaks/gpu_peaks.h"
#include "support/test_support.h"

namespace ampscope {
namespace gpu_peaks_test {
namespace {

std::string RowOf(std::string_view name, int32_t sms = 0, int64_t mem = 0) {
  GpuQuery q;
  q.name = name;
  q.sm_count = sms;
  q.memory_bytes = mem;
  GpuMatch m = MatchGpu(q);
  return m.peak ? m.peak->id : "not found: " + m.reason;
}

TEST(GpuPeaks, SharedTraceDeviceNames) {
  EXPECT_EQ(RowOf("Tesla V100-DGXS-32GB", 80), "V100-SXM2-16/32GB");
  EXPECT_EQ(RowOf("Tesla V100-SXM2-32GB", 80), "V100-SXM2-16/32GB");
  EXPECT_EQ(RowOf("NVIDIA A100-SXM4-80GB", 108, 85198045184), "A100-80GB-SXM4");
  EXPECT_EQ(RowOf("NVIDIA A100-PG509-200", 108, 42297524224), "A100-40GB-SXM4");
  EXPECT_EQ(RowOf("NVIDIA H800", 132), "H800-SXM5-80GB");
  EXPECT_EQ(RowOf("AMD Instinct MI210", 104), "MI210");
  EXPECT_EQ(RowOf("AMD Instinct MI300X VF", 304), "MI300X");
  // The HTA MI250 toy trace names no part: an MI210 and an MI250 GCD look the same (104 CUs, 64 GB).
  const std::string radeon = RowOf("AMD Radeon Graphics", 104, 68702699520);
  EXPECT_NE(radeon.find("not found"), std::string::npos);
  EXPECT_NE(radeon.find("generic ROCm device name"), std::string::npos);
  // The PG509 board without memory and SM count cannot say 40 or 80 GB.
  EXPECT_NE(RowOf("NVIDIA A100-PG509-200").find("not found"), std::string::npos);
}

TEST(GpuPeaks, PublicDeviceNames) {
  EXPECT_EQ(RowOf("NVIDIA B300 SXM6 AC"), "B300");
  EXPECT_EQ(RowOf("NVIDIA GB300"), "GB300");
  EXPECT_EQ(RowOf("NVIDIA GB200"), "GB200");
  EXPECT_EQ(RowOf("NVIDIA B200"), "B200");
  EXPECT_EQ(RowOf("NVIDIA H100 80GB HBM3", 132), "H100-SXM5-80GB");
  EXPECT_EQ(RowOf("NVIDIA H100 PCIe", 114), "H100-PCIe-80GB");
  EXPECT_EQ(RowOf("NVIDIA H100 NVL"), "H100-NVL-94GB");
  EXPECT_EQ(RowOf("NVIDIA H200"), "H200-SXM-141GB");
  EXPECT_EQ(RowOf("NVIDIA H200 NVL"), "H200-NVL-141GB");
  EXPECT_EQ(RowOf("NVIDIA H20"), "H20-96GB");
  EXPECT_EQ(RowOf("NVIDIA L40S"), "L40S-48GB");
  EXPECT_EQ(RowOf("NVIDIA L4"), "L4-24GB");
  EXPECT_EQ(RowOf("NVIDIA A10"), "A10-24GB");
  EXPECT_EQ(RowOf("NVIDIA A100-PCIE-40GB"), "A100-40GB-PCIe");
  EXPECT_EQ(RowOf("NVIDIA A100 80GB PCIe"), "A100-80GB-PCIe");
  EXPECT_EQ(RowOf("Tesla T4"), "T4-16GB");
  EXPECT_EQ(RowOf("Tesla V100-PCIE-16GB"), "V100-PCIe");
  EXPECT_EQ(RowOf("NVIDIA GeForce RTX 4090"), "RTX-4090");
  EXPECT_EQ(RowOf("NVIDIA GeForce RTX 3090"), "RTX-3090");
  EXPECT_EQ(RowOf("AMD Instinct MI250X/MI250", 110), "MI250X-GCD");
  EXPECT_EQ(RowOf("AMD Instinct MI250X/MI250", 104), "MI250-GCD");
  EXPECT_NE(RowOf("AMD Instinct MI250X/MI250").find("not found"), std::string::npos);
  EXPECT_EQ(RowOf("AMD Instinct MI300X"), "MI300X");
  // Case and '-'/'_'/' ' do not matter; nothing else is fuzzy.
  EXPECT_EQ(RowOf("nvidia a100_sxm4_80gb"), "A100-80GB-SXM4");
}

TEST(GpuPeaks, UnknownGpusNeverGetAnotherGpusPeaks) {
  // prime-rl#3168 / OLMo-core#817: B300 fell back to A100 peaks and MFU read 7x too high.
  for (const char* name : {"NVIDIA B300", "NVIDIA B300 SXM6", "NVIDIA H100", "NVIDIA A100", "NVIDIA H100-FOO",
                           "NVIDIA A10G", "AMD Instinct MI355X", "NVIDIA GeForce RTX 5090 Laptop GPU", ""}) {
    GpuQuery q;
    q.name = name;
    GpuMatch m = MatchGpu(q);
    EXPECT_EQ(m.peak, nullptr) << name << " matched " << (m.peak ? m.peak->id : "");
    EXPECT_FALSE(m.reason.empty()) << name;
  }
  GpuQuery q;
  q.name = "NVIDIA H100-FOO";
  GpuMatch m = MatchGpu(q);
  EXPECT_NE(m.reason.find("not in the GPU peak table"), std::string::npos);
  EXPECT_NE(m.reason.find("H100-SXM5-80GB"), std::string::npos);  // listed as close
  // MIG slices and partitions are not the whole GPU.
  EXPECT_NE(RowOf("NVIDIA A100-SXM4-40GB MIG 3g.20gb", 42).find("MIG instance"), std::string::npos);
  EXPECT_NE(RowOf("AMD Instinct MI300X", 38).find("partition"), std::string::npos);  // CPX mode: 38 CUs
  EXPECT_NE(RowOf("NVIDIA H100 80GB HBM3", 114).find("not found"), std::string::npos);
}

// Every NVIDIA GPU with Tensor Cores from Volta on, by product line, as CUDA names it (issue 32:
// "the RTX 2080 Ti was missing"). The lists are NVIDIA's product lines (datacenter, RTX/Quadro
// workstation, desktop GeForce RTX and TITAN); laptop parts, the Max-Q RTX PRO 6000 and the
// Turing parts without Tensor Cores are left out (docs/roofline.md says why).
TEST(GpuPeaks, EveryNvidiaTensorCoreGpuFromVoltaOn) {
  const char* datacenter[] = {"Tesla V100-SXM2-32GB", "Tesla V100-PCIE-16GB", "Tesla V100S-PCIE-32GB", "Tesla T4", "NVIDIA A2",
                              "NVIDIA A10", "NVIDIA A16", "NVIDIA A30", "NVIDIA A40", "NVIDIA A100-SXM4-80GB",
                              "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-40GB", "NVIDIA A800-SXM4-80GB",
                              "NVIDIA A800-SXM4-40GB", "NVIDIA A800 80GB PCIe", "NVIDIA A800 40GB Active", "NVIDIA L4", "NVIDIA L20",
                              "NVIDIA L40", "NVIDIA L40S", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL",
                              "NVIDIA H800", "NVIDIA H800 PCIe", "NVIDIA H20", "NVIDIA H200", "NVIDIA H200 NVL",
                              "NVIDIA GH200 480GB", "NVIDIA GH200 144G HBM3e", "NVIDIA B100", "NVIDIA B200", "NVIDIA GB200",
                              "NVIDIA B300 SXM6 AC", "NVIDIA GB300"};
  const char* workstation[] = {"Quadro GV100", "Quadro RTX 4000", "Quadro RTX 5000", "Quadro RTX 6000", "Quadro RTX 8000",
                               "NVIDIA RTX A2000", "NVIDIA RTX A4000", "NVIDIA RTX A4500", "NVIDIA RTX A5000",
                               "NVIDIA RTX A5500", "NVIDIA RTX A6000", "NVIDIA RTX 2000 Ada Generation",
                               "NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA RTX 4000 Ada Generation",
                               "NVIDIA RTX 4500 Ada Generation", "NVIDIA RTX 5000 Ada Generation",
                               "NVIDIA RTX 6000 Ada Generation", "NVIDIA RTX PRO 4000 Blackwell",
                               "NVIDIA RTX PRO 4500 Blackwell", "NVIDIA RTX PRO 5000 Blackwell",
                               "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                               "NVIDIA RTX PRO 6000 Blackwell Server Edition"};
  const char* geforce[] = {"NVIDIA TITAN V", "NVIDIA TITAN RTX", "NVIDIA GeForce RTX 2060", "NVIDIA GeForce RTX 2060 SUPER",
                           "NVIDIA GeForce RTX 2070", "NVIDIA GeForce RTX 2070 SUPER", "NVIDIA GeForce RTX 2080",
                           "NVIDIA GeForce RTX 2080 SUPER", "NVIDIA GeForce RTX 2080 Ti", "NVIDIA GeForce RTX 3050",
                           "NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 3060 Ti", "NVIDIA GeForce RTX 3070",
                           "NVIDIA GeForce RTX 3070 Ti", "NVIDIA GeForce RTX 3080", "NVIDIA GeForce RTX 3080 Ti",
                           "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA GeForce RTX 4060",
                           "NVIDIA GeForce RTX 4060 Ti", "NVIDIA GeForce RTX 4070", "NVIDIA GeForce RTX 4070 SUPER",
                           "NVIDIA GeForce RTX 4070 Ti", "NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA GeForce RTX 4080",
                           "NVIDIA GeForce RTX 4080 SUPER", "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090 D",
                           "NVIDIA GeForce RTX 5060", "NVIDIA GeForce RTX 5060 Ti", "NVIDIA GeForce RTX 5070",
                           "NVIDIA GeForce RTX 5070 Ti", "NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5090"};
  auto check = [](const char* name) {
    SCOPED_TRACE(name);
    const GpuPeak* p = LookupGpuPeak(name);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->vendor, GpuVendor::kNvidia);
    EXPECT_GT(p->fp16_tflops, 0);
    EXPECT_FALSE(p->source.empty());
  };
  for (const char* n : datacenter) check(n);
  for (const char* n : workstation) check(n);
  for (const char* n : geforce) check(n);
  // Drivers before 2021 named GeForce parts without "NVIDIA".
  EXPECT_EQ(RowOf("GeForce RTX 2080 Ti", 68), "RTX-2080-Ti");
  // The 12 GB RTX 3080 has CUDA's 10 GB name; its 70 SMs tell it apart.
  EXPECT_EQ(RowOf("NVIDIA GeForce RTX 3080", 68), "RTX-3080");
  EXPECT_EQ(RowOf("NVIDIA GeForce RTX 3080", 70), "RTX-3080-12GB");
}

// Rows computed from SM count x boost clock x per-SM rate agree with the figures the
// architecture whitepapers print for the same parts (with FP32 accumulate, dense).
TEST(GpuPeaks, ComputedRowsAgreeWithTheWhitepapers) {
  // Turing whitepaper, Appendix A (GeForce RTX 2080 Ti reference board, 1545 MHz): 13.4 FP32,
  // 53.8 FP16 Tensor with FP32 accumulate, 215.2 INT8 TOPS, 616 GB/s.
  const GpuPeak* ti = LookupGpuPeak("NVIDIA GeForce RTX 2080 Ti");
  ASSERT_NE(ti, nullptr);
  EXPECT_DOUBLE_EQ(ti->fp32_tflops, 13.4);
  EXPECT_DOUBLE_EQ(ti->fp16_tflops, 53.8);
  EXPECT_DOUBLE_EQ(ti->int8_tops, 215.2);
  EXPECT_DOUBLE_EQ(ti->hbm_gbs, 616);
  EXPECT_FALSE(ti->bf16);  // Turing has no bf16 Tensor Cores
  EXPECT_EQ(ti->tf32_tflops, 0);
  // Quadro RTX 6000 datasheet: 130.5 Tensor TFLOPS, 16.3 FP32.
  EXPECT_DOUBLE_EQ(LookupGpuPeak("Quadro RTX 6000")->fp16_tflops, 130.5);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("Quadro RTX 6000")->fp32_tflops, 16.3);
  // A40 datasheet: 149.7 BF16 dense (bf16 always accumulates in fp32: full rate), 74.8 TF32, 37.4 FP32.
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA A40")->bf16_tflops, 149.7);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA A40")->tf32_tflops, 74.8);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA A40")->fp32_tflops, 37.4);
  // RTX Blackwell: RTX 5090 209.5 FP16 with FP32 accumulate; 3,352 "AI TOPS" = sparse FP4 = 2 x 1,676.
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA GeForce RTX 5090")->fp16_tflops, 209.5);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA GeForce RTX 5090")->fp4_tflops, 1676);
}

TEST(GpuPeaks, AnArchitectureInferredFromKernelNamesGetsItsDatacenterGpuAssumed) {
  auto assumed = [](int major, int minor) {
    GpuQuery q;
    q.inferred_cc_major = major;
    q.inferred_cc_minor = minor;
    return MatchGpu(q);
  };
  EXPECT_EQ(assumed(8, 0).peak->id, "A100-80GB-SXM4");
  EXPECT_NE(assumed(8, 0).reason.find("assumed"), std::string::npos);
  EXPECT_EQ(assumed(7, 0).peak->id, "V100-SXM2-16/32GB");
  EXPECT_EQ(assumed(9, 0).peak->id, "H100-SXM5-80GB");
  EXPECT_EQ(assumed(10, 0).peak->id, "B200");
  // Shared by GeForce, workstation and datacenter parts several-fold apart: no peaks.
  for (const auto& [major, minor] : {std::pair{7, 5}, std::pair{8, 6}, std::pair{8, 9}, std::pair{12, 0}}) {
    const GpuMatch m = assumed(major, minor);
    EXPECT_EQ(m.peak, nullptr) << major << "." << minor;
    EXPECT_NE(m.reason.find("many GPUs share"), std::string::npos) << m.reason;
  }
  // A device name always wins over an inferred architecture.
  GpuQuery named;
  named.name = "NVIDIA GeForce RTX 3090";
  named.inferred_cc_major = 8;
  named.inferred_cc_minor = 0;
  EXPECT_EQ(MatchGpu(named).peak->id, "RTX-3090");
}

TEST(GpuPeaks, GpuOverrideIsExactWithCloseMatchesInTheError) {
  auto ok = ResolveGpuOverride("H100-SXM5-80GB", BuiltinGpuPeaks());
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value()->id, "H100-SXM5-80GB");
  auto by_name = ResolveGpuOverride("nvidia h100 80gb hbm3", BuiltinGpuPeaks());
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name.value()->id, "H100-SXM5-80GB");
  ASSERT_TRUE(ResolveGpuOverride("MI250X-GCD", BuiltinGpuPeaks()).ok());
  // issue 17: "--gpu H100-FOO" was silently fuzzy-matched.
  auto bad = ResolveGpuOverride("H100-FOO", BuiltinGpuPeaks());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("close matches"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("H100-PCIe-80GB"), std::string::npos);
  EXPECT_NE(bad.status().message().find("H100-NVL-94GB"), std::string::npos);
  auto amb = ResolveGpuOverride("AMD Instinct MI250X/MI250", BuiltinGpuPeaks());
  EXPECT_FALSE(amb.ok());
}

TEST(GpuPeaks, DensePeaksPerPrecision) {
  const GpuPeak* h100 = LookupGpuPeak("H100-SXM5-80GB");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->DenseTflops(Precision::kBf16), 989.4);  // 1,979 is with sparsity
  EXPECT_DOUBLE_EQ(h100->DenseTflops(Precision::kFp8), 1978.9);
  EXPECT_DOUBLE_EQ(h100->DenseTflops(Precision::kTf32), 494.7);
  EXPECT_DOUBLE_EQ(h100->DenseTflops(Precision::kFp64), 67);     // the FP64 Tensor Core peak
  const GpuPeak* v100 = LookupGpuPeak("Tesla V100-SXM2-32GB");
  ASSERT_NE(v100, nullptr);
  EXPECT_EQ(v100->DenseTflops(Precision::kBf16), 0);             // no bf16 Tensor Cores on Volta
  EXPECT_EQ(v100->DenseTflops(Precision::kTf32), 0);
  EXPECT_FALSE(v100->bf16);
  const GpuPeak* mi300 = LookupGpuPeak("AMD Instinct MI300X");
  ASSERT_NE(mi300, nullptr);
  EXPECT_DOUBLE_EQ(mi300->DenseTflops(Precision::kBf16), 1307.4);
  EXPECT_DOUBLE_EQ(mi300->DenseTflops(Precision::kFp32), 163.4);  // Matrix Core fp32
  EXPECT_EQ(mi300->vendor, GpuVendor::kAmd);
  // GB200 and B200 are 11% apart (marin#7334): 2,500 vs 2,250 dense bf16.
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA GB200")->DenseTflops(Precision::kBf16), 2500);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA B200")->DenseTflops(Precision::kBf16), 2250);
  EXPECT_DOUBLE_EQ(LookupGpuPeak("NVIDIA B300 SXM6 AC")->DenseTflops(Precision::kBf16), 2250);
}

TEST(GpuPeaks, TableInvariants) {
  std::set<std::string> names;
  for (const GpuPeak& p : BuiltinGpuPeaks()) {
    SCOPED_TRACE(p.id);
    EXPECT_FALSE(p.source.empty());
    EXPECT_FALSE(p.name.empty());
    EXPECT_GT(p.fp16_tflops, 0);
    EXPECT_GT(p.hbm_gbs, 0);
    EXPECT_NE(p.vendor, GpuVendor::kUnknown);
    // Dense, not sparse: low precisions are at most about 2x the next higher one.
    if (p.fp8_tflops > 0) {
      EXPECT_LE(p.fp8_tflops, 2.05 * p.fp16_tflops);  // datasheets round (L40S: 362.05 vs 733)
    }
    if (p.tf32_tflops > 0) {
      EXPECT_LE(p.tf32_tflops, 0.51 * p.fp16_tflops);
    }
    for (const std::string& n : p.device_names) EXPECT_TRUE(names.insert(n).second) << "device name twice: " << n;
  }
}

TEST(GpuPeaks, AgreesWithTheSharedReferenceTable) {
  const std::string path = testing::SharedPath("reference/gpu_peaks.tsv");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
  auto rows = LoadGpuPeaksTsv(path);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_GE(rows.value().size(), 12u);
  for (const GpuPeak& ref : rows.value()) {
    SCOPED_TRACE(ref.id);
    const GpuPeak* mine = LookupGpuPeak(ref.id);
    ASSERT_NE(mine, nullptr);
    EXPECT_DOUBLE_EQ(mine->fp16_tflops, ref.fp16_tflops);
    EXPECT_DOUBLE_EQ(mine->tf32_tflops, ref.tf32_tflops);
    EXPECT_DOUBLE_EQ(mine->fp32_tflops, ref.fp32_tflops);
    EXPECT_DOUBLE_EQ(mine->hbm_gbs, ref.hbm_gbs);
    EXPECT_EQ(mine->bf16, ref.bf16);
  }
}

TEST(GpuPeaks, EveryRowIsInTheDocs) {
  const std::string doc = testing::ReadFile(testing::SourcePath("docs/roofline.md"));
  for (const GpuPeak& p : BuiltinGpuPeaks()) EXPECT_NE(doc.find("| " + p.id + " |"), std::string::npos) << p.id;
}

}  // namespace
}  // namespace gpu_peaks_test
}  // namespace ampscope
