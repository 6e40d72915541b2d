// The contract's view of the report's `inputs` and `devices` (reports/contract/inputs_view.h),
// from report JSON written here by hand: every field read with its type, and a missing or
// mistyped field read as absent, never as an exception.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/contract/inputs_view.h"

namespace ampscope::reports {
namespace inputs_view_test {
namespace {

using json = nlohmann::json;

TEST(InputsView, ReadsEveryFieldOfBothSections) {
  const json report = json::parse(R"({
    "inputs": [{"path": "/runs/worker0.pt.trace.json.gz", "format": "kineto", "rank": 0}],
    "devices": [{"id": 0, "name": "", "vendor": "nvidia", "compute_capability": "8.0",
                 "compute_capability_basis": "inferred from kernel names: compute capability >= 8.0",
                 "peak": {"matched": "A100-80GB-SXM4", "match": "architecture"}}]
  })");
  const InputsView v = ReadInputsView(report);
  ASSERT_EQ(v.inputs.size(), 1u);
  EXPECT_EQ(v.inputs[0].path, "/runs/worker0.pt.trace.json.gz");
  EXPECT_EQ(v.inputs[0].format, "kineto");
  ASSERT_EQ(v.devices.size(), 1u);
  const DeviceRow& d = v.devices[0];
  EXPECT_EQ(d.name, "");
  EXPECT_EQ(d.vendor, "nvidia");
  EXPECT_EQ(d.compute_capability, "8.0");
  EXPECT_EQ(d.compute_capability_basis, "inferred from kernel names: compute capability >= 8.0");
  EXPECT_EQ(d.peak_matched, "A100-80GB-SXM4");
  EXPECT_EQ(ReadDevices(report).size(), 1u);
}

TEST(InputsView, AMissingOrMistypedFieldIsAbsent) {
  const json report = json::parse(R"({
    "inputs": [{"path": null, "format": 3}, 7],
    "devices": [{"name": ["x"], "vendor": null, "compute_capability": 8.0, "peak": "A100"}, "gpu"]
  })");
  const InputsView v = ReadInputsView(report);
  ASSERT_EQ(v.inputs.size(), 2u);  // one per element
  EXPECT_FALSE(v.inputs[0].path);
  EXPECT_EQ(v.inputs[0].format, "");
  EXPECT_FALSE(v.inputs[1].path);
  ASSERT_EQ(v.devices.size(), 2u);
  for (const DeviceRow& d : v.devices) {
    EXPECT_EQ(d.name, "");
    EXPECT_EQ(d.vendor, "");
    EXPECT_EQ(d.compute_capability, "");
    EXPECT_EQ(d.peak_matched, "");
  }
  EXPECT_TRUE(ReadInputsView(json{{"inputs", {{"path", "a"}}}, {"devices", nullptr}}).inputs.empty());  // an object
  EXPECT_TRUE(ReadDevices(json::array()).empty());
}

}  // namespace
}  // namespace inputs_view_test
}  // namespace ampscope::reports
