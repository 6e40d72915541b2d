// The Nsight Compute CSV reader (trace/formats/ncu/) on the shared exports and on CSV text built
// here.
//
// Where the expected values come from: the shared files' own text. Each expectation names the
// file's line (1-based, as `grep -n` prints it) and the value written there, with its unit; the
// reader's job is to give that value in the field's base unit (ns, %, bytes). Derived values
// (FLOPs from SASS instruction counts, the duration from SM cycles) are worked out by hand in the
// comment next to them.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "trace/classify/kernel_join_key.h"
#include "trace/formats/ncu/ncu_reader.h"
#include "trace/formats/ncu/ncu_units.h"
#include "trace/io/input_stream.h"
#include "trace/reader.h"

namespace ampscope {
namespace ncu_reader_test {
namespace {

using testing::SharedPath;

const std::string kRtxDir = "traces/ncu/rtx5090_deepseek_ocr";
const std::string kRtx0005 = kRtxDir + "/kernel_0005_e67789a8b6cb9adf2cb8d4d3745a9a79.details.csv";
const std::string kA100 = "traces/ncu/a100_bert/bert_torch_nsight.csv";
const std::string kB200Raw = "traces/ncu/b200_int8_gemm/algo23_raw.csv";
const std::string kB200Details = "traces/ncu/b200_int8_gemm/algo23_details.csv";

#define REQUIRE_SHARED() AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/traces/ncu not found (AMPSCOPE_SHARED_DIR)")

double Field(const NcuLaunch& l, NcuField f) {
  EXPECT_TRUE(l.get(f).has_value()) << NcuFieldName(f);
  return l.get(f).value_or(NAN);
}

NcuReport ReadOk(const std::string& path) {
  StatusOr<NcuReport> r = ReadNcuCsv(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : NcuReport{};
}

NcuReport ReadText(const std::string& text, size_t chunk = 0) {
  std::unique_ptr<ByteSource> src = MakeStringByteSource(text);
  if (chunk > 0) src = MakeChunkLimitedByteSource(std::move(src), chunk);
  StatusOr<NcuReport> r = ReadNcuCsv(std::move(src), "built.csv");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : NcuReport{};
}

uint64_t DiagCount(const NcuReport& r, const std::string& code) {
  const auto& e = r.diagnostics.entries();
  auto it = e.find(code);
  return it == e.end() ? 0 : it->second.count;
}

// ---- the shared exports ----------------------------------------------------------------

TEST(NcuReaderShared, Rtx5090LongFormGemm) {
  REQUIRE_SHARED();
  const NcuReport r = ReadOk(SharedPath(kRtx0005));
  EXPECT_EQ(r.shape, NcuShape::kLong);
  ASSERT_EQ(r.launches.size(), 1u);
  const NcuLaunch& l = r.launches[0];
  EXPECT_EQ(l.name, "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)");
  EXPECT_EQ(l.cc, "12.0");
  EXPECT_EQ(l.device, 0);
  ASSERT_TRUE(l.dims_known);  // line 2: "Block Size" "(256, 1, 1)", "Grid Size" "(332, 1, 1)"
  EXPECT_EQ(l.grid[0], 332u);
  EXPECT_EQ(l.block[0], 256u);
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kDurationNs), 111810);          // line 7: gpu__time_duration.sum us 111.81
  EXPECT_EQ(l.duration_source, "gpu__time_duration.sum");
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kSmThroughputPct), 32.10);      // line 10 (raw) and 20 (display)
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kDramThroughputPct), 8.87);     // line 4 and 15
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kMemoryThroughputPct), 27.74);  // line 14 (%, not line 23's Gbyte/s)
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kL1HitRatePct), 0.55);          // line 26
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kL2HitRatePct), 80.44);         // line 28
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kIssueActivePct), 9.71);        // line 30: One or More Eligible
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kTheoreticalOccupancyPct), 16.67);  // line 46
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kAchievedOccupancyPct), 16.73);     // line 47
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kBlockLimitRegisters), 1);          // line 42
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kDramBytes), 17.50e6);             // line 2: 17.50 Mbyte + line 3: 0 byte
  // Fields this file lacks are unknown, not 0: no IPC, no tensor pipe, no waves, no stall metrics.
  EXPECT_FALSE(l.get(NcuField::kIpc));
  EXPECT_FALSE(l.get(NcuField::kTensorPipeActivePct));
  EXPECT_FALSE(l.get(NcuField::kWavesPerSm));
  EXPECT_TRUE(l.stalls.empty());
  // FLOPs: line 9 sm__ops_path_tensor_src_bf16_dst_fp32.sum = 12,532,580,352; line 8's bf16_dst_bf16
  // and lines 5-6's flop_count_* are n/a.
  ASSERT_EQ(l.flops.size(), 1u);
  EXPECT_EQ(l.flops[0].precision, "bf16");
  EXPECT_EQ(l.flops[0].path, "tensor");
  EXPECT_DOUBLE_EQ(l.flops[0].flop, 12532580352.0);
  // Rules: SOLBottleneck OPT, SOLFPRoofline INF, IssueSlotUtilization OPT (67.9), TheoreticalOccupancy OPT (67.9).
  ASSERT_EQ(l.rules.size(), 4u);
  EXPECT_EQ(l.rules[0].name, "SOLBottleneck");
  EXPECT_EQ(l.rules[0].type, "OPT");
  EXPECT_EQ(l.rules[2].name, "IssueSlotUtilization");
  EXPECT_DOUBLE_EQ(l.rules[2].est_speedup_pct.value_or(0), 67.9);
  EXPECT_FALSE(l.rules[0].est_speedup_pct);
  // 48 rows, 44 distinct (section, metric) pairs; metric rows stop before the rule columns, which
  // is ncu's way, not a ragged row.
  EXPECT_EQ(r.rows, 48u);
  EXPECT_EQ(r.metrics.size(), 44u);
  EXPECT_EQ(DiagCount(r, "ncu_ragged_row"), 0u);
  EXPECT_TRUE(r.diagnostics.entries().empty());
}

