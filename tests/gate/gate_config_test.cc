// Gate configuration: the documented defaults, overrides, and config errors.
#include "gate/gate_config.h"

#include <cstdio>

#include <gtest/gtest.h>
#include <unistd.h>

#include "reports/contract/report_reader.h"
#include "support/test_support.h"

namespace ampscope::gate {
namespace gate_config_test {
namespace {

using nlohmann::json;

const CounterRule* FindCounter(const GateConfig& config, const std::string& metric) {
  for (const CounterRule& c : config.counters)
    if (c.metric == metric) return &c;
  return nullptr;
}

TEST(GateConfigTest, ExampleFileSpellsOutTheDefaults) {
  // docs/gate.example.json is documented as "the built-in defaults, spelled out": keep them in sync.
  auto loaded = LoadGateConfig(ampscope::testing::SourcePath("docs/gate.example.json"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(GateConfigToJson(*loaded), GateConfigToJson(DefaultGateConfig()));
}

TEST(GateConfigTest, DocumentedDefaults) {
  // The values docs/ci.md lists in its defaults table.
  const GateConfig config = DefaultGateConfig();
  EXPECT_EQ(config.step_time.warn_pct, 2.5);
  EXPECT_EQ(config.step_time.fail_pct, 5.0);
  EXPECT_EQ(config.step_time.alpha, 0.01);
  EXPECT_EQ(config.step_time.min_steps, 3);
  const CounterRule* syncs = FindCounter(config, "syncs_per_step");
  ASSERT_NE(syncs, nullptr);
  EXPECT_EQ(syncs->mode, ToleranceMode::kAbsolute);
  EXPECT_EQ(syncs->fail, 0.5);
  const CounterRule* tc = FindCounter(config, "tensor_core_kernel_pct");
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(tc->direction, Direction::kLowerIsWorse);
  EXPECT_EQ(tc->fail, 10.0);
  EXPECT_EQ(config.counters.size(), 6u);
  EXPECT_EQ(config.environment.fields, (std::vector<std::string>{"gpu", "driver", "cuda", "framework"}));
}

TEST(GateConfigTest, PartialOverridesKeepOtherDefaults) {
  json j = json::parse(R"({
    "step_time": {"fail_pct": 8, "alpha": 0.001},
    "counters": {"syncs_per_step": {"fail": 2}, "cast_kernels_per_step": {"enabled": false},
                 "nccl_kernels_per_step": {"direction": "higher_is_worse", "mode": "absolute", "fail": 4}},
    "_note": "comments are keys starting with an underscore"
  })");
  auto parsed = ParseGateConfig(j, "gate.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->step_time.fail_pct, 8.0);
  EXPECT_EQ(parsed->step_time.warn_pct, 2.5);
  EXPECT_EQ(parsed->step_time.alpha, 0.001);
  EXPECT_EQ(FindCounter(*parsed, "syncs_per_step")->fail, 2.0);
  EXPECT_EQ(FindCounter(*parsed, "syncs_per_step")->warn, 0.1);
  EXPECT_FALSE(FindCounter(*parsed, "cast_kernels_per_step")->enabled);
  const CounterRule* custom = FindCounter(*parsed, "nccl_kernels_per_step");
  ASSERT_NE(custom, nullptr);
  EXPECT_EQ(custom->fail, 4.0);
  EXPECT_FALSE(custom->warn.has_value());
  // null disables a tier.
  parsed = ParseGateConfig(json::parse(R"({"step_time": {"warn_pct": null}})"), "gate.json");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(parsed->step_time.warn_pct.has_value());
}

TEST(GateConfigTest, ErrorsNameFileAndKey) {
  struct Case {
    const char* config;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"step_tme": {}})", "gate.json: /step_tme: unknown key"},
      {R"({"step_time": {"fail": 5}})", "gate.json: /step_time/fail: unknown key"},
      {R"({"step_time": {"alpha": 1.5}})", "gate.json: /step_time/alpha: expected 0 < alpha < 1"},
      {R"({"step_time": {"warn_pct": 9, "fail_pct": 5}})", "gate.json: /step_time: warn tier (9) must not exceed"},
      {R"({"counters": {"syncs_per_step": {"mode": "percent"}}})",
       "gate.json: /counters/syncs_per_step/mode: expected one of absolute|relative_pct"},
      {R"({"counters": {"syncs_per_step": {"fail": -1}}})", "gate.json: /counters/syncs_per_step/fail: expected a number >= 0"},
      {R"({"counters": {"my_counter": {"fail": 1}}})", "gate.json: /counters/my_counter: a counter that has no defaults needs"},
      {R"({"checklist": {"fail_at": "pass"}})", "gate.json: /checklist/fail_at: expected one of warn|fail"},
      {R"({"findings": {"fail_severities": ["fatal"]}})", "gate.json: /findings/fail_severities: expected values from"},
      {R"([1, 2])", "gate.json: expected a JSON object"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseGateConfig(json::parse(c.config), "gate.json");
    ASSERT_FALSE(parsed.ok()) << c.config;
    EXPECT_EQ(parsed.status().message().rfind(c.expected, 0), 0u) << parsed.status().message();
  }
}

TEST(GateConfigTest, MalformedConfigFile) {
  const std::string dir = ampscope::testing::MakeTempDir("ampscope_gate_config");
  const std::string path = dir + "/gate.json";
  ampscope::testing::WriteFile(path, "{\"step_time\": {\"fail_pct\": 5,}}");
  auto parsed = LoadGateConfig(path);
  ASSERT_FALSE(parsed.ok());
  // The '}' after the trailing comma is byte 30 (hand count: 29 bytes before it).
  EXPECT_EQ(parsed.status().message().rfind(path + ": invalid JSON at byte 30", 0), 0u) << parsed.status().message();
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace gate_config_test
}  // namespace ampscope::gate
