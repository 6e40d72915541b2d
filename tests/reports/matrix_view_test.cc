// The contract's view of the report's `matrix` section (reports/contract/matrix_view.h), from
// report JSON written here by hand: every field read with its type, the metrics kept as written,
// and a missing or mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/matrix_view.h"

namespace ampscope::reports {
namespace matrix_view_test {
namespace {

using json = nlohmann::json;

TEST(MatrixView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"matrix": {
    "compute_intensity": {"status": "warn", "headline": {"name": "tensor_core_kernel_pct", "value": 41.5, "unit": "%",
     "source": "kernel classifier"}, "metrics": {"mfu_pct": 12.5, "numbers_of_rank": 4}, "metrics_units": {"mfu_pct": "%"},
     "findings": ["fp32_gemm", "tf32_off"]}}})");
  const std::vector<DimensionView> dims = ReadMatrixView(report);
  ASSERT_EQ(dims.size(), 1u);
  const DimensionView& d = dims[0];
  EXPECT_EQ(d.id, "compute_intensity");
  EXPECT_EQ(d.status, "warn");
  EXPECT_EQ(d.headline.name, "tensor_core_kernel_pct");
  EXPECT_EQ(d.headline.value, ReportValue(41.5));
  EXPECT_EQ(d.headline.unit, "%");
  EXPECT_EQ(d.headline.source, "kernel classifier");
  EXPECT_EQ(d.metrics, json::parse(R"({"mfu_pct": 12.5, "numbers_of_rank": 4})"));
  EXPECT_EQ(d.metrics_units, json::parse(R"({"mfu_pct": "%"})"));
  EXPECT_EQ(d.findings, (std::vector<std::string>{"fp32_gemm", "tf32_off"}));
  EXPECT_EQ(d.numbers_of_rank, 4);
}

TEST(MatrixView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"matrix": {
    "a": {"status": 3, "headline": {"name": null, "value": null, "unit": null, "source": 1}, "findings": ["x", 2]},
    "b": "not an object", "c": {"headline": "none", "metrics": [1]}}})");
  const std::vector<DimensionView> dims = ReadMatrixView(report);
  ASSERT_EQ(dims.size(), 3u);  // one per member, the member's name as id
  EXPECT_EQ(dims[0].id, "a");
  EXPECT_FALSE(dims[0].status);
  EXPECT_EQ(dims[0].headline.name, "");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(dims[0].headline.value));
  EXPECT_EQ(dims[0].headline.unit, "");
  EXPECT_EQ(dims[0].headline.source, "");
  EXPECT_EQ(dims[0].findings, std::vector<std::string>{"x"});  // strings only
  EXPECT_TRUE(dims[0].metrics.is_null());
  EXPECT_EQ(dims[1].id, "b");
  EXPECT_TRUE(dims[1].findings.empty());
  EXPECT_EQ(dims[2].headline.source, "");
  EXPECT_FALSE(dims[2].numbers_of_rank);  // metrics is not an object
  EXPECT_TRUE(ReadMatrixView(json{{"matrix", json::array({1})}}).empty());  // a list, not an object
  EXPECT_TRUE(ReadMatrixView(json::array()).empty());
}

}  // namespace
}  // namespace matrix_view_test
}  // namespace ampscope::reports