TEST(NcuReaderShared, Rtx5090EveryFileOneLaunch) {
  REQUIRE_SHARED();
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath(kRtxDir))) {
    if (e.path().extension() != ".csv") continue;
    ++files;
    const NcuReport r = ReadOk(e.path().string());
    ASSERT_EQ(r.launches.size(), 1u) << e.path();
    const NcuLaunch& l = r.launches[0];
    EXPECT_EQ(l.cc, "12.0") << e.path();
    EXPECT_GT(l.get(NcuField::kDurationNs).value_or(0), 0) << e.path();
    EXPECT_TRUE(l.get(NcuField::kSmThroughputPct) && l.get(NcuField::kDramThroughputPct) && l.get(NcuField::kL2HitRatePct))
        << e.path();
    EXPECT_TRUE(r.diagnostics.entries().empty()) << e.path();
  }
  EXPECT_EQ(files, 20u);  // README: 20 long-form files
}

// `cat kernel_*.csv > all.csv` of the 20 per-kernel exports, each of whose launches has ID 0:
// 20 launches with the values each file gives alone, no diagnostics.
TEST(NcuReaderShared, Rtx5090ConcatenatedFilesReadAsTheFilesOneByOne) {
  REQUIRE_SHARED();
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath(kRtxDir)))
    if (e.path().extension() == ".csv") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_EQ(paths.size(), 20u);
  std::string all;
  std::vector<NcuReport> alone;
  for (const std::string& p : paths) {
    all += testing::ReadFile(p);
    alone.push_back(ReadOk(p));
  }
  const NcuReport r = ReadText(all);
  ASSERT_EQ(r.launches.size(), 20u);
  EXPECT_TRUE(r.diagnostics.entries().empty()) << r.diagnostics.entries().begin()->first;
  EXPECT_EQ(r.preamble_lines, 0u);
  uint64_t rows = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    SCOPED_TRACE(paths[i]);
    ASSERT_EQ(alone[i].launches.size(), 1u);
    const NcuLaunch& a = alone[i].launches[0];
    const NcuLaunch& c = r.launches[i];
    rows += alone[i].rows;
    EXPECT_EQ(c.id, 0);
    EXPECT_EQ(c.name, a.name);
    EXPECT_EQ(c.process_id, a.process_id);
    EXPECT_EQ(c.dims_known, a.dims_known);
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(c.grid[d], a.grid[d]);
      EXPECT_EQ(c.block[d], a.block[d]);
    }
    for (size_t f = 0; f < kNcuFieldCount; ++f)
      EXPECT_EQ(c.values[f], a.values[f]) << NcuFieldName(static_cast<NcuField>(f));
    EXPECT_EQ(c.duration_source, a.duration_source);
    ASSERT_EQ(c.rules.size(), a.rules.size());
    for (size_t k = 0; k < a.rules.size(); ++k) EXPECT_EQ(c.rules[k].name, a.rules[k].name);
    ASSERT_EQ(c.flops.size(), a.flops.size());
    for (size_t k = 0; k < a.flops.size(); ++k) EXPECT_EQ(c.flops[k].flop, a.flops[k].flop);
    ASSERT_EQ(c.stalls.size(), a.stalls.size());
    for (size_t k = 0; k < a.stalls.size(); ++k) EXPECT_EQ(c.stalls[k].share_pct, a.stalls[k].share_pct);
  }
  EXPECT_EQ(r.rows, rows);
}

