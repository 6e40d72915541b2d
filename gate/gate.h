// The CI performance gate: compares a current report with a baseline report and gives one verdict
// per gated metric (a JUnit testcase each) and an overall verdict / exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/gate_config.h"

namespace ampscope::gate {

enum class Verdict { kPass, kWarn, kFail, kSkipped };
const char* VerdictName(Verdict verdict);  // "pass" | "warn" | "fail" | "skipped"

// The outcome of one rule on one metric. Display strings are filled for the tables.
struct GateCheck {
  std::string name;  // stable testcase name, e.g. "step_time", "gate_metrics.syncs_per_step", "checklist.grad_scaler"
  Verdict verdict = Verdict::kPass;
  std::string baseline;   // display value
  std::string current;    // display value
  std::string change;     // display change, e.g. "+10.0%" or "+1.00"
  std::string threshold;  // display thresholds, e.g. "warn >+5%, fail >+10%"
  std::string message;    // one line: why this verdict
  nlohmann::json details = nlohmann::json::object();  // machine-readable numbers (p-value, U, medians...)
};

struct EnvironmentDifference {
  std::string field;
  std::string baseline;
  std::string current;
};

struct GateOptions {
  bool allow_env_mismatch = false;
  std::string baseline_name = "baseline";  // shown in outputs (usually the file path)
  std::string current_name = "current";
};

struct GateResult {
  std::vector<GateCheck> checks;
  std::vector<EnvironmentDifference> environment_differences;
  // Differences exist and --allow-env-mismatch was not given: the comparison is not valid and the
  // CLI exits 2 without writing outputs.
  bool environment_blocked = false;
  Verdict overall = Verdict::kPass;  // kFail if any check failed, kWarn if any warned
  std::string baseline_name;
  std::string current_name;

  int failures() const;
  int warnings() const;
  int skipped() const;
  // 0 pass (warnings allowed), 1 regression, 2 environment mismatch.
  int ExitCode() const;
};

// Both reports must have passed ValidateReport(..., ReportUse::kGate).
GateResult RunGate(const nlohmann::json& baseline, const nlohmann::json& current, const GateConfig& config,
                   const GateOptions& options);

}  // namespace ampscope::gate
