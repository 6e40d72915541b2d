// One lookup of the GPU's peak row (issue 35): the report's devices[].peak, the roofline and the
// diagnosis' facts take the same row, found once from the run's table (--gpu-peaks FILE when
// given, else the built-in one). Before, the diagnosis' fallback ratio for a GPU missing from the
// table ("the most conservative ratio in it") came from the built-in table even with --gpu-peaks.
//
// The lab table below has two rows; their fp32 / fp16-Tensor-Core ratios, by hand:
//   LAB-A 20 / 100 = 0.20, LAB-B 50 / 200 = 0.25  -> the most conservative (largest) is LAB-B.
// The built-in table's most conservative row is another GPU's (RTX-3090 today), never a LAB row.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analyzers/analyze.h"
#include "analyzers/diagnosis/facts.h"
#include "analyzers/roofline/roofline_result.h"
#include "diagnosis_builder.h"
#include "support/test_support.h"
#include "trace/reader.h"

namespace ampscope {
namespace peak_lookup_test {
namespace {

using namespace diagnosis_test;

constexpr char kLabTable[] =
    "gpu\tfp16\ttf32\tfp32\thbm\tnvlink\tpcie\n"
    "LAB-A\t100\t50\t20\t1000\t0\t64\n"
    "LAB-B\t200\t100\t50\t2000\t0\t64\n";

std::string LabTablePath() {
  const std::string dir = testing::MakeTempDir("peak_lookup");
  testing::WriteFile(dir + "/lab_peaks.tsv", kLabTable);
  return dir + "/lab_peaks.tsv";
}

// An fp32 training step on a GPU no table knows: 600 µs of SIMT GEMMs in 1000 µs.
Trace UnknownGpuRun() {
  TraceBuilder b;
  b.SetDevice("Lab Accelerator 9", 8, 6);
  b.Step(1, 0, 1000);
  b.Op("aten::mm", 5, 9, "float, float", "[[64, 64], [64, 64]]");
  b.AddRange("autograd::engine::evaluate_function: MmBackward0", 700, 720);
  b.Run("ampere_sgemm_128x64_tn", 10, 1, 600, 0);
  return b.Build();
}

struct Lookup {
  std::string basis;
  double ratio = 0;
  RankAnalysis ra;
};

Lookup LookUp(const Trace& trace, const AnalysisOptions& options) {
  const RankContext ctx(trace, options);
  Lookup out;
  out.ra = AnalyzeRank(ctx);
  const diagnosis::Facts facts(ctx, out.ra);
  out.ratio = facts.SimtToTcRatio(&out.basis);
  return out;
}

TEST(PeakLookup, TheFallbackRatioComesFromTheGpuPeaksTable) {
  const Trace t = UnknownGpuRun();
  AnalysisOptions options;
  options.gpu_peaks_path = LabTablePath();
  const Lookup lab = LookUp(t, options);
  ASSERT_EQ(lab.ra.input.devices.size(), 1u);
  EXPECT_FALSE(lab.ra.input.devices[0].peak.has_value());
  EXPECT_DOUBLE_EQ(lab.ratio, 0.25);
  EXPECT_NE(lab.basis.find("most conservative ratio in it (LAB-B)"), std::string::npos) << lab.basis;
  // Without the table: the built-in one's row, not a lab row.
  const Lookup builtin = LookUp(t, AnalysisOptions{});
  EXPECT_EQ(builtin.basis.find("LAB-"), std::string::npos) << builtin.basis;
  EXPECT_NE(builtin.ratio, 0.25);
}

TEST(PeakLookup, GpuOverrideGivesTheReportTheRooflineAndTheDiagnosisOneRow) {
  const Trace t = UnknownGpuRun();
  AnalysisOptions options;
  options.gpu_peaks_path = LabTablePath();
  options.gpu_override = "LAB-A";
  const Lookup lab = LookUp(t, options);
  ASSERT_EQ(lab.ra.input.devices.size(), 1u);
  ASSERT_TRUE(lab.ra.input.devices[0].peak.has_value());
  EXPECT_EQ(lab.ra.input.devices[0].peak->id, "LAB-A");
  ASSERT_NE(lab.ra.roofline, nullptr);
  ASSERT_TRUE(lab.ra.roofline->gpu.peak.has_value());
  EXPECT_EQ(lab.ra.roofline->gpu.peak->id, "LAB-A");
  EXPECT_EQ(lab.ra.roofline->gpu.match, lab.ra.input.devices[0].peak_match);
  // LAB-A's own ratio, 20 / 100.
  EXPECT_DOUBLE_EQ(lab.ratio, 0.2);
  EXPECT_NE(lab.basis.find("LAB-A peaks: fp32 20 / fp16 Tensor Core 100 TFLOP/s"), std::string::npos) << lab.basis;
}

// A real trace: ResNet50 in fp32 on a Tesla V100-DGXS-32GB (shared/traces/README.md), which the
// lab table does not list.
TEST(PeakLookup, SharedTraceWithAGpuPeaksFileThatLacksItsGpu) {
  const std::string path = testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(path), "shared input not available: " + path);
  StatusOr<Trace> t = ReadTrace(path);
  ASSERT_TRUE(t.ok()) << t.status().message();
  AnalysisOptions options;
  options.gpu_peaks_path = LabTablePath();
  const Lookup lab = LookUp(*t, options);
  ASSERT_FALSE(lab.ra.input.devices.empty());
  EXPECT_FALSE(lab.ra.input.devices[0].peak.has_value());
  ASSERT_NE(lab.ra.roofline, nullptr);
  EXPECT_FALSE(lab.ra.roofline->gpu.peak.has_value());
  EXPECT_DOUBLE_EQ(lab.ratio, 0.25);
  EXPECT_NE(lab.basis.find("(LAB-B)"), std::string::npos) << lab.basis;
  // The built-in table has the V100: its own ratio, 15.7 / 125 (the table's figures).
  const Lookup builtin = LookUp(*t, AnalysisOptions{});
  ASSERT_TRUE(builtin.ra.input.devices[0].peak.has_value());
  EXPECT_NEAR(builtin.ratio, 15.7 / 125, 1e-12);
  EXPECT_NE(builtin.basis.find("V100"), std::string::npos) << builtin.basis;
}

}  // namespace
}  // namespace peak_lookup_test
}  // namespace ampscope