TEST(NcuReaderShared, A100OlderLongFormWithoutDeviceColumns) {
  REQUIRE_SHARED();
  const NcuReport r = ReadOk(SharedPath(kA100));
  EXPECT_EQ(r.shape, NcuShape::kLong);
  ASSERT_EQ(r.launches.size(), 26u);  // IDs 0..25 (README: 26 launches)
  const NcuLaunch& l = r.launches[6];
  EXPECT_EQ(l.id, 6);
  EXPECT_EQ(l.name, "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_FALSE(l.dims_known);  // no Block/Grid Size columns: only Launch Statistics' totals
  EXPECT_EQ(l.cc, "");
  EXPECT_EQ(l.grid_blocks(), 64u);      // line 417: Grid Size 64
  EXPECT_EQ(l.block_threads(), 128u);   // line 415: Block Size 128
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kDramBytes), 303360);               // line 373: 303,360 byte
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kMemoryThroughputPct), 11.94);      // line 374
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kSmThroughputPct), 8.47);           // line 414
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kWavesPerSm), 0.15);                // line 424
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kTheoreticalOccupancyPct), 25);     // line 431
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kAchievedOccupancyPct), 6.24);      // line 432
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kBlockLimitSharedMem), 4);          // line 428
  EXPECT_DOUBLE_EQ(Field(l, NcuField::kRegistersPerThread), 86);          // line 418
  EXPECT_FALSE(l.get(NcuField::kDramThroughputPct));                      // not collected in this file
  // No duration metric: sm__cycles_elapsed.avg 9,583.22 cycle (line 402) over
  // sm__cycles_elapsed.avg.per_second 998,252,314.81 cycle/second (line 403) = 9600.0 ns.
  EXPECT_NEAR(Field(l, NcuField::kDurationNs), 9583.22 / 998252314.81 * 1e9, 1e-6);
  EXPECT_EQ(l.duration_source, "sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second");
  // fp32 SIMT FLOPs: fadd 196,608 + fmul 262,144 + 2 x ffma 4,194,304 (lines 408-410) = 8,847,360;
  // fp64 and half are 0 (lines 405-407, 411-413).
  bool fp32 = false;
  for (const NcuFlops& f : l.flops)
    if (f.precision == "fp32") {
      fp32 = true;
      EXPECT_EQ(f.path, "simt");
      EXPECT_DOUBLE_EQ(f.flop, 8847360);
    }
  EXPECT_TRUE(fp32);
  ASSERT_EQ(l.rules.size(), 2u);  // lines 425 (LaunchConfiguration WRN) and 434 (Occupancy WRN)
  EXPECT_EQ(l.rules[0].name, "LaunchConfiguration");
  EXPECT_EQ(l.rules[0].type, "WRN");
  EXPECT_EQ(l.rules[1].name, "Occupancy");
  EXPECT_TRUE(r.diagnostics.entries().empty());
}

