// The one formatting module of everything people read: the terminal summary, Markdown and HTML
// (rendered from the JSON report, schema ampscope.report/1, never from analyzer structs, so they
// show the same numbers as report.json) and the gate/diff outputs. Missing or null values print
// as "n/a", never as 0.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampscope::render {

// Value at a JSON pointer ("/gpu/busy_pct"), if it is a finite number.
std::optional<double> Number(const nlohmann::json& j, const char* pointer);
// String at a JSON pointer, or `fallback` when absent, null or not a string.
std::string String(const nlohmann::json& j, const char* pointer, const std::string& fallback = "");
// The object/array at a pointer, or an empty one.
const nlohmann::json& Section(const nlohmann::json& j, const char* pointer);

std::string Pct(std::optional<double> v, int decimals = 1);            // "55.5%", "n/a"
std::string DurationUs(std::optional<double> us);                      // "177.6 ms", "850 us", "1.25 s"
std::string Bytes(std::optional<double> bytes);                        // "1.5 MB"
std::string Count(std::optional<double> v);                            // "1462", "3.5", "1.2e+06"
// A checklist value / headline value: number with its unit, string as is, null -> "n/a".
std::string Value(const nlohmann::json& v, const std::string& unit = "");

// Titles for the contract ids.
std::string DimensionTitle(const std::string& id);   // "compute_intensity" -> "Compute intensity"
std::string ChecklistTitle(const std::string& id);   // "grad_scaler" -> "GradScaler"
// The dimension ids in the contract order (DESIGN.md), then any extra ones in the report.
std::vector<std::string> DimensionOrder(const nlohmann::json& report);

// "good"/"pass" -> 0 (fine), "warn" -> 1, "bad"/"fail" -> 2, "unknown" -> 3, "not_applicable" -> 4.
int StatusClass(const std::string& status);
// Severity rank for sorting: critical 0, warning 1, info 2.
int SeverityRank(const std::string& severity);

// Display width in terminal columns (UTF-8 code points; no wide-character handling).
size_t DisplayWidth(std::string_view s);
// Cuts to at most `columns` display columns, ending with "…" when cut.
std::string Truncate(std::string_view s, size_t columns);

// "key: value, key: value" for a finding's evidence (nested values as compact JSON).
std::string EvidenceText(const nlohmann::json& evidence, size_t max_columns = 0);

// Header lines: the inputs ("worker0.pt.trace.json.gz" / "16 ranks: rank0.json, ..."),
// the devices ("NVIDIA A100-SXM4-80GB (cc 8.0)", "2x Tesla V100 (cc 7.0)").
std::string InputsSummary(const nlohmann::json& report);
std::string DevicesSummary(const nlohmann::json& report);
// "6 steps (profiler_step)", "no steps found (whole trace analysed)".
std::string StepsSummary(const nlohmann::json& report);

// Object of name -> number, sorted by value descending (non-numbers skipped).
std::vector<std::pair<std::string, double>> SortedShares(const nlohmann::json& obj);

// Findings sorted as ranked in the report (est_saving_pct descending, then severity).
std::vector<const nlohmann::json*> RankedFindings(const nlohmann::json& report);

// ---- values in a unit (the gate and diff outputs) ----

enum class Unit { kCount, kBytes, kPct, kMicroseconds };

// µs -> "812.0 us" / "105.20 ms" / "1.250 s".
std::string FormatDurationUs(double us);
// bytes -> "512 B" / "4.00 KiB" / "1.50 MiB" / "2.00 GiB".
std::string FormatBytes(double bytes);
// A value in its unit: counts without decimals when whole ("420", "0.25"), percent as "62.5%".
std::string FormatValue(double value, Unit unit);
std::string FormatOptionalValue(const std::optional<double>& value, Unit unit);  // "n/a" when empty
// A signed difference in the unit: "+1", "-20.0 pts", "+1.00 MiB", "+10.50 ms".
std::string FormatDelta(double delta, Unit unit);
// "+10.0%"; "n/a" when the base is 0.
std::string FormatRelativeChange(double base, double current);

}  // namespace ampscope::render
