#include "analyzers/analysis.h"

namespace ampscope {

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep: return "profiler_step";
    case StepSource::kNvtx: return "nvtx";
    case StepSource::kInferred: return "inferred";
    default: return "none";
  }
}

const char* DimensionStatusName(DimensionStatus s) {
  switch (s) {
    case DimensionStatus::kGood: return "good";
    case DimensionStatus::kWarn: return "warn";
    case DimensionStatus::kBad: return "bad";
    default: return "unknown";
  }
}

const char* CheckStatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass: return "pass";
    case CheckStatus::kWarn: return "warn";
    case CheckStatus::kFail: return "fail";
    case CheckStatus::kNotApplicable: return "not_applicable";
    default: return "unknown";
  }
}

const char* FindingSeverityName(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kWarning: return "warning";
    case FindingSeverity::kCritical: return "critical";
    default: return "info";
  }
}

}  // namespace ampscope