// The same launch in both shapes: every field both give agrees, to the rounding of the details
// page (it prints two decimals: 22.59 us against raw's 22.592000 us).
TEST(NcuReaderShared, B200WideAndLongFormsAgree) {
  REQUIRE_SHARED();
  const NcuReport raw = ReadOk(SharedPath(kB200Raw));
  const NcuReport det = ReadOk(SharedPath(kB200Details));
  EXPECT_EQ(raw.shape, NcuShape::kWide);
  EXPECT_EQ(det.shape, NcuShape::kLong);
  ASSERT_EQ(raw.launches.size(), 1u);
  ASSERT_EQ(det.launches.size(), 1u);
  const NcuLaunch& a = raw.launches[0];
  const NcuLaunch& b = det.launches[0];
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.cc, "10.0");
  EXPECT_EQ(b.cc, "10.0");
  EXPECT_TRUE(a.dims_known && b.dims_known);
  EXPECT_EQ(a.grid[0], b.grid[0]);
  EXPECT_EQ(a.block[0], b.block[0]);
  EXPECT_EQ(raw.device_name, "NVIDIA B200");  // device__attribute_display_name
  // 589 metric columns in 18 units (%, %/Kbyte, %/register, Ghz, Kbyte/block, ...), all known.
  EXPECT_EQ(raw.metrics.size(), 589u);
  EXPECT_TRUE(raw.diagnostics.entries().empty());
  EXPECT_TRUE(det.diagnostics.entries().empty());
  // Raw values as written on line 3 (the units row is line 2).
  EXPECT_DOUBLE_EQ(Field(a, NcuField::kDurationNs), 22592);                   // gpu__time_duration.sum us 22.592000
  EXPECT_DOUBLE_EQ(Field(a, NcuField::kSmThroughputPct), 15.006952);          // sm__throughput...elapsed
  EXPECT_DOUBLE_EQ(Field(a, NcuField::kDramThroughputPct), 1.361306);         // gpu__dram_throughput...elapsed
  EXPECT_DOUBLE_EQ(Field(a, NcuField::kMemoryThroughputPct), 44.982003);      // gpu__compute_memory_throughput
  EXPECT_DOUBLE_EQ(Field(a, NcuField::kTensorPipeActivePct), 13.708403);      // sm__pipe_tensor_cycles_active...elapsed
  // Details values (lines 6, 7, 11, 45 ...).
  EXPECT_DOUBLE_EQ(Field(b, NcuField::kDurationNs), 22590);                   // line 7: Duration us 22.59
  EXPECT_DOUBLE_EQ(Field(b, NcuField::kDramThroughputPct), 1.36);             // line 6
  EXPECT_DOUBLE_EQ(Field(b, NcuField::kSmThroughputPct), 15.01);              // line 11
  size_t compared = 0;
  for (size_t i = 0; i < kNcuFieldCount; ++i) {
    const auto& x = a.values[i];
    const auto& y = b.values[i];
    if (!x || !y) continue;
    ++compared;
    const double tolerance = i == static_cast<size_t>(NcuField::kDurationNs) ? 5.0 : 0.005 + 1e-9;  // half the last digit
    EXPECT_NEAR(*x, *y, tolerance) << NcuFieldName(static_cast<NcuField>(i));
  }
  EXPECT_GE(compared, 14u);  // duration, SM/DRAM/memory %, occupancy x2, waves, registers, SMs, 5 limits, sizes
  // The details page carries ncu's rule hints; the raw page has none.
  EXPECT_TRUE(a.rules.empty());
  EXPECT_EQ(b.rules.size(), 7u);
}

TEST(NcuReaderShared, TraceReaderNamesTheCsv) {
  REQUIRE_SHARED();
  StatusOr<Trace> t = ReadTrace(SharedPath(kA100));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("an Nsight Compute CSV, not a trace"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("--ncu"), std::string::npos);
}

// ---- built CSV text --------------------------------------------------------------------------

const char* kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\","
    "\"Rule Type\",\"Rule Description\"\n";

std::string Row(int id, const std::string& kernel, const std::string& section, const std::string& metric,
                const std::string& unit, const std::string& value) {
  return "\"" + std::to_string(id) + "\",\"77\",\"train\",\"h\",\"" + kernel + "\",\"1\",\"7\",\"(64, 2, 1)\",\"(300, 1, 1)\","
         "\"1\",\"9.0\",\"" + section + "\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\",\n";
}

