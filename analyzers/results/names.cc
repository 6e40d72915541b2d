#include "analyzers/context/context.h"
#include "analyzers/results/analysis.h"
#include "base/strings.h"

namespace ampscope {

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep: return "profiler_step";
    case StepSource::kNvtx: return "nvtx";
    case StepSource::kInferred: return "inferred";
    case StepSource::kOptimizerStep: return "optimizer_step";
    case StepSource::kDataLoader: return "dataloader";
    case StepSource::kForward: return "forward";
    default: return "none";
  }
}

const char* StepFlagKindName(StepFlagKind k) { return k == StepFlagKind::kCut ? "cut" : "warmup"; }

const char* ConfidenceName(Confidence c) { return c == Confidence::kLow ? "low" : "high"; }

const char* IntegrityStatusName(IntegrityStatus s) {
  switch (s) {
    case IntegrityStatus::kWarn: return "warn";
    case IntegrityStatus::kFail: return "fail";
    default: return "ok";
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

const char* IdleKindName(IdleKind k) {
  switch (k) {
    case IdleKind::kHostWait: return "host_wait";
    case IdleKind::kKernelWait: return "kernel_wait";
    default: return "other";
  }
}

const char* IdleCauseName(IdleCause c) {
  switch (c) {
    case IdleCause::kDataLoader: return "data_loader";
    case IdleCause::kPageable: return "pageable_copy";
    case IdleCause::kAlloc: return "allocator";
    case IdleCause::kSync: return "host_sync";
    case IdleCause::kScalerSync: return "grad_scaler_sync";
    case IdleCause::kHost: return "host_launch";
    case IdleCause::kHostUntraced: return "host_untraced";
    default: return "other";
  }
}

// A short form of a (possibly 1 KB) kernel name for messages: "void ns::kernel<...>(...)" ->
// "kernel<...>" cut at `max` characters.
std::string ShortName(std::string_view name, size_t max) {
  std::string s(name);
  if (StartsWith(s, "void ")) s = s.substr(5);
  // Drop the argument list of a demangled signature.
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0 && i > 0) {
      s = s.substr(0, i);
      break;
    }
  }
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

}  // namespace ampscope
