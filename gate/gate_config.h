// Configuration of `ampscope gate`: which rules run and where their warn and fail tiers lie.
// The JSON format and every default are documented in docs/ci.md ("Gate configuration");
// docs/gate.example.json spells the defaults out in full.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "render/format.h"

namespace ampscope::gate {

enum class Direction { kHigherIsWorse, kLowerIsWorse };
enum class ToleranceMode {
  kAbsolute,     // warn/fail are in the metric's own unit (points for a percentage)
  kRelativePct,  // warn/fail are percent of the baseline value
};
// The unit of a gated value; the shared formatting module (render/format.h) prints it.
using MetricUnit = render::Unit;

// One deterministic counter from the report's gate_metrics object.
struct CounterRule {
  std::string metric;  // key in gate_metrics, e.g. "syncs_per_step"
  bool enabled = true;
  Direction direction = Direction::kHigherIsWorse;
  ToleranceMode mode = ToleranceMode::kRelativePct;
  // A tier trips when the worsening is strictly greater than its value; nullopt disables the tier.
  std::optional<double> warn;
  std::optional<double> fail;
  // Worsening of at most this many metric units never trips (keeps relative rules quiet on tiny
  // counts, e.g. 2 -> 3 kernels is +50% but meaningless).
  double min_change = 0;
  MetricUnit unit = MetricUnit::kCount;
};

// Step time: a regression only if the median grew by more than the threshold AND the one-sided
// Mann-Whitney U test over per-step times is significant at `alpha`.
struct StepTimeRule {
  bool enabled = true;
  std::optional<double> warn_pct = 2.5;  // median slower by more than this percent (and significant)
  std::optional<double> fail_pct = 5.0;
  double alpha = 0.01;
  int min_steps = 3;     // fewer steps on either side: the rule is skipped (never a failure)
  int max_exact_n = 20;  // exact U distribution up to this many steps per side (without ties)
};

enum class CheckStatusLevel { kPass = 0, kWarn = 1, kFail = 2 };

// Checklist items whose status gets worse (pass < warn < fail; unknown and not_applicable on
// either side never count as a regression).
struct ChecklistRule {
  bool enabled = true;
  // A worse status at or above this level is a gate failure; any other worsening is a warning.
  CheckStatusLevel fail_at = CheckStatusLevel::kFail;
  std::vector<std::string> ignore;  // checklist ids not gated
};

// Findings (by id) that are new in the current report, or whose severity rose.
struct FindingsRule {
  bool enabled = true;
  std::vector<std::string> warn_severities = {"warning"};
  std::vector<std::string> fail_severities = {"critical"};
  std::vector<std::string> ignore;  // finding ids not gated
};

// FP32 SIMT GEMM/conv kernels (kernels.top entries with category gemm|conv, precision fp32 and
// tensor_core false) that are not in the baseline's kernels.top; thresholds are their summed share
// of kernel time in percent.
struct NewFp32GemmRule {
  bool enabled = true;
  std::optional<double> warn_pct = 0.5;
  std::optional<double> fail_pct = 2.0;
};

struct EnvironmentRule {
  // environment fields that must match when non-null on both sides.
  std::vector<std::string> fields = {"gpu", "driver", "cuda", "framework"};
};

struct GateConfig {
  StepTimeRule step_time;
  std::vector<CounterRule> counters;  // in output order
  ChecklistRule checklist;
  FindingsRule findings;
  NewFp32GemmRule new_fp32_gemm;
  EnvironmentRule environment;
};

// The documented defaults (docs/ci.md).
GateConfig DefaultGateConfig();

// Parses a config. Every key is optional and overrides the default; unknown keys are errors (a
// typo must not silently disable a rule), except keys starting with '_' which are comments.
StatusOr<GateConfig> ParseGateConfig(const nlohmann::json& config, const std::string& display_name);
StatusOr<GateConfig> LoadGateConfig(const std::string& path);

// The config as JSON, in the format ParseGateConfig reads (`ampscope gate --print-config`).
nlohmann::json GateConfigToJson(const GateConfig& config);

// The unit of a gate_metrics counter: a default rule's unit, else from the name
// ("*_pct" -> pct, "*bytes*" -> bytes, "*_us" -> us, otherwise count).
MetricUnit UnitForMetric(const std::string& metric);

const char* DirectionName(Direction direction);
const char* ToleranceModeName(ToleranceMode mode);
const char* MetricUnitName(MetricUnit unit);

}  // namespace ampscope::gate
