// The report's `findings` section (docs/report_schema.md, docs/findings.md: what to fix, ranked)
// as its readers see it: typed, and lenient as render/ has always been (a missing field, or one of
// another type, is nullopt / "" / absent, never an exception). Its field names are declared here
// once (findings_key): the reader (findings_view.cc) and the writer (reports/json_report.cc,
// FindingsSection) both use them. The gate's validator names the section by
// report_field::kFindings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::reports {

namespace findings_key {
inline constexpr const char kFindings[] = "findings";  // the section: top level, and ranks[]
inline constexpr const char kId[] = "id";
inline constexpr const char kSeverity[] = "severity";
inline constexpr const char kDimension[] = "dimension";
inline constexpr const char kChecklist[] = "checklist";
inline constexpr const char kTitle[] = "title";
inline constexpr const char kEvidence[] = "evidence";
inline constexpr const char kEvidenceUnits[] = "evidence_units";
inline constexpr const char kRecommendation[] = "recommendation";
inline constexpr const char kEstSavingPct[] = "est_saving_pct";
inline constexpr const char kConfidence[] = "confidence";
inline constexpr const char kConfidenceReason[] = "confidence_reason";
inline constexpr const char kTimeRangesUs[] = "time_ranges_us";
inline constexpr const char kNumbersOfRank[] = "numbers_of_rank";  // in evidence: a job's finding
}  // namespace findings_key

// time_ranges_us[]: one [start, end] pair, µs on the trace's clock; a bound that is not a number
// is absent.
struct FindingTimeRange {
  std::optional<double> start_us;
  std::optional<double> end_us;
};

// findings[]: one finding.
struct FindingView {
  std::string id;                          // "fp32_gemm", "dataloader_stall", ...
  std::optional<std::string> severity;     // "critical" | "warning" | "info"
  std::string dimension;                   // the matrix dimension it belongs to; "" when null
  std::string checklist;                   // the checklist item it explains; "" when null
  std::string title;
  // The analyzers' named values (analyzers/results/fields.h), as written: their keys are each
  // finding's own, so they stay JSON; render/evidence.cc lays them out. Null when absent.
  nlohmann::json evidence;
  nlohmann::json evidence_units;           // {key: unit} for evidence; null when absent
  std::string recommendation;
  std::optional<double> est_saving_pct;
  std::string confidence;                  // "high" | "medium" | "low"
  std::optional<std::string> confidence_reason;
  std::vector<FindingTimeRange> time_ranges_us;  // one per element of the list, in order
  std::optional<double> numbers_of_rank;   // evidence.numbers_of_rank: a job's finding, whose numbers
};

// One finding, from one element of findings[] (an element that is not an object reads as all
// absent).
FindingView ReadFinding(const nlohmann::json& finding);

// The findings in report order (the analyzers' ranking, docs/findings.md "Ranking"); elements that
// are not objects are left out.
std::vector<FindingView> ReadFindingsView(const nlohmann::json& report);

}  // namespace ampscope::reports
