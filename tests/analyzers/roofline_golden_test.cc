// The roofline op table against TraceLens's perf report for the same trace.
//
// Golden values: shared/traces/golden/tracelens_mi300_qwen/GEMM.csv and SDPA_fwd.csv, TraceLens's
// reference perf report (AMD-AGI/TraceLens tests/traces/compare_test_e2e/reference/
// mi300_perf_report_csvs/) for shared/traces/kineto/tracelens_mi300_qwen/ (Qwen1.5-0.5B bf16
// inference on an MI300X). The test parses every row of both CSVs and requires, per row:
//   - the call count (name_count) exactly;
//   - GFLOP per call (GFLOPS_first) and bytes per call (Data Moved (MB)_first x 2^20) to the
//     printed digits, and FLOP/byte;
//   - achieved TFLOP/s (TFLOPS/s_mean) and TB/s (TB/s_mean) within 3% (TraceLens times kernels
//     from float microseconds; ampscope from exact ns);
//   - the kernel time sum within 3%, and the precision of the "Compute Spec" column.
// TraceLens analyses the whole trace, so the op table here does too (no step windows).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analyzers/analyze.h"
#include "analyzers/context/op_tree.h"
#include "analyzers/roofline/roofline.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope {
namespace roofline_golden_test {
namespace {

using nlohmann::json;
using roofline::OpRow;

// RFC 4180 CSV: quoted fields, "" inside quotes. Returns the header and the rows as maps.
std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rec.push_back(field);
      field.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      rec.push_back(field);
      field.clear();
      records.push_back(rec);
      rec.clear();
    } else {
      field.push_back(c);
    }
  }
  if (!field.empty() || !rec.empty()) {
    rec.push_back(field);
    records.push_back(rec);
  }
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != records[0].size()) continue;
    std::map<std::string, std::string> m;
    for (size_t c = 0; c < records[0].size(); ++c) m[records[0][c]] = records[r][c];
    rows.push_back(m);
  }
  return rows;
}

// TraceLens writes Python reprs: ['c10::BFloat16', ''] -> JSON.
json PyList(const std::string& s) {
  std::string t = s;
  for (char& c : t)
    if (c == '\'') c = '"';
  return json::parse(t);
}

double Num(const std::map<std::string, std::string>& row, const std::string& col) {
  auto it = row.find(col);
  EXPECT_NE(it, row.end()) << col;
  return it == row.end() ? 0 : std::strtod(it->second.c_str(), nullptr);
}

