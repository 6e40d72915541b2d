// The report's `diagnostics` section (docs/report_schema.md: what the readers counted in the
// inputs, by code) as its readers see it: typed, and lenient as render/ has always been (a
// missing field, or one of another type, is nullopt / "" / an empty list, never an exception).
// The section's field names are declared here once (diagnostics_key): the reader
// (diagnostics_view.cc) and the writer (reports/json_report.cc) both use them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace diagnostics_key {
inline constexpr const char kDiagnostics[] = "diagnostics";
inline constexpr const char kCounters[] = "counters";
inline constexpr const char kMessages[] = "messages";
inline constexpr const char kCode[] = "code";
inline constexpr const char kSeverity[] = "severity";
inline constexpr const char kDescription[] = "description";
inline constexpr const char kCount[] = "count";
inline constexpr const char kFile[] = "file";
inline constexpr const char kFirstOffset[] = "first_offset";
inline constexpr const char kMessage[] = "message";
}  // namespace diagnostics_key

// messages[]: one code in one input, with where it was first seen.
struct DiagnosticMessage {
  std::string code;
  std::string severity;     // "info" | "data_loss" | "error"
  std::string description;  // what the code means (the code table's); "" for a code it does not know
  std::optional<double> count;
  std::string file;                   // the input; "" for the job's own
  std::optional<double> first_offset;  // byte offset in the file
  std::string message;                 // the first occurrence's text
};

struct DiagnosticsView {
  std::vector<DiagnosticMessage> messages;               // one per element of messages[]
  std::vector<std::pair<std::string, double>> counters;  // code -> total, the numbers of counters{}, in its order
};

DiagnosticsView ReadDiagnosticsView(const nlohmann::json& report);

}  // namespace ampscope::reports
