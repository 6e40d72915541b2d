// The report's `checklist` section (docs/report_schema.md: the optimization checklist, one item
// per check) as its readers see it: typed, and lenient as render/ has always been (a missing
// field, or one of another type, is nullopt / "" / an empty list, never an exception). Its field
// names are declared here once (checklist_key): the reader (checklist_view.cc) and the writer
// (reports/json_report.cc, ChecklistSection) both use them. The gate's validator names the
// section by report_field::kChecklist.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace checklist_key {
inline constexpr const char kChecklist[] = "checklist";  // the section: top level, and ranks[]
inline constexpr const char kId[] = "id";
inline constexpr const char kStatus[] = "status";
inline constexpr const char kValue[] = "value";
inline constexpr const char kUnit[] = "unit";
inline constexpr const char kThreshold[] = "threshold";
inline constexpr const char kSource[] = "source";
inline constexpr const char kEvidence[] = "evidence";
inline constexpr const char kFindings[] = "findings";
inline constexpr const char kHowToKnow[] = "how_to_know";
inline constexpr const char kNumbersOfRank[] = "numbers_of_rank";
}  // namespace checklist_key

// A value the report may write as a number, a string, a boolean or null (absent, or of another
// type: monostate). Kept typed so a reader prints each kind as it always has.
using ReportValue = std::variant<std::monostate, double, std::string, bool>;
ReportValue ValueMember(const nlohmann::json& object, const char* key);

// checklist[]: one item.
struct ChecklistItemView {
  std::string id;                         // "tensor_core_utilization", "grad_scaler", ...
  std::optional<std::string> status;      // "pass" | "warn" | "fail" | "unknown" | "not_applicable"
  ReportValue value;                      // the measured value (the writer: a number or null)
  std::string unit;                       // the value's unit; "" when null
  std::optional<std::string> threshold;
  std::string source;
  std::string evidence;
  std::vector<std::string> findings;      // the strings of findings[]: the ids that explain it
  std::string how_to_know;                // written only when the item says how to find out
  std::optional<double> numbers_of_rank;  // a job's item: whose numbers these are
};

// One item per element of checklist[] (a non-object element reads as all absent); empty when the
// section is not an array.
std::vector<ChecklistItemView> ReadChecklistView(const nlohmann::json& report);

}  // namespace ampscope::reports