std::string QwenTracePath() {
  return testing::SharedPath("traces/kineto/tracelens_mi300_qwen/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
}

class QwenGolden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = QwenTracePath();
    if (!std::filesystem::exists(path)) return;  // each test then says what is missing
    auto t = ReadKinetoTrace(path);
    ASSERT_TRUE(t.ok()) << t.status().message();
    trace_ = new Trace(std::move(t).value());
    tree_ = new OpTree(OpTree::Build(*trace_));
    result_ = new roofline::RooflineResult(
        roofline::AnalyzeRoofline(*trace_, *tree_, StepAnalysis(), roofline::RooflineOptions()));
  }
  static void TearDownTestSuite() {
    delete result_;
    delete tree_;
    delete trace_;
  }

  void CheckCsv(const std::string& csv_name) {
    const std::string csv = testing::SharedPath("traces/golden/tracelens_mi300_qwen/" + csv_name);
    AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(csv), "shared input not available: " + csv);
    AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(QwenTracePath()), "shared input not available: " + QwenTracePath());
    ASSERT_NE(result_, nullptr);
    ASSERT_TRUE(result_->available) << result_->reason;
    const auto golden = ReadCsv(csv);
    ASSERT_FALSE(golden.empty()) << csv;
    for (const auto& g : golden) {
      const std::string name = g.at("name");
      const json dims = json::parse(g.at("Input Dims_first"));
      const json types = PyList(g.at("Input type_first"));
      const json strides = json::parse(g.at("Input Strides_first"));
      const json concrete = PyList(g.at("Concrete Inputs_first"));
      SCOPED_TRACE(name + " " + g.at("Input Dims_first"));
      const OpRow* row = nullptr;
      int matches = 0;
      for (const OpRow& r : result_->ops) {
        if (r.id.op != name || json::parse(r.id.input_dims) != dims || json::parse(r.id.input_types) != types) continue;
        ++matches;
        row = &r;
      }
      ASSERT_EQ(matches, 1) << "rows for this op and shapes";
      (void)strides;
      (void)concrete;
      EXPECT_EQ(row->timing.count, static_cast<uint64_t>(Num(g, "name_count")));
      ASSERT_TRUE(row->work.known) << row->work.note;
      EXPECT_DOUBLE_EQ(row->work.gflop, Num(g, "GFLOPS_first"));
      ASSERT_TRUE(row->work.bytes.has_value());
      EXPECT_DOUBLE_EQ(*row->work.bytes, Num(g, "Data Moved (MB)_first") * 1024 * 1024);
      ASSERT_TRUE(row->work.flop_per_byte.has_value());
      EXPECT_NEAR(*row->work.flop_per_byte, Num(g, "FLOPS/Byte_first"), 1e-9 * Num(g, "FLOPS/Byte_first"));
      ASSERT_TRUE(row->timing.tflops.has_value());
      const double tf = Num(g, "TFLOPS/s_mean");
      EXPECT_NEAR(*row->timing.tflops, tf, 0.03 * tf) << "TFLOP/s";
      ASSERT_TRUE(row->timing.tbps.has_value());
      const double tb = Num(g, "TB/s_mean");
      EXPECT_NEAR(*row->timing.tbps, tb, 0.03 * tb) << "TB/s";
      std::printf("  %s %s: GFLOP %.9g (TraceLens %.9g), TFLOP/s %.3f (%.3f, %+.4f%%), TB/s %.5f (%.5f), calls %llu (%s)\n",
                  name.c_str(), g.at("Input Dims_first").c_str(), row->work.gflop, Num(g, "GFLOPS_first"),
                  *row->timing.tflops, tf, 100 * (*row->timing.tflops / tf - 1), *row->timing.tbps, tb,
                  static_cast<unsigned long long>(row->timing.count), g.at("name_count").c_str());
      const double kt = Num(g, "Kernel Time (µs)_sum");
      EXPECT_NEAR(row->timing.kernel_time_us, kt, 0.03 * kt) << "kernel time";
      // "matrix_bf16" -> bf16
      const std::string spec = g.at("Compute Spec");
      EXPECT_EQ(std::string("matrix_") + PrecisionName(row->id.precision), spec);
      EXPECT_EQ(row->id.unit, roofline::MathUnit::kMatrix);
    }
  }

  static Trace* trace_;
  static OpTree* tree_;
  static roofline::RooflineResult* result_;
};
Trace* QwenGolden::trace_ = nullptr;
OpTree* QwenGolden::tree_ = nullptr;
roofline::RooflineResult* QwenGolden::result_ = nullptr;

TEST_F(QwenGolden, GemmRowsMatchTraceLens) { CheckCsv("GEMM.csv"); }

TEST_F(QwenGolden, SdpaForwardRowsMatchTraceLens) { CheckCsv("SDPA_fwd.csv"); }

TEST_F(QwenGolden, PeaksAreTheMi300xsAndMfuIsDefined) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(QwenTracePath()), "shared input not available: " + QwenTracePath());
  ASSERT_NE(result_, nullptr);
  // deviceProperties: "AMD Instinct MI300X VF", 304 CUs (an SR-IOV function with the whole GPU).
  ASSERT_TRUE(result_->gpu.peak.has_value()) << result_->gpu.match;
  EXPECT_EQ(result_->gpu.peak->id, "MI300X");
  EXPECT_EQ(result_->summary.peak_precision, Precision::kBf16);
  ASSERT_TRUE(result_->summary.peak_tflops.has_value());
  EXPECT_DOUBLE_EQ(*result_->summary.peak_tflops, 1307.4);  // MI300X dense bf16
  ASSERT_TRUE(result_->summary.mfu_pct.has_value()) << result_->summary.mfu_reason;
  EXPECT_GT(*result_->summary.mfu_pct, 0);
  EXPECT_LT(*result_->summary.mfu_pct, 100);
  // Inference: no backward ops, no recompute.
  EXPECT_FALSE(result_->summary.activation_recompute);
  EXPECT_FALSE(result_->summary.hfu_pct.has_value());
}

}  // namespace
}  // namespace roofline_golden_test
}  // namespace ampscope
