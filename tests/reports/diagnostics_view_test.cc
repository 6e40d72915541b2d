// The contract's view of the report's `diagnostics` section (reports/contract/diagnostics_view.h),
// from report JSON written here by hand: every field read with its type, and a missing or
// mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/diagnostics_view.h"

namespace ampscope::reports {
namespace diagnostics_view_test {
namespace {

using json = nlohmann::json;

TEST(DiagnosticsView, ReadsEveryFieldOfAFullSection) {
  const json report = json::parse(R"({"diagnostics": {
    "counters": {"zero_duration": 1479, "bad_ts": 2},
    "messages": [{"code": "zero_duration", "severity": "info", "description": "Events of zero length, read as instants",
                  "count": 1479, "file": "/runs/w0.json.gz", "first_offset": 5120, "message": "X event of dur 0"}]}})");
  const DiagnosticsView v = ReadDiagnosticsView(report);
  using Counters = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(v.counters, (Counters{{"bad_ts", 2}, {"zero_duration", 1479}}));  // the object's order
  ASSERT_EQ(v.messages.size(), 1u);
  const DiagnosticMessage& m = v.messages[0];
  EXPECT_EQ(m.code, "zero_duration");
  EXPECT_EQ(m.severity, "info");
  EXPECT_EQ(m.description, "Events of zero length, read as instants");
  EXPECT_EQ(m.count, 1479);
  EXPECT_EQ(m.file, "/runs/w0.json.gz");
  EXPECT_EQ(m.first_offset, 5120);
  EXPECT_EQ(m.message, "X event of dur 0");
}

TEST(DiagnosticsView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({"diagnostics": {
    "counters": {"zero_duration": "1479", "bad_ts": 2},
    "messages": [{"code": 3, "description": null, "count": "1", "file": null, "first_offset": null}, "not an object"]}})");
  const DiagnosticsView v = ReadDiagnosticsView(report);
  using Counters = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(v.counters, (Counters{{"bad_ts", 2}}));  // numbers only
  ASSERT_EQ(v.messages.size(), 2u);  // one per element
  for (const DiagnosticMessage& m : v.messages) {
    EXPECT_EQ(m.code, "");
    EXPECT_EQ(m.description, "");
    EXPECT_FALSE(m.count);
    EXPECT_EQ(m.file, "");
    EXPECT_FALSE(m.first_offset);
  }
  const DiagnosticsView none = ReadDiagnosticsView(json{{"diagnostics", {{"counters", json::array()}, {"messages", {{"code", "x"}}}}}});
  EXPECT_TRUE(none.counters.empty());
  EXPECT_TRUE(none.messages.empty());  // an object, not a list
  EXPECT_TRUE(ReadDiagnosticsView(json::array()).messages.empty());
}

}  // namespace
}  // namespace diagnostics_view_test
}  // namespace ampscope::reports
