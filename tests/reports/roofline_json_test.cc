// The report's `roofline` section: written from the typed result, read back with nlohmann.
// Expected values are the ones put into the hand-made result below.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

#include "analyzers/roofline/roofline_result.h"
#include "reports/roofline_json.h"

namespace ampscope {
namespace roofline_json_test {
namespace {

TEST(RooflineJson, SectionFromTheTypedResult) {
  roofline::RooflineResult r;
  r.available = true;
  r.gpu.device = 0;
  r.gpu.device_name = "NVIDIA H100 80GB HBM3";
  r.gpu.match = "device name";
  r.summary.step_gflop = 5760.94117;
  r.summary.achieved_tflops = 122.85;
  r.summary.peak_tflops = 989.4;
  r.summary.peak_precision = Precision::kBf16;
  r.summary.mfu_pct = 12.4167;
  roofline::StepRoofline st;
  st.number = 6;
  st.time_us = 46892.225;
  st.model_gflop = 5760.94117;
  st.mfu_pct = 12.4167;
  r.steps.push_back(st);
  roofline::OpRow row;
  row.id.op = "aten::mm";
  row.id.input_dims = "[[8944,1024],[1024,2816]]";
  row.id.precision = Precision::kBf16;
  row.id.family = roofline::OpFamily::kGemm;
  row.work.known = true;
  row.work.gflop = 51.581550592;
  row.work.bytes = 74457088;
  row.work.flop_per_byte = 692.7688;
  row.timing.count = 48;
  row.timing.kernel_time_us = 5308.273;
  row.timing.tflops = 466.8243;
  row.roof.bound = "compute";
  row.roof.pct_of_peak = 47.2;
  r.ops.push_back(row);
  roofline::OpRow unknown = row;
  unknown.id.op = "aten::convolution";
  unknown.work.known = false;
  unknown.work.bytes.reset();
  unknown.work.note = "stride/padding/dilation not recorded";
  r.ops.push_back(unknown);
  r.ops_total = 2;
  r.math_used = {{Precision::kBf16, roofline::MathUnit::kMatrix}};

  RankAnalysis ra;
  ra.roofline = std::make_shared<const roofline::RooflineResult>(r);
  const nlohmann::json j = RooflineSection(ra);
  EXPECT_TRUE(j["available"].get<bool>());
  EXPECT_EQ(j["peak_precision"], "bf16");
  EXPECT_DOUBLE_EQ(j["mfu_pct"].get<double>(), 12.417);
  EXPECT_DOUBLE_EQ(j["step_gflop"].get<double>(), 5760.94117);
  EXPECT_TRUE(j["hfu_pct"].is_null());
  EXPECT_EQ(j["gpu"]["name"], "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(j["steps"].size(), 1u);
  EXPECT_EQ(j["steps"][0]["step"], 6);
  ASSERT_EQ(j["ops"].size(), 2u);
  EXPECT_EQ(j["ops_total"], 2);
  const nlohmann::json& op = j["ops"][0];
  EXPECT_EQ(op["op"], "aten::mm");
  EXPECT_EQ(op["input_dims"], nlohmann::json::parse("[[8944,1024],[1024,2816]]"));
  EXPECT_EQ(op["dtype"], "bf16");
  EXPECT_EQ(op["count"], 48);
  EXPECT_DOUBLE_EQ(op["gflop"].get<double>(), 51.5815506);  // 9 significant digits
  EXPECT_DOUBLE_EQ(op["bytes"].get<double>(), 74457088);
  EXPECT_EQ(op["bound"], "compute");
  EXPECT_EQ(op["pass"], "forward");
  EXPECT_TRUE(j["ops"][1]["gflop"].is_null());  // unknown, never 0
  EXPECT_EQ(j["ops"][1]["note"], "stride/padding/dilation not recorded");
}

TEST(RooflineJson, NotAvailableOrNotComputed) {
  RankAnalysis ra;
  nlohmann::json j = RooflineSection(ra);
  EXPECT_FALSE(j["available"].get<bool>());
  roofline::RooflineResult r;
  r.reason = "no Input Dims recorded: profile with record_shapes=True so that FLOPs can be computed";
  ra.roofline = std::make_shared<const roofline::RooflineResult>(r);
  j = RooflineSection(ra);
  EXPECT_FALSE(j["available"].get<bool>());
  EXPECT_EQ(j["reason"], r.reason);
  EXPECT_FALSE(j.contains("mfu_pct"));
}

}  // namespace
}  // namespace roofline_json_test
}  // namespace ampscope
