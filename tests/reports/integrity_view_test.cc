// The contract's view of the report's `trace_integrity` section (reports/contract/integrity_view.h),
// from report JSON written here by hand: every field read with its type, and a missing or
// mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/integrity_view.h"

namespace ampscope::reports {
namespace integrity_view_test {
namespace {

using json = nlohmann::json;

TEST(IntegrityView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"trace_integrity": [
    {"id": "warmup", "status": "warn", "evidence": "step 1 is 3.2x the median", "affects": ["steps", "findings"], "values": {}}]})");
  const std::vector<TraceIntegrityCheck> checks = ReadIntegrityView(report);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].id, "warmup");
  EXPECT_EQ(checks[0].status, "warn");
  EXPECT_EQ(checks[0].evidence, "step 1 is 3.2x the median");
  EXPECT_EQ(checks[0].affects, (std::vector<std::string>{"steps", "findings"}));
}

TEST(IntegrityView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"trace_integrity": [
    {"id": 1, "status": null, "affects": ["steps", 2]}, "not an object", {"affects": "steps"}]})");
  const std::vector<TraceIntegrityCheck> checks = ReadIntegrityView(report);
  ASSERT_EQ(checks.size(), 2u);  // the objects only
  EXPECT_EQ(checks[0].id, "");
  EXPECT_FALSE(checks[0].status);
  EXPECT_EQ(checks[0].evidence, "");
  EXPECT_EQ(checks[0].affects, std::vector<std::string>{"steps"});  // strings only
  EXPECT_TRUE(checks[1].affects.empty());
  EXPECT_TRUE(ReadIntegrityView(json{{"trace_integrity", {{"id", "warmup"}}}}).empty());  // an object, not a list
  EXPECT_TRUE(ReadIntegrityView(json::array()).empty());
}

}  // namespace
}  // namespace integrity_view_test
}  // namespace ampscope::reports
