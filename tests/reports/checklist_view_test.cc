// The contract's view of the report's `checklist` section (reports/contract/checklist_view.h),
// from report JSON written here by hand: every field read with its type, a value kept as the kind
// the report wrote, and a missing or mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/checklist_view.h"

namespace ampscope::reports {
namespace checklist_view_test {
namespace {

using json = nlohmann::json;

TEST(ChecklistView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"checklist": [
    {"id": "tensor_core_utilization", "status": "warn", "value": 12.5, "unit": "% of kernel time",
     "threshold": ">= 50%", "source": "kernel classifier", "evidence": "fp32 GEMMs", "findings": ["fp32_gemm", "tf32_off"],
     "how_to_know": "record with CUPTI", "numbers_of_rank": 3}]})");
  const std::vector<ChecklistItemView> items = ReadChecklistView(report);
  ASSERT_EQ(items.size(), 1u);
  const ChecklistItemView& item = items[0];
  EXPECT_EQ(item.id, "tensor_core_utilization");
  EXPECT_EQ(item.status, "warn");
  EXPECT_EQ(item.value, ReportValue(12.5));
  EXPECT_EQ(item.unit, "% of kernel time");
  EXPECT_EQ(item.threshold, ">= 50%");
  EXPECT_EQ(item.source, "kernel classifier");
  EXPECT_EQ(item.evidence, "fp32 GEMMs");
  EXPECT_EQ(item.findings, (std::vector<std::string>{"fp32_gemm", "tf32_off"}));
  EXPECT_EQ(item.how_to_know, "record with CUPTI");
  EXPECT_EQ(item.numbers_of_rank, 3.0);
}

TEST(ChecklistView, KeepsTheKindOfEachValue) {
  const json report = json::parse(R"({"checklist": [{"value": "12 of 40"}, {"value": true}, {"value": null}, {"value": [1]}]})");
  const std::vector<ChecklistItemView> items = ReadChecklistView(report);
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].value, ReportValue(std::string("12 of 40")));
  EXPECT_EQ(items[1].value, ReportValue(true));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(items[2].value));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(items[3].value));  // another type: absent
}

TEST(ChecklistView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"checklist": [
    {"id": 1, "status": null, "unit": null, "threshold": 5, "findings": ["a", 2], "numbers_of_rank": "3"}, "not an object"]})");
  const std::vector<ChecklistItemView> items = ReadChecklistView(report);
  ASSERT_EQ(items.size(), 2u);  // one per element, as render iterates them
  EXPECT_EQ(items[0].id, "");
  EXPECT_FALSE(items[0].status);
  EXPECT_EQ(items[0].unit, "");
  EXPECT_FALSE(items[0].threshold);
  EXPECT_EQ(items[0].findings, std::vector<std::string>{"a"});  // strings only
  EXPECT_FALSE(items[0].numbers_of_rank);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(items[0].value));
  EXPECT_EQ(items[1].id, "");
  EXPECT_TRUE(items[1].findings.empty());
  EXPECT_TRUE(ReadChecklistView(json{{"checklist", {{"id", "grad_scaler"}}}}).empty());  // an object, not a list
  EXPECT_TRUE(ReadChecklistView(json::array()).empty());
}

}  // namespace
}  // namespace checklist_view_test
}  // namespace ampscope::reports
