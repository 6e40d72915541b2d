// The report's `matrix` section (docs/report_schema.md: the five-dimension matrix, one entry per
// dimension id) as its readers see it: typed, and lenient as render/ has always been (a missing
// field, or one of another type, is nullopt / "" / absent, never an exception). Its field names
// are declared here once (matrix_key): the reader (matrix_view.cc) and the writer
// (reports/json_report.cc, MatrixSection) both use them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/contract/checklist_view.h"

namespace ampscope::reports {

namespace matrix_key {
inline constexpr const char kMatrix[] = "matrix";  // the section: top level, and ranks[]
inline constexpr const char kStatus[] = "status";
inline constexpr const char kHeadline[] = "headline";
inline constexpr const char kName[] = "name";
inline constexpr const char kValue[] = "value";
inline constexpr const char kUnit[] = "unit";
inline constexpr const char kSource[] = "source";
inline constexpr const char kMetrics[] = "metrics";
inline constexpr const char kMetricsUnits[] = "metrics_units";
inline constexpr const char kFindings[] = "findings";
inline constexpr const char kNumbersOfRank[] = "numbers_of_rank";  // in metrics: a job's dimension
}  // namespace matrix_key

// A dimension's headline: the one number that sums it up.
struct DimensionHeadline {
  std::string name;    // a metric key ("tensor_core_kernel_pct"); "" when null
  ReportValue value;   // the writer: a number or null
  std::string unit;    // "" when null
  std::string source;  // where the value comes from; "unavailable: why" when there is none
};

// matrix.<id>: one dimension.
struct DimensionView {
  std::string id;                      // the member's name: "compute_intensity", ...
  std::optional<std::string> status;   // "good" | "warn" | "bad" | "unknown"
  DimensionHeadline headline;
  // The analyzers' named values (analyzers/results/fields.h), as written: their keys are each
  // dimension's own, so they stay JSON; render/evidence.h's MetricText lays them out. Null when
  // absent.
  nlohmann::json metrics;
  nlohmann::json metrics_units;           // {key: unit}; null when absent
  std::vector<std::string> findings;      // the strings of findings[]: the ids of its findings
  std::optional<double> numbers_of_rank;  // metrics.numbers_of_rank: a job's dimension, whose numbers
};

// One dimension per member of the matrix object, in the object's order (a member that is not an
// object reads as all absent but its id); empty when the section is not an object.
std::vector<DimensionView> ReadMatrixView(const nlohmann::json& report);

}  // namespace ampscope::reports
