// The report's `trace_integrity` section (docs/report_schema.md: what the trace can be trusted
// for) as its readers see it: typed, and lenient as render/ has always been (a missing field, or
// one of another type, is nullopt / "" / an empty list, never an exception). Its field names are
// declared here once (integrity_key): the reader (integrity_view.cc) and the writer
// (reports/json_report.cc, IntegrityJson) both use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace integrity_key {
inline constexpr const char kTraceIntegrity[] = "trace_integrity";  // top level, and ranks[]
inline constexpr const char kId[] = "id";
inline constexpr const char kStatus[] = "status";
inline constexpr const char kEvidence[] = "evidence";
inline constexpr const char kAffects[] = "affects";
}  // namespace integrity_key

// trace_integrity[]: one check.
struct TraceIntegrityCheck {
  std::string id;                     // "warmup", "sampling", ...
  std::optional<std::string> status;  // "ok" | "warn" | "fail"
  std::string evidence;
  std::vector<std::string> affects;   // the strings of affects[]: what the check casts doubt on
};

// The checks in report order; elements that are not objects are left out.
std::vector<TraceIntegrityCheck> ReadIntegrityView(const nlohmann::json& report);

}  // namespace ampscope::reports
