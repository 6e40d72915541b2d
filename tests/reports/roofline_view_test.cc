// The contract's view of the report's `roofline` section (reports/contract/roofline_view.h), from
// report JSON written here by hand: every field read with its type, and a missing or mistyped
// field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/roofline_view.h"

namespace ampscope::reports {
namespace roofline_view_test {
namespace {

using json = nlohmann::json;

json Roofline() {
  return json::parse(R"({
    "available": true,
    "gpu": {"device": 0, "name": "NVIDIA H100 80GB HBM3", "peak_id": "h100_sxm", "match": "device name",
            "hbm_tbps": 3.35, "roofs": [{"precision": "bf16", "unit": "matrix", "tflops": 989.4},
                                        {"precision": "fp32", "unit": "vector", "tflops": 66.9}]},
    "window": "steps", "step_gflop": 5760.94117, "achieved_tflops": 122.85, "peak_tflops": 989.4,
    "peak_precision": "bf16", "mfu_pct": 12.417, "mfu_reason": null, "hfu_pct": 13.5,
    "steps": [{"step": 6, "time_us": 46892.225, "model_gflop": 5760.94117, "achieved_tflops": 122.85, "mfu_pct": 12.417}],
    "ops": [{"op": "aten::mm", "input_dims": [[8944, 1024], [1024, 2816]], "dtype": "bf16", "pass": "forward",
             "count": 12, "gflop": 51.58, "flop_per_byte": 692.769, "kernel_time_us": 1234.5, "tflops": 501.2,
             "tbps": 0.72, "bound": "compute", "pct_of_peak": 50.66, "pct_note": null, "note": null},
            {"op": "aten::add_", "input_dims": "not json", "dtype": "fp32", "pass": "backward", "count": 3,
             "gflop": null, "kernel_time_us": 10.0, "tbps": 1.5, "bound": "memory", "pct_of_peak": 101.5,
             "pct_note": "fused", "note": "no FLOP model"}],
    "ops_total": 71,
    "coverage": {"kernel_time_us": 2000.0, "modelled_kernel_time_us": 1500.0}
  })");
}

TEST(RooflineView, ReadsEveryFieldOfAFullSection) {
  const RooflineView v = ReadRooflineView(json{{"roofline", Roofline()}});
  const RooflineSection& r = v.report;
  EXPECT_TRUE(r.present);
  EXPECT_TRUE(r.available);
  EXPECT_FALSE(r.reason);
  EXPECT_EQ(r.gpu.peak_id, "h100_sxm");
  EXPECT_EQ(r.gpu.match, "device name");
  EXPECT_EQ(r.gpu.hbm_tbps, 3.35);
  ASSERT_EQ(r.gpu.roofs.size(), 2u);
  EXPECT_EQ(r.gpu.roofs[1].precision, "fp32");
  EXPECT_EQ(r.gpu.roofs[1].unit, "vector");
  EXPECT_EQ(r.gpu.roofs[1].tflops, 66.9);
  EXPECT_EQ(r.window, "steps");
  EXPECT_EQ(r.step_gflop, 5760.94117);
  EXPECT_EQ(r.achieved_tflops, 122.85);
  EXPECT_EQ(r.peak_tflops, 989.4);
  EXPECT_EQ(r.peak_precision, "bf16");
  EXPECT_EQ(r.mfu_pct, 12.417);
  EXPECT_FALSE(r.mfu_reason);  // null
  EXPECT_EQ(r.hfu_pct, 13.5);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].step, 6);
  EXPECT_EQ(r.steps[0].time_us, 46892.225);
  EXPECT_EQ(r.steps[0].model_gflop, 5760.94117);
  EXPECT_EQ(r.steps[0].achieved_tflops, 122.85);
  EXPECT_EQ(r.steps[0].mfu_pct, 12.417);
  ASSERT_EQ(r.ops.size(), 2u);
  const RooflineOp& mm = r.ops[0];
  EXPECT_EQ(mm.op, "aten::mm");
  EXPECT_EQ(mm.input_dims, "[[8944,1024],[1024,2816]]");  // the JSON text of the shapes
  EXPECT_EQ(mm.dtype, "bf16");
  EXPECT_EQ(mm.pass, "forward");
  EXPECT_EQ(mm.count, 12);
  EXPECT_EQ(mm.gflop, 51.58);
  EXPECT_EQ(mm.flop_per_byte, 692.769);
  EXPECT_EQ(mm.kernel_time_us, 1234.5);
  EXPECT_EQ(mm.tflops, 501.2);
  EXPECT_EQ(mm.tbps, 0.72);
  EXPECT_EQ(mm.bound, "compute");
  EXPECT_EQ(mm.pct_of_peak, 50.66);
  EXPECT_EQ(mm.pct_note, "");
  EXPECT_EQ(mm.note, "");
  const RooflineOp& add = r.ops[1];
  EXPECT_EQ(add.input_dims, "not json");  // a string as it is
  EXPECT_FALSE(add.gflop);
  EXPECT_EQ(add.pct_note, "fused");
  EXPECT_EQ(add.note, "no FLOP model");
  EXPECT_EQ(r.ops_total, 71);
  EXPECT_EQ(r.coverage.kernel_time_us, 2000.0);
  EXPECT_EQ(r.coverage.modelled_kernel_time_us, 1500.0);
  EXPECT_EQ(v.ranks, 0u);
  EXPECT_FALSE(v.first_rank_roofline.present);
}

