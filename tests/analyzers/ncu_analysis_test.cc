// Measured kernel metrics in the analysis (analyzers/ncu/): an Nsight Compute CSV alone, joined to
// a trace with --ncu, and a Kineto trace's PM-sampling counter tracks.
//
// Where the expected values come from:
// - the shared exports' own text: the 20 RTX 5090 files' "Duration" and "Compute (SM) Throughput",
//   "DRAM Throughput", "L2 Hit Rate" rows (listed below as read, file by file), weighted by hand;
// - hand calculation on the CSVs and traces built here (each number's arithmetic is in a comment);
// - the saving bound of docs/findings.md: time x (1 - busiest% / 60).
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analyzers/analyze.h"
#include "analyzers/ncu/ncu_analysis.h"
#include "support/test_support.h"
#include "support/trace_builder.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/ncu/ncu_reader.h"

namespace ampscope {
namespace ncu_analysis_test {
namespace {

using testing::SharedPath;
using testing::Us;

#define REQUIRE_SHARED() AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/traces/ncu not found (AMPSCOPE_SHARED_DIR)")

std::shared_ptr<const NcuReport> ReadShared(const std::vector<std::string>& relative) {
  std::vector<NcuReport> parts;
  for (const std::string& r : relative) {
    StatusOr<NcuReport> read = ReadNcuCsv(SharedPath(r));
    EXPECT_TRUE(read.ok()) << read.status().message();
    if (read.ok()) parts.push_back(std::move(read).value());
  }
  return std::make_shared<const NcuReport>(MergeNcuReports(std::move(parts)));
}

std::shared_ptr<const NcuReport> ReadBuilt(const std::string& text) {
  StatusOr<NcuReport> r = ReadNcuCsv(MakeStringByteSource(text), "built.csv");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return std::make_shared<const NcuReport>(r.ok() ? std::move(r).value() : NcuReport{});
}

const DimensionResult& Dim(const RankAnalysis& ra, const std::string& id) {
  for (const DimensionResult& d : ra.matrix)
    if (d.id == id) return d;
  static const DimensionResult kNone;
  ADD_FAILURE() << "no dimension " << id;
  return kNone;
}

const Finding* FindingOf(const RankAnalysis& ra, const std::string& id) {
  for (const Finding& f : ra.findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The 20 RTX 5090 exports as `ls` orders them, with (Duration us, Compute (SM) Throughput %,
// DRAM Throughput %, L2 Hit Rate %) read from each file's SpeedOfLight and MemoryWorkloadAnalysis rows.
struct RtxRow {
  double duration_us, sm, dram, l2;
};
const RtxRow kRtx[] = {{6.75, 9.15, 19.66, 27.66},   {18.34, 22.47, 54.36, 5.30},  {23.42, 41.49, 8.13, 95.40},
                       {4.70, 0.02, 0.40, 89.96},    {111.81, 32.10, 8.87, 80.44}, {2.88, 0.28, 3.52, 25.06},
                       {3.14, 0.64, 1.80, 45.68},    {7.58, 2.66, 49.42, 2.04},    {160.74, 36.75, 37.26, 61.97},
                       {94.91, 12.07, 10.29, 90.48}, {6.91, 25.26, 21.41, 28.89},  {4.83, 9.55, 27.81, 3.82},
                       {10.34, 8.77, 26.00, 11.72},  {6.34, 3.26, 41.96, 2.75},    {6.78, 19.66, 39.45, 4.35},
                       {404.70, 32.46, 8.96, 86.48}, {9.82, 38.78, 13.59, 25.39},  {7.97, 2.17, 33.91, 12.59},
                       {18.08, 6.76, 15.48, 77.33},  {4.99, 10.76, 13.64, 21.75}};

std::vector<std::string> RtxFiles() {
  std::vector<std::string> files;
  if (!testing::HaveShared()) return files;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/ncu/rtx5090_deepseek_ocr")))
    if (e.path().extension() == ".csv") files.push_back("traces/ncu/rtx5090_deepseek_ocr/" + e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(NcuAlone, Rtx5090MatrixIsTheDurationWeightedMeasure) {
  REQUIRE_SHARED();
  const RankAnalysis ra = AnalyzeNcuAlone(ReadShared(RtxFiles()), {});
  ASSERT_NE(ra.ncu, nullptr);
  ASSERT_EQ(ra.ncu->kernels.size(), 20u);
  EXPECT_EQ(ra.format, SourceFormat::kNcu);
  EXPECT_EQ(ra.ncu->weighting, "ncu duration");
  double t = 0, sm = 0, dram = 0, l2 = 0;
  for (const RtxRow& r : kRtx) {
    t += r.duration_us;
    sm += r.sm * r.duration_us;
    dram += r.dram * r.duration_us;
    l2 += r.l2 * r.duration_us;
  }
  // 915.03 us of kernel time; SM 28.73%, DRAM 16.54%, L2 hit 74.27% weighted by duration.
  EXPECT_NEAR(ra.gpu.kernel_time_total_ns, t * 1e3, 1);
  const DimensionResult& ci = Dim(ra, "compute_intensity");
  EXPECT_EQ(ci.headline.name, "sm_throughput_pct");
  EXPECT_NEAR(ci.headline.value.value_or(0), sm / t, 0.005);
  EXPECT_EQ(ci.headline.source, "measured (Nsight Compute, 100% of kernel time covered)");
  EXPECT_EQ(ci.status, DimensionStatus::kBad);  // 28.7% < 30% [heur]
  const DimensionResult& mb = Dim(ra, "memory_bandwidth");
  EXPECT_EQ(mb.headline.name, "dram_throughput_pct");
  EXPECT_NEAR(mb.headline.value.value_or(0), dram / t, 0.005);
  const DimensionResult& dl = Dim(ra, "data_locality");
  EXPECT_EQ(dl.headline.name, "l2_hit_rate_pct");
  EXPECT_NEAR(dl.headline.value.value_or(0), l2 / t, 0.005);
  const DimensionResult& ie = Dim(ra, "instruction_efficiency");
  EXPECT_EQ(ie.headline.name, "issue_active_pct");  // "One or More Eligible" in every file
  EXPECT_EQ(Dim(ra, "task_parallelism").status, DimensionStatus::kUnknown);
  EXPECT_FALSE(Dim(ra, "task_parallelism").headline.value);
  // The classifier on ncu's spelling of the names.
  size_t gemm_tc = 0, attention = 0;
  for (const ncu::KernelRow& row : ra.ncu->kernels) {
    gemm_tc += row.cls.category == KernelCategory::kGemm && row.cls.tensor_core == TensorCoreUse::kYes &&
               row.cls.precision == Precision::kBf16;
    attention += row.cls.category == KernelCategory::kAttention;
  }
  EXPECT_EQ(gemm_tc, 3u);    // the three cutlass_80 bf16 tensor-op GEMMs
  EXPECT_EQ(attention, 2u);  // fmha_cutlassF and flash_fwd_splitkv
  for (const ChecklistItem& c : ra.checklist) EXPECT_EQ(c.status, CheckStatus::kUnknown) << c.id;
}

TEST(NcuAlone, Rtx5090FindingsAreBoundedAndNonZero) {
  REQUIRE_SHARED();
  const RankAnalysis ra = AnalyzeNcuAlone(ReadShared(RtxFiles()), {});
  const Finding* lat = FindingOf(ra, "ncu_latency_bound");
  ASSERT_NE(lat, nullptr);
  // The two large GEMMs are latency-bound (SM 32.10% and 32.46%, memory 27.74% and 25.75%: both
  // under 60%); the bound of the larger alone is 404.70 x (1 - 32.46/60) = 185.76 us of 915.03.
  EXPECT_GT(lat->est_saving_pct, 100.0 * 185.76 / 915.03);
  EXPECT_LE(lat->est_saving_pct, 100.0);
  EXPECT_EQ(lat->severity, FindingSeverity::kCritical);
  EXPECT_GT(FieldNumber(lat->evidence, "kernel_time_pct").value_or(0), 0);
  // At a roof: the elementwise add (94.91 us, memory 93.99%) is in no finding's launches.
  for (const Finding& f : ra.findings) {
    EXPECT_GT(f.evidence.size(), 0u) << f.id;
    const Field* launches = FindField(f.evidence, "launches");
    if (launches == nullptr) continue;
    for (const FieldList& l : std::get<std::vector<FieldList>>(launches->value)) {
      EXPECT_NE(FieldNumber(l, "time_us").value_or(0), 94.91) << f.id;
    }
  }
  const Finding* occ = FindingOf(ra, "ncu_low_occupancy");
  ASSERT_NE(occ, nullptr);
  EXPECT_EQ(occ->severity, FindingSeverity::kInfo);
  EXPECT_EQ(FieldString(occ->evidence, "main_limiter").value_or(""), "registers");  // Block Limit Registers 1
  EXPECT_EQ(FindingOf(ra, "ncu_l2_thrash"), nullptr);  // every GEMM hits L2 >= 80%
  EXPECT_LE(ra.joint_saving_pct, 100.0);
}

TEST(NcuAlone, B200SmallGridIsLatencyBound) {
  REQUIRE_SHARED();
  const RankAnalysis ra = AnalyzeNcuAlone(ReadShared({"traces/ncu/b200_int8_gemm/algo23_raw.csv"}), {});
  const Finding* lat = FindingOf(ra, "ncu_latency_bound");
  ASSERT_NE(lat, nullptr);
  // SM 15.006952%, memory 44.982003%: latency-bound; 0.29 waves: a small grid. Bound:
  // 1 - 44.982003 / 60 = 25.03% of its own time.
  EXPECT_NEAR(lat->est_saving_pct, 25.03, 0.01);
  EXPECT_NEAR(FieldNumber(lat->evidence, "small_grid_time_pct").value_or(0), 100, 1e-9);
  EXPECT_EQ(FindingOf(ra, "ncu_memory_bound_far_from_roof"), nullptr);
  EXPECT_EQ(Dim(ra, "compute_intensity").headline.value.value_or(0), 15.01);
  // Tensor pipe 13.708403% measured, int8 Tensor Core GEMM by name.
  EXPECT_NEAR(ra.tensor_cores.active_pct.value_or(0), 13.708, 1e-3);
  ASSERT_EQ(ra.input.devices.size(), 1u);
  EXPECT_EQ(ra.input.devices[0].device.name, "NVIDIA B200");
  EXPECT_EQ(ra.input.devices[0].device.cc_major, 10);
}

TEST(NcuAlone, A100WithoutDramOrCacheMetricsSaysSo) {
  REQUIRE_SHARED();
  const RankAnalysis ra = AnalyzeNcuAlone(ReadShared({"traces/ncu/a100_bert/bert_torch_nsight.csv"}), {});
  ASSERT_EQ(ra.ncu->kernels.size(), 26u);
  EXPECT_EQ(Dim(ra, "memory_bandwidth").headline.name, "memory_throughput_pct");  // no DRAM % in the file
  const DimensionResult& dl = Dim(ra, "data_locality");
  EXPECT_FALSE(dl.headline.value);
  EXPECT_EQ(dl.headline.source, "unavailable: not in the Nsight Compute file");
  EXPECT_EQ(dl.status, DimensionStatus::kUnknown);
  // Launch 6 (ampere_sgemm_32x32_sliced1x4_tn) is an fp32 SIMT GEMM.
  const ncu::KernelRow& sgemm = ra.ncu->kernels[6];
  EXPECT_EQ(sgemm.cls.category, KernelCategory::kGemm);
  EXPECT_EQ(sgemm.cls.precision, Precision::kFp32);
  EXPECT_EQ(sgemm.bound, ncu::Bound::kLatency);  // SM 8.47%, memory 11.94%
}

// ---- beside a trace ---------------------------------------------------------------------------

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string Launch(int id, const std::string& name, const std::string& grid, const std::string& block,
                   const std::vector<std::pair<std::string, std::string>>& metrics) {
  std::string out;
  for (const auto& [metric, value] : metrics)
    out += "\"" + std::to_string(id) + "\",\"1\",\"p\",\"h\",\"" + name + "\",\"1\",\"7\",\"" + block + "\",\"" + grid +
           "\",\"0\",\"8.0\",\"S\",\"" + metric + "\",\"" + (metric == "Duration" ? "usecond" : metric.rfind("Block Limit", 0) == 0 ? "block" : "%") + "\",\"" + value + "\"\n";
  return out;
}

// A trace whose kernels Kineto names with namespaces and std::array, and a CSV in ncu's spelling.
struct JoinCase {
  Trace trace;
  std::shared_ptr<const NcuReport> csv;
};

// One GPU-bound step: the CPU range [0, 200) us launches all 17 kernels up front (a 2 us call
// every 5 us from 1 us), and they run back to back on one stream from 10 us: 1700 us of kernels,
// the step ends with the last at 1710 us.
// `cpu_end_us` past 1710 makes the step host-bound: the CPU range outlasts every kernel.
JoinCase BuildJoinCase(bool shapes, double cpu_end_us = 200) {
  testing::TraceBuilder b;
  b.AddA100();
  b.AddRange("ProfilerStep#3", 0, Us(cpu_end_us));
  const std::string mul =
      "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>, std::array<char*, 3ul> >"
      "(int, at::native::MulFunctor<float>, std::array<char*, 3ul>)";
  const std::string gemm =
      "void cutlass::Kernel2<cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8>("
      "cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8::Params)";
  TimeNs t = Us(10), launch = Us(1);
  auto add = [&](const std::string& name, double dur_us, uint32_t gx, uint32_t gy, uint32_t bx) {
    KernelEvent& k = b.LaunchKernel(name, launch, Us(2), t, t + Us(dur_us));
    launch += Us(5);
    if (shapes) {
      LaunchConfig lc;
      lc.grid[0] = gx, lc.grid[1] = gy, lc.grid[2] = 1;
      lc.block[0] = bx, lc.block[1] = 1, lc.block[2] = 1;
      k.launch_config = b.trace().InternLaunch(lc);
    }
    t += Us(dur_us);
  };
  for (int i = 0; i < 10; ++i) add(mul, 50, 1000, 1, 128);
  for (int i = 0; i < 5; ++i) add(gemm, 200, 80, 2, 128);
  for (int i = 0; i < 2; ++i) add("my_custom_kernel", 100, 10, 1, 32);  // not in the CSV
  std::string csv = kHeader;
  const std::string ncu_mul = "void vectorized_elementwise_kernel<4, MulFunctor<float>, array<char *, 3>>(int, T2, T3)";
  csv += Launch(0, ncu_mul, "(1000, 1, 1)", "(128, 1, 1)",
                {{"Duration", "50"}, {"Compute (SM) Throughput", "5"}, {"Memory Throughput", "30"}, {"DRAM Throughput", "30"}});
  csv += Launch(1, "void Kernel2<cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8>(Params)", "(80, 2, 1)",
                "(128, 1, 1)",
                {{"Duration", "190"}, {"Compute (SM) Throughput", "85"}, {"Memory Throughput", "40"}, {"DRAM Throughput", "20"},
                 {"L2 Hit Rate", "90"}});
  csv += Launch(2, ncu_mul, "(1000, 1, 1)", "(128, 1, 1)",
                {{"Duration", "52"}, {"Compute (SM) Throughput", "5"}, {"Memory Throughput", "40"}, {"DRAM Throughput", "40"}});
  return {b.Build(), ReadBuilt(csv)};
}

TEST(NcuJoined, KernelsJoinByNameAndShapeThenLaunchOrder) {
  JoinCase c = BuildJoinCase(true);
  AnalysisOptions options;
  options.ncu = c.csv;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(c.trace, options);
  ASSERT_TRUE(ra.ok());
  ASSERT_NE(ra->ncu, nullptr);
  const ncu::NcuResult& r = *ra->ncu;
  EXPECT_FALSE(r.alone);
  EXPECT_EQ(r.trace_kernels, 17u);
  EXPECT_EQ(r.trace_kernels_matched, 15u);
  EXPECT_EQ(r.launches_matched, 3u);
  // The 10 multiplies alternate between the CSV's launches 0 and 2: 5 x 50 us each.
  EXPECT_EQ(r.kernels[0].trace_kernels, 5u);
  EXPECT_EQ(r.kernels[2].trace_kernels, 5u);
  EXPECT_NEAR(r.kernels[0].weight_ns, 250e3, 1);
  EXPECT_EQ(r.kernels[0].match, "name+shape");
  EXPECT_NEAR(r.kernels[1].weight_ns, 1000e3, 1);  // 5 GEMMs x 200 us of trace time (ncu said 190)
  // Covered: (500 + 1000) of 1700 us = 88.24%.
  EXPECT_NEAR(r.kernel_time_covered_pct, 100.0 * 1500 / 1700, 1e-6);
  // DRAM weighted by trace time: (250 x 30 + 250 x 40 + 1000 x 20) / 1500 = 25.0.
  const DimensionResult& mb = Dim(*ra, "memory_bandwidth");
  EXPECT_EQ(mb.headline.name, "dram_throughput_pct");
  EXPECT_NEAR(mb.headline.value.value_or(0), 25.0, 1e-9);
  EXPECT_EQ(mb.headline.source, "measured (Nsight Compute, 88% of kernel time covered)");
  // SM: (250 x 5 + 250 x 5 + 1000 x 85) / 1500 = 58.33.
  EXPECT_NEAR(Dim(*ra, "compute_intensity").headline.value.value_or(0), 58.33, 1e-9);
  // L2 hit only for the GEMM: 90%, covering 1000 of 1700 us = 59%.
  EXPECT_EQ(Dim(*ra, "data_locality").headline.source, "measured (Nsight Compute, 59% of kernel time covered)");
  // No issue-active, IPC or occupancy in the CSV: instruction efficiency stays estimated and says so.
  EXPECT_EQ(Dim(*ra, "instruction_efficiency").headline.name, "kernels_under_10us_pct");
  EXPECT_EQ(Dim(*ra, "instruction_efficiency").headline.source,
            "estimated (a proxy from the trace; the Nsight Compute file has no issue-slot, IPC or occupancy metric)");
  // The multiplies are memory-bound far from the roof (memory 30% / 40% > SM 5%, 50 us each).
  // The fix replayed: each at 30/60 or 40/60 of its time, 250 x (1 - 30/60) + 250 x (1 - 40/60) =
  // 208.33 us less on the one stream the step waits for: 208.33 / 1710 = 12.18%.
  const Finding* f = FindingOf(*ra, "ncu_memory_bound_far_from_roof");
  ASSERT_NE(f, nullptr);
  EXPECT_NEAR(f->est_saving_pct, 100.0 * (250.0 * (1 - 30.0 / 60) + 250.0 * (1 - 40.0 / 60)) / 1710, 0.005);
  EXPECT_EQ(FieldString(f->evidence, "whatif_transform").value_or(""), "scale_kernels");
  EXPECT_NEAR(FieldNumber(f->evidence, "whatif_saving_us").value_or(0), 208.333, 0.005);  // new times in whole ns
  EXPECT_EQ(f->severity, FindingSeverity::kWarning);
  EXPECT_NE(std::find(mb.findings.begin(), mb.findings.end(), "ncu_memory_bound_far_from_roof"), mb.findings.end());
  EXPECT_EQ(FindingOf(*ra, "ncu_latency_bound"), nullptr);  // the GEMM is at its compute roof (85%)
}

// The same kernels in a host-bound step (its CPU range runs to 3000 us, past the GPU's 1710): the
// multiplies are still measured far from the roof, but bringing them to it shortens nothing the
// step waits for. The replay says 0 (the upper bound said 208 us).
TEST(NcuJoined, KernelsOffTheCriticalPathSaveNothing) {
  JoinCase c = BuildJoinCase(true, 3000);
  AnalysisOptions options;
  options.ncu = c.csv;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(c.trace, options);
  ASSERT_TRUE(ra.ok());
  const Finding* f = FindingOf(*ra, "ncu_memory_bound_far_from_roof");
  ASSERT_NE(f, nullptr);  // the measured condition holds
  EXPECT_EQ(f->est_saving_pct, 0);
  EXPECT_NEAR(FieldNumber(f->evidence, "whatif_changed_time_us").value_or(0), 500, 1e-9);  // the 10 multiplies' time
  EXPECT_EQ(FieldNumber(f->evidence, "whatif_saving_us").value_or(-1), 0);
  EXPECT_EQ(f->severity, FindingSeverity::kInfo);
}

TEST(NcuJoined, TraceWithoutLaunchShapesJoinsByName) {
  JoinCase c = BuildJoinCase(false);
  AnalysisOptions options;
  options.ncu = c.csv;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(c.trace, options);
  ASSERT_TRUE(ra.ok());
  EXPECT_EQ(ra->ncu->trace_kernels_matched, 15u);
  EXPECT_EQ(ra->ncu->kernels[0].match, "name");
}

TEST(NcuJoined, OtherShapesDoNotJoin) {
  JoinCase c = BuildJoinCase(true);
  for (KernelEvent& k : c.trace.kernels) {  // every launch of another size
    LaunchConfig lc = c.trace.launch(k);
    lc.grid[0] += 1;
    k.launch_config = c.trace.InternLaunch(lc);
  }
  AnalysisOptions options;
  options.ncu = c.csv;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(c.trace, options);
  ASSERT_TRUE(ra.ok());
  EXPECT_EQ(ra->ncu->trace_kernels_matched, 0u);
  EXPECT_EQ(ra->ncu->kernel_time_covered_pct, 0);
  EXPECT_EQ(FindingOf(*ra, "ncu_memory_bound_far_from_roof"), nullptr);  // no evidence, no finding
  EXPECT_EQ(Dim(*ra, "memory_bandwidth").headline.name, "memory_bound_kernel_time_pct");  // the estimate stays
}

// Every rule on both sides of its line, on a CSV built here (alone: savings are shares of the
// 255 us of profiled kernel time).
TEST(NcuAlone, BuiltCsvFindingsBothSides) {
  std::string csv = kHeader;
  // A GEMM at its compute roof (SM 70%) whose L2 hit rate is 30% with DRAM 45% busy: L2 thrash.
  csv += Launch(0, "void Kernel2<cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8>(Params)", "(80, 2, 1)",
                "(128, 1, 1)",
                {{"Duration", "100"}, {"Compute (SM) Throughput", "70"}, {"Memory Throughput", "50"},
                 {"DRAM Throughput", "45"}, {"L2 Hit Rate", "30"}});
  // An elementwise add with the same cache numbers: streaming, not thrash; memory-bound far from
  // the roof (45% < 60%): 100 x (1 - 45/60) = 25 us.
  csv += Launch(1, "void vectorized_elementwise_kernel<4, AddFunctor<float>>(int, T2)", "(4096, 1, 1)", "(128, 1, 1)",
                {{"Duration", "100"}, {"Compute (SM) Throughput", "5"}, {"Memory Throughput", "45"},
                 {"DRAM Throughput", "45"}, {"L2 Hit Rate", "30"}});
  // 5 us: too short to reach a roof, so latency-bound although memory leads: 5 x (1 - 20/60) = 3.33 us.
  csv += Launch(2, "my_small_kernel", "(64, 1, 1)", "(256, 1, 1)",
                {{"Duration", "5"}, {"Compute (SM) Throughput", "10"}, {"Memory Throughput", "20"}});
  // SM leads, under the roof: latency-bound, 50 x (1 - 40/60) = 16.67 us; achieved occupancy 12% of a
  // theoretical 20%, limited by shared memory (2 blocks per SM against 8 for registers).
  csv += Launch(3, "triton_poi_fused_add_0", "(512, 1, 1)", "(128, 1, 1)",
                {{"Duration", "50"}, {"Compute (SM) Throughput", "40"}, {"Memory Throughput", "10"},
                 {"Achieved Occupancy", "12"}, {"Theoretical Occupancy", "20"}, {"Block Limit Registers", "8"},
                 {"Block Limit Shared Mem", "2"}});
  const RankAnalysis ra = AnalyzeNcuAlone(ReadBuilt(csv), {});
  const Finding* mem = FindingOf(ra, "ncu_memory_bound_far_from_roof");
  ASSERT_NE(mem, nullptr);
  EXPECT_NEAR(mem->est_saving_pct, 100.0 * 25 / 255, 0.005);  // 9.80%
  EXPECT_EQ(mem->severity, FindingSeverity::kWarning);
  EXPECT_EQ(FieldNumber(mem->evidence, "kernels").value_or(0), 1);
  const Finding* lat = FindingOf(ra, "ncu_latency_bound");
  ASSERT_NE(lat, nullptr);
  EXPECT_NEAR(lat->est_saving_pct, 100.0 * (5 * (1 - 20.0 / 60) + 50 * (1 - 40.0 / 60)) / 255, 0.005);  // 7.84%
  EXPECT_EQ(FieldNumber(lat->evidence, "kernels").value_or(0), 2);
  const Finding* occ = FindingOf(ra, "ncu_low_occupancy");
  ASSERT_NE(occ, nullptr);
  EXPECT_EQ(FieldString(occ->evidence, "main_limiter").value_or(""), "shared memory");
  EXPECT_NE(occ->recommendation.find("smaller tiles"), std::string::npos);  // not a library kernel's advice
  const Finding* l2 = FindingOf(ra, "ncu_l2_thrash");
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(FieldNumber(l2->evidence, "kernels").value_or(0), 1);  // the GEMM, not the elementwise add
  EXPECT_EQ(Dim(ra, "data_locality").status, DimensionStatus::kWarn);  // a risk on 39% of kernel time
  // SM weighted by duration: (100 x 70 + 100 x 5 + 5 x 10 + 50 x 40) / 255 = 37.45%: warn.
  EXPECT_NEAR(Dim(ra, "compute_intensity").headline.value.value_or(0), 37.45, 0.005);
  EXPECT_EQ(Dim(ra, "compute_intensity").status, DimensionStatus::kWarn);

  // Below the lines: the GEMM hits L2 at 60%; the add reaches 61% of DRAM (at its roof); nothing fires.
  std::string good = kHeader;
  good += Launch(0, "void Kernel2<cutlass_80_tensorop_f16_s16816gemm_f16_128x128_32x4_nn_align8>(Params)", "(80, 2, 1)",
                 "(128, 1, 1)",
                 {{"Duration", "100"}, {"Compute (SM) Throughput", "70"}, {"Memory Throughput", "50"},
                  {"DRAM Throughput", "45"}, {"L2 Hit Rate", "60"}});
  good += Launch(1, "void vectorized_elementwise_kernel<4, AddFunctor<float>>(int, T2)", "(4096, 1, 1)", "(128, 1, 1)",
                 {{"Duration", "100"}, {"Compute (SM) Throughput", "5"}, {"Memory Throughput", "61"},
                  {"DRAM Throughput", "61"}, {"L2 Hit Rate", "30"}});
  const RankAnalysis fine = AnalyzeNcuAlone(ReadBuilt(good), {});
  EXPECT_TRUE(fine.findings.empty()) << fine.findings.front().id;
  EXPECT_EQ(Dim(fine, "memory_bandwidth").status, DimensionStatus::kGood);
}

// Counts past every integer type (an edited or corrupted export): kept as the type's limit, never
// undefined behaviour (the sanitizer tree's fuzzer found "# SMs" 1.9e11 cast to int).
TEST(NcuAlone, CountsPastTheIntegerTypesSaturate) {
  std::string csv = kHeader;
  auto row = [&](const std::string& metric, const std::string& unit, const std::string& value) {
    csv += "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"8.0\",\"S\",\"" + metric + "\",\"" +
           unit + "\",\"" + value + "\"\n";
  };
  row("Duration", "usecond", "1e30");
  row("# SMs", "SM", "191505000000");
  row("Grid Size", "", "1e40");
  row("Compute (SM) Throughput", "%", "50");
  const std::shared_ptr<const NcuReport> rep = ReadBuilt(csv);
  ASSERT_EQ(rep->launches.size(), 1u);
  const RankAnalysis ra = AnalyzeNcuAlone(rep, {});
  ASSERT_EQ(ra.input.devices.size(), 1u);
  EXPECT_EQ(ra.input.devices[0].device.sm_count, std::numeric_limits<int32_t>::max());
  // 1e30 us does not fit int64 nanoseconds: the limit, not a wrapped negative time.
  EXPECT_EQ(ra.gpu.kernel_time_total_ns, std::numeric_limits<TimeNs>::max());
}

// ---- PM-sampling counter tracks in a Kineto trace ----------------------------------------------

// The event shape torch.profiler writes for CUPTI PM sampling (pytorch/pytorch#188019
// _build_chrome_counters; kineto#1527/#1530): "C" events on a string pid "GPU <n> Counters", one
// counter per metric, its value under an empty key.
const char* kPmTrace = R"JSON({
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0,
                        "totalGlobalMem": 85000000000, "numSms": 132}],
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 11, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1010, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "pid": 0, "tid": 7, "ts": 1100, "dur": 600, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "C", "name": "DRAM BW (%)", "pid": "GPU 0 Counters", "ts": 1200, "args": {"": 30}},
  {"ph": "C", "name": "DRAM BW (%)", "pid": "GPU 0 Counters", "ts": 1400, "args": {"": 50}},
  {"ph": "C", "name": "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "ts": 1200, "args": {"": 70}},
  {"ph": "C", "name": "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed", "pid": "GPU 0 Counters", "ts": 1400, "args": {"": 80}},
  {"ph": "C", "name": "DRAM BW (%)", "pid": "GPU 1 Counters", "ts": 1300, "args": {"": 99}},
  {"ph": "C", "name": "DRAM BW (%)", "pid": "GPU 0 Counters", "ts": 5000, "args": {"": 99}}
  ]
})JSON";

TEST(CounterTracks, KinetoPmSamplingFillsTheMeasuredFields) {
  StatusOr<Trace> t = ReadKinetoTraceFromString(kPmTrace, "pm.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->counters.size(), 6u);
  int gpu1 = 0;
  for (const CounterSample& s : t->counters) gpu1 += s.device == 1;
  EXPECT_EQ(gpu1, 1);  // the pid names the device
  StatusOr<RankAnalysis> ra = AnalyzeTrace(*t, {});
  ASSERT_TRUE(ra.ok());
  ASSERT_NE(ra->ncu, nullptr);
  EXPECT_EQ(ra->ncu->source, "PM sampling");
  // DRAM: the two GPU 0 samples inside the step, (30 + 50) / 2 = 40; GPU 1's and the one after the
  // step are left out.
  const DimensionResult& mb = Dim(*ra, "memory_bandwidth");
  EXPECT_EQ(mb.headline.name, "dram_throughput_pct");
  EXPECT_DOUBLE_EQ(mb.headline.value.value_or(0), 40);
  EXPECT_EQ(mb.headline.source.rfind("measured (PM sampling", 0), 0u) << mb.headline.source;
  // Tensor pipe: (70 + 80) / 2 = 75, which is also the measured Tensor Core utilization.
  EXPECT_DOUBLE_EQ(ra->tensor_cores.active_pct.value_or(0), 75);
  EXPECT_EQ(Dim(*ra, "compute_intensity").headline.source, "measured");
  EXPECT_EQ(ra->ncu->counters.size(), 2u);
}

}  // namespace
}  // namespace ncu_analysis_test
}  // namespace ampscope
