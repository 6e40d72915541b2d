// The reading side of the report contract ("ampscope.report/1"): parsing and validating a report
// for gate and diff, and the one JSON-pointer lookup every reader (render/, gate/) uses. Knows
// only the contract (DESIGN.md, docs/report_schema.md and report_schema.h), never the analyzers:
// render/ and gate/ include it without seeing what the writer is built from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "reports/contract/report_schema.h"

namespace ampscope::reports {

// Parses JSON text. On a syntax error the message is one line:
//   "<display_name>: invalid JSON at byte <offset>: <what the parser expected>"
// where <offset> is nlohmann's parse_error::byte (1-based position of the bad byte).
StatusOr<nlohmann::json> ParseJsonText(std::string_view text, const std::string& display_name);

// Reads and parses a JSON file ("cannot read <path>: <errno text>" when it cannot be opened).
StatusOr<nlohmann::json> LoadJsonFile(const std::string& path);

// How much of the contract a consumer needs.
enum class ReportUse {
  kGate,  // schema, steps.durations_us, gate_metrics, environment, checklist, findings
  kDiff,  // schema only: everything else is shown as "n/a" when absent
};

// Checks the schema string and the types of the fields `use` relies on. Errors name the file
// and the JSON pointer of the offending field, e.g.
//   "b.json: /steps/durations_us/3: expected a finite number >= 0, got string".
Status ValidateReport(const nlohmann::json& report, const std::string& display_name, ReportUse use);

// LoadJsonFile + ValidateReport.
StatusOr<nlohmann::json> LoadReport(const std::string& path, ReportUse use);

// Lenient accessors (RFC 6901 pointers): a missing field, a path through a scalar, a malformed
// pointer or a field of another type gives nullopt / nullptr, never an exception.
const nlohmann::json* FindPath(const nlohmann::json& root, std::string_view pointer);
std::optional<double> NumberAt(const nlohmann::json& root, std::string_view pointer);
std::optional<std::string> StringAt(const nlohmann::json& root, std::string_view pointer);
// steps.durations_us (µs per step), in report order.
std::vector<double> StepDurationsUs(const nlohmann::json& report);

}  // namespace ampscope::reports