TEST(NcuReaderBuilt, LongPreambleQuotingUnitsAndNa) {
  std::string text;
  // A program that printed 5,000 lines first, some with quotes and commas that are not CSV.
  for (int i = 0; i < 5000; ++i)
    text += i % 3 == 0 ? "==PROF== Profiling \"my_kernel\": 0%....50%....100% - 9 passes\n"
                       : "step " + std::to_string(i) + ", loss=\"0.5, unbalanced\n";
  text += "\r\n" + std::string(kHeader);
  // A kernel name holding a comma, a doubled quote and a newline (quoted field), CRLF endings.
  const std::string name = "my_op<8, \"\"x\"\">(\nfloat *)";
  text += Row(0, name, "SOL", "Duration", "msecond", "1.5") ;
  text += Row(0, name, "SOL", "Compute (SM) Throughput", "%", "61.25");
  text += Row(0, name, "SOL", "DRAM Throughput", "%", "n/a");
  text += Row(0, name, "Mem", "dram__bytes.sum", "Gbyte", "1,234.5");
  text += Row(0, name, "Mem", "Memory Throughput", "Tbyte/second", "1.5");  // not the % one
  text += "==PROF== Disconnected from process 77\n";
  text += Row(1, "other_kernel", "SOL", "gpu__time_duration.sum", "usecond", "2,500");
  text += Row(1, "other_kernel", "Occ", "Achieved Occupancy", "%", "12");
  text += Row(1, "other_kernel", "Occ", "Achieved Occupancy", "%", "99");  // a duplicate: the first is kept
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}}) {
    const NcuReport r = ReadText(text, chunk);
    ASSERT_EQ(r.launches.size(), 2u) << chunk;
    const NcuLaunch& a = r.launches[0];
    EXPECT_EQ(a.name, "my_op<8, \"x\">(\nfloat *)");
    EXPECT_DOUBLE_EQ(a.get(NcuField::kDurationNs).value_or(0), 1.5e6);     // 1.5 msecond
    EXPECT_DOUBLE_EQ(a.get(NcuField::kSmThroughputPct).value_or(0), 61.25);
    EXPECT_FALSE(a.get(NcuField::kDramThroughputPct));                     // n/a is unknown, not 0
    EXPECT_DOUBLE_EQ(a.get(NcuField::kDramBytes).value_or(0), 1234.5e9);   // "1,234.5" Gbyte
    EXPECT_FALSE(a.get(NcuField::kMemoryThroughputPct));                   // a bandwidth, not a %
    EXPECT_EQ(a.grid[0], 300u);
    EXPECT_EQ(a.block[1], 2u);
    EXPECT_EQ(a.cc, "9.0");
    const NcuLaunch& b = r.launches[1];
    EXPECT_DOUBLE_EQ(b.get(NcuField::kDurationNs).value_or(0), 2.5e6);     // "2,500" usecond
    EXPECT_DOUBLE_EQ(b.get(NcuField::kAchievedOccupancyPct).value_or(0), 12);
    EXPECT_EQ(r.preamble_lines, 5001u);  // 5,000 before the header, one ==PROF== line between rows
    EXPECT_EQ(DiagCount(r, "ncu_preamble"), 5001u);
    EXPECT_EQ(DiagCount(r, "ncu_duplicate_metric"), 1u);
  }
}

TEST(NcuReaderBuilt, RaggedRowsUnknownUnitsAndBadValues) {
  std::string text = kHeader;
  text += Row(3, "k", "SOL", "Duration", "us", "4");
  text += Row(3, "k", "SOL", "Compute (SM) Throughput", "%", "fast");    // not a number: a field ampscope reads
  text += Row(3, "k", "SOL", "L2 Hit Rate", "parsec", "50");             // a unit nobody can scale
  text += Row(3, "k", "Launch", "Function Cache Configuration", "", "CachePreferNone");  // text: fine
  text += Row(3, "k", "X", "my__custom_metric", "furlong", "3");         // unknown unit, not read
  text += "\"3\",\"77\",\"train\",\"h\",\"k\",\"1\",\"7\",\"(64, 2, 1)\",\"(300, 1, 1)\",\"1\",\"9.0\",\"S\",\"M\",\"\","
          "\"1\",\"r\",\"t\",\"d\",\"extra\",\"more\"\n";  // 20 fields under 18 columns
  text += "garbage line without commas\n";
  const NcuReport r = ReadText(text);
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_DOUBLE_EQ(r.launches[0].get(NcuField::kDurationNs).value_or(0), 4000);
  EXPECT_FALSE(r.launches[0].get(NcuField::kSmThroughputPct));
  EXPECT_FALSE(r.launches[0].get(NcuField::kL2HitRatePct));
  EXPECT_EQ(DiagCount(r, "ncu_ragged_row"), 2u);
  EXPECT_EQ(DiagCount(r, "ncu_unknown_unit"), 2u);  // parsec, furlong (each metric once)
  EXPECT_EQ(DiagCount(r, "ncu_bad_value"), 2u);     // "fast", and L2 Hit Rate in parsec
}