TEST(RooflineView, AMissingOrMistypedFieldIsAbsent) {
  json roof = Roofline();
  roof["available"] = "yes";          // not a boolean: not available
  roof["mfu_pct"] = "12%";            // not a number
  roof.erase("peak_tflops");          // missing
  roof["gpu"] = json::array();        // not an object
  roof["steps"] = {{{"step", 1}}, 7};  // a non-object element reads as all absent
  roof["ops"] = {{"op", "aten::mm"}};  // an object, not a list
  roof["coverage"]["kernel_time_us"] = nullptr;
  const RooflineSection r = ReadRooflineSection(roof);
  EXPECT_TRUE(r.present);
  EXPECT_FALSE(r.available);
  EXPECT_FALSE(r.mfu_pct);
  EXPECT_FALSE(r.peak_tflops);
  EXPECT_FALSE(r.gpu.peak_id);
  EXPECT_EQ(r.gpu.match, "");
  EXPECT_FALSE(r.gpu.hbm_tbps);
  EXPECT_TRUE(r.gpu.roofs.empty());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].step, 1);
  EXPECT_FALSE(r.steps[1].step);
  EXPECT_FALSE(r.steps[1].time_us);
  EXPECT_TRUE(r.ops.empty());
  EXPECT_FALSE(r.coverage.kernel_time_us);
  EXPECT_EQ(r.coverage.modelled_kernel_time_us, 1500.0);

  const RooflineOp op = ReadRooflineSection(json{{"ops", {{{"count", "3"}, {"dtype", 16}}}}}).ops.at(0);
  EXPECT_FALSE(op.count);
  EXPECT_FALSE(op.dtype);
  EXPECT_EQ(op.input_dims, "null");  // absent
  EXPECT_EQ(op.op, "");

  EXPECT_FALSE(ReadRooflineSection(json("roofline")).present);
  EXPECT_FALSE(ReadRooflineView(json::array()).report.present);
  EXPECT_FALSE(ReadRooflineView(json{{"roofline", 3}}).report.present);
}

TEST(RooflineView, AJobReportGivesItsFirstRanksRoofline) {
  const json report = {{"roofline", {{"available", false}, {"reason", "computed per rank: see ranks[].roofline"}}},
                       {"ranks", {{{"rank", 4}, {"roofline", Roofline()}}, {{"rank", 5}}}}};
  const RooflineView v = ReadRooflineView(report);
  EXPECT_TRUE(v.report.present);
  EXPECT_FALSE(v.report.available);
  EXPECT_EQ(v.report.reason, "computed per rank: see ranks[].roofline");
  EXPECT_EQ(v.ranks, 2u);
  EXPECT_EQ(v.first_rank, 4);
  EXPECT_TRUE(v.first_rank_roofline.available);
  EXPECT_EQ(v.first_rank_roofline.ops_total, 71);
}

}  // namespace
}  // namespace roofline_view_test
}  // namespace ampscope::reports