TEST(NcuReaderBuilt, WideFormWithUnitsRowAndStallsAndInterleavedLongRows) {
  const std::string wide =
      "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"gpu__time_duration.sum\","
      "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\","
      "\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\","
      "\"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio\",\"sm__inst_executed.avg.per_cycle_active\"\n"
      "\"\",\"\",\"\",\"\",\"nsecond\",\"\",\"\",\"\",\"inst/cycle\"\n"
      "\"0\",\"a\",\"(2, 1, 1)\",\"(32, 1, 1)\",\"1,000\",\"3\",\"1\",\"5\",\"0.75\"\n"
      "\"1\",\"b\",\"(4, 1, 1)\",\"(64, 1, 1)\",\"2000\",\"n/a\",\"n/a\",\"n/a\",\"1.5\"\n";
  const NcuReport r = ReadText(wide);
  EXPECT_EQ(r.shape, NcuShape::kWide);
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_DOUBLE_EQ(r.launches[0].get(NcuField::kDurationNs).value_or(0), 1000);
  EXPECT_DOUBLE_EQ(r.launches[0].get(NcuField::kIpc).value_or(0), 0.75);
  ASSERT_EQ(r.launches[0].stalls.size(), 2u);  // "selected" is the issuing warp, not a stall
  EXPECT_EQ(r.launches[0].stalls[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(r.launches[0].stalls[0].share_pct, 75);  // 3 / (3 + 1)
  EXPECT_TRUE(r.launches[1].stalls.empty());
  EXPECT_EQ(r.metrics.size(), 5u);
  // Long-form rows of two launches interleaved, and the WarpStateStats chart's rows of
  // `--print-details all`.
  std::string text = kHeader;
  text += Row(0, "a", "S", "Duration", "ns", "10") + Row(1, "b", "S", "Duration", "ns", "20") +
          Row(0, "a", "S", "L2 Hit Rate", "%", "30") + Row(1, "b", "S", "L2 Hit Rate", "%", "40") +
          Row(1, "b", "WarpStateStats", "Stall Long Scoreboard", "cycle", "6") +
          Row(1, "b", "WarpStateStats", "Stall MIO Throttle", "cycle", "2") +
          Row(1, "b", "WarpStateStats", "Selected", "cycle", "1");
  const NcuReport l = ReadText(text);
  ASSERT_EQ(l.launches.size(), 2u);
  EXPECT_DOUBLE_EQ(l.launches[1].get(NcuField::kDurationNs).value_or(0), 20);
  EXPECT_DOUBLE_EQ(l.launches[1].get(NcuField::kL2HitRatePct).value_or(0), 40);
  ASSERT_EQ(l.launches[1].stalls.size(), 2u);
  EXPECT_EQ(l.launches[1].stalls[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(l.launches[1].stalls[0].share_pct, 75);  // 6 / (6 + 2)
  EXPECT_EQ(l.launches[1].stalls[1].reason, "mio_throttle");
  EXPECT_EQ(DiagCount(l, "ncu_ragged_row"), 0u);
  EXPECT_EQ(l.preamble_lines, 0u);
}

TEST(NcuReaderBuilt, RepeatedHeaderStartsTheNextOutputsLaunches) {
  // Two ncu outputs concatenated: each numbers its launches from 0, so the second output's ID 0
  // is another launch, not more metrics of the first's (which would read as duplicates). The
  // second output's header may have other columns (an older ncu without Device/CC).
  const std::string older = "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  std::string text = kHeader;
  text += Row(0, "a", "S", "Duration", "ns", "10") + Row(1, "b", "S", "Duration", "ns", "20");
  text += "==PROF== Disconnected from process 77\n" + older;
  text += "\"0\",\"c\",\"S\",\"Duration\",\"usecond\",\"3\"\n\"0\",\"c\",\"S\",\"L2 Hit Rate\",\"%\",\"50\"\n";
  text += kHeader + Row(0, "a", "S", "Duration", "ns", "40");
  for (size_t chunk : {size_t{0}, size_t{3}}) {
    const NcuReport r = ReadText(text, chunk);
    ASSERT_EQ(r.launches.size(), 4u) << chunk;
    EXPECT_EQ(r.launches[0].name, "a");
    EXPECT_EQ(r.launches[1].name, "b");
    EXPECT_EQ(r.launches[2].name, "c");
    EXPECT_EQ(r.launches[2].id, 0);
    EXPECT_DOUBLE_EQ(r.launches[2].get(NcuField::kDurationNs).value_or(0), 3000);
    EXPECT_DOUBLE_EQ(r.launches[2].get(NcuField::kL2HitRatePct).value_or(0), 50);
    EXPECT_EQ(r.launches[2].cc, "");  // the older header has no CC column
    EXPECT_EQ(r.launches[3].name, "a");
    EXPECT_DOUBLE_EQ(r.launches[0].get(NcuField::kDurationNs).value_or(0), 10);
    EXPECT_DOUBLE_EQ(r.launches[3].get(NcuField::kDurationNs).value_or(0), 40);
    EXPECT_EQ(DiagCount(r, "ncu_duplicate_metric"), 0u);
    EXPECT_EQ(r.preamble_lines, 1u);  // the ==PROF== line; the headers are not preamble
  }
}

TEST(NcuReaderBuilt, BadInputIsOneLineWithTheByte) {
  StatusOr<NcuReport> r = ReadNcuCsv(MakeStringByteSource("name,value\nx,1\n"), "other.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_NE(r.status().message().find("other.csv: byte 15: not Nsight Compute CSV output"), std::string::npos)
      << r.status().message();
  StatusOr<NcuReport> empty = ReadNcuCsv(MakeStringByteSource(kHeader), "empty.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no kernel launch rows"), std::string::npos);

  const std::string dir = testing::MakeTempDir("ncu_sniff");
  const std::string rep = dir + "/report.ncu-rep";
  testing::WriteFile(rep, std::string("NV\0\1\2binary", 11));
  EXPECT_EQ(SniffNcuInput(rep), NcuInputKind::kReport);
  EXPECT_EQ(NcuRefusalMessage(rep, NcuInputKind::kReport),
            rep + ": an Nsight Compute report, which ampscope cannot read directly; export it with `ncu -i " + rep +
                " --csv --page raw > " + dir + "/report.csv` and analyze the .csv file");
  const std::string other = dir + "/table.csv";
  testing::WriteFile(other, "a,b\n1,2\n");
  EXPECT_EQ(SniffNcuInput(other), NcuInputKind::kOtherCsv);
  const std::string json = dir + "/trace.json";
  testing::WriteFile(json, "  {\"traceEvents\": []}");
  EXPECT_EQ(SniffNcuInput(json), NcuInputKind::kNotNcu);
  const std::string csv = dir + "/run.txt";
  testing::WriteFile(csv, "==PROF== Connected\n" + std::string(kHeader) + Row(0, "k", "S", "Duration", "ns", "1"));
  EXPECT_EQ(SniffNcuInput(csv), NcuInputKind::kCsv);
  std::filesystem::remove_all(dir);
}

// FLOPs by precision: per precision and path the preferred family (sm__ SASS counts, then smsp__,
// then the nvprof-era flop_count_*); tensor ops summed over destinations, fp8 variants as fp8.
TEST(NcuReaderBuilt, FlopsByPrecisionPreferOneFamily) {
  const std::string wide =
      "\"ID\",\"Kernel Name\",\"sm__sass_thread_inst_executed_op_ffma_pred_on.sum\","
      "\"sm__sass_thread_inst_executed_op_fadd_pred_on.sum\",\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\","
      "\"flop_count_sp\",\"flop_count_hp.sum\",\"sm__ops_path_tensor_src_fp8_e4m3_dst_fp32.sum\","
      "\"sm__ops_path_tensor_src_fp8_e4m3_dst_bf16.sum\",\"sm__ops_path_tensor_src_bf16_dst_fp32.sum\"\n"
      "\"\",\"\",\"inst\",\"inst\",\"inst\",\"\",\"\",\"\",\"\",\"\"\n"
      "\"0\",\"k\",\"100\",\"10\",\"999\",\"7777\",\"64\",\"1,000\",\"24\",\"n/a\"\n";
  const NcuReport r = ReadText(wide);
  ASSERT_EQ(r.launches.size(), 1u);
  std::map<std::string, double> flops;
  for (const NcuFlops& f : r.launches[0].flops) flops[f.precision + "/" + f.path] = f.flop;
  EXPECT_DOUBLE_EQ(flops["fp32/simt"], 210);        // 2 x 100 ffma + 10 fadd (sm__ over smsp__ and flop_count_sp)
  EXPECT_DOUBLE_EQ(flops["fp16/simt"], 64);         // flop_count_hp: the only half-precision source
  EXPECT_DOUBLE_EQ(flops["fp8/tensor"], 1024);      // 1,000 + 24 over both destinations
  EXPECT_EQ(flops.count("bf16/tensor"), 0u);        // n/a: no value, not 0
  EXPECT_EQ(flops.size(), 3u);
}

TEST(NcuReaderBuilt, ByteOrderMarks) {
  const NcuReport r = ReadText("\xEF\xBB\xBF\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                               "\"0\",\"k\",\"Duration\",\"ns\",\"5\"\n");
  ASSERT_EQ(r.launches.size(), 1u);
  const std::string dir = testing::MakeTempDir("ncu_bom");
  const std::string utf16 = dir + "/ps.csv";
  testing::WriteFile(utf16, std::string("\xFF\xFE\"\0I\0D\0\"\0", 10));
  EXPECT_EQ(SniffNcuInput(utf16), NcuInputKind::kOtherCsv);
  EXPECT_NE(NcuRefusalMessage(utf16, NcuInputKind::kOtherCsv).find("UTF-16 text"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(NcuUnits, NumbersAndUnits) {
  using ncu::ParseNcuNumber;
  using ncu::ParseUnit;
  EXPECT_DOUBLE_EQ(ParseNcuNumber("13,485").value_or(0), 13485);
  EXPECT_DOUBLE_EQ(ParseNcuNumber("9,495.42").value_or(0), 9495.42);
  EXPECT_DOUBLE_EQ(ParseNcuNumber("1,234,567").value_or(0), 1234567);
  EXPECT_DOUBLE_EQ(ParseNcuNumber("-2.5e3").value_or(0), -2500);
  EXPECT_FALSE(ParseNcuNumber("1,23"));   // not a thousands separator
  EXPECT_FALSE(ParseNcuNumber("n/a"));
  EXPECT_FALSE(ParseNcuNumber("(32, 4, 1)"));
  EXPECT_TRUE(ncu::IsNotAvailable("n/a"));
  struct Case { const char* unit; ncu::UnitKind kind; double factor; };
  const Case cases[] = {{"ns", ncu::UnitKind::kTime, 1},          {"usecond", ncu::UnitKind::kTime, 1e3},
                        {"ms", ncu::UnitKind::kTime, 1e6},        {"second", ncu::UnitKind::kTime, 1e9},
                        {"Kbyte", ncu::UnitKind::kBytes, 1e3},    {"Mbyte", ncu::UnitKind::kBytes, 1e6},
                        {"GB", ncu::UnitKind::kBytes, 1e9},       {"KiB", ncu::UnitKind::kBytes, 1024},
                        {"Mibyte", ncu::UnitKind::kBytes, 1048576}, {"Ghz", ncu::UnitKind::kFrequency, 1e9},
                        {"Khz", ncu::UnitKind::kFrequency, 1e3},  {"cycle/second", ncu::UnitKind::kFrequency, 1},
                        {"cycle/nsecond", ncu::UnitKind::kFrequency, 1e9}, {"Gbyte/s", ncu::UnitKind::kBandwidth, 1e9},
                        {"%", ncu::UnitKind::kPercent, 1},       {"inst/cycle", ncu::UnitKind::kPlain, 1},
                        {"register/thread", ncu::UnitKind::kPlain, 1}, {"Kcycle", ncu::UnitKind::kPlain, 1e3},
                        {"", ncu::UnitKind::kPlain, 1}};
  for (const Case& c : cases) {
    const ncu::UnitScale u = ParseUnit(c.unit);
    EXPECT_TRUE(u.known) << c.unit;
    EXPECT_EQ(u.kind, c.kind) << c.unit;
    EXPECT_DOUBLE_EQ(u.factor, c.factor) << c.unit;
  }
  EXPECT_FALSE(ParseUnit("parsec").known);
}

// Kernel names as Kineto/CUPTI and Nsight Compute print them meet on one join key.
TEST(KernelJoinKey, KinetoAndNcuSpellingsMeet) {
  const std::pair<const char*, const char*> same[] = {
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
       "void vectorized_elementwise_kernel<4, CUDAFunctor_add<BFloat16>, array<char *, 3>>(int, T2, T3)"},
      {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>("
       "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8::Params)",
       "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"
       "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
       "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>, at::detail::Array<char *, "
       "(int)1>>(int, T2, T3)"},
      {"std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, float>(T13)",
       "enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16, float>(T13)"},
      {"ampere_sgemm_32x32_sliced1x4_tn", "ampere_sgemm_32x32_sliced1x4_tn"},
  };
  for (const auto& [kineto, ncu_name] : same) EXPECT_EQ(KernelJoinKey(kineto), KernelJoinKey(ncu_name)) << kineto;
  EXPECT_NE(KernelJoinKey("ampere_sgemm_32x32_sliced1x4_tn"), KernelJoinKey("ampere_sgemm_128x128_tn"));
  EXPECT_EQ(KernelBaseName(KernelJoinKey("void at::native::reduce_kernel<512, 1>(int)")), "reduce_kernel");
  EXPECT_EQ(KernelBaseName(KernelJoinKey("enable_if<!T7, void>::type kernel<int>(T13)")), "kernel");
}

}  // namespace
}  // namespace ncu_reader_test
}  // namespace ampscope
