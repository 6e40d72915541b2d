// The one formatting module of everything people read: the terminal summary, Markdown and HTML
// (rendered from the JSON report, schema ampscope.report/1, never from analyzer structs, so they
// show the same numbers as report.json) and the gate, diff and kernels outputs.
//
// Rules every output follows:
//   - a missing or null value prints as "n/a", never as 0;
//   - every number carries its unit ("33.4%", "12.3 ms", "1.2 GB", "6.41 calls/step");
//   - no number is printed with an exponent ("1.62e+15");
//   - widths are display columns of UTF-8 text, not bytes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "reports/contract/checklist_view.h"
#include "reports/contract/matrix_view.h"

namespace ampscope::render {

// ---- reading the report JSON ----

// Value at a JSON pointer ("/gpu/busy_pct"), if it is a finite number.
std::optional<double> Number(const nlohmann::json& j, const char* pointer);
// String at a JSON pointer, or `fallback` when absent, null or not a string.
std::string String(const nlohmann::json& j, const char* pointer, const std::string& fallback = "");
// The object/array at a pointer, or an empty one.
const nlohmann::json& Section(const nlohmann::json& j, const char* pointer);

// ---- numbers with their units ----

std::string Pct(std::optional<double> v, int decimals = 1);  // "55.5%", "n/a"
// µs -> "2.50 µs", "850 µs", "12.3 ms", "177.6 ms", "1.25 s"; about 3 significant digits.
std::string DurationUs(std::optional<double> us);
// Bytes in SI units (1 MB = 10^6 bytes, as the analyzers' own texts): "512 B", "19.3 MB", "1.2 GB".
std::string Bytes(std::optional<double> bytes);
// A plain number: "1462", "3.5", "0.25", "123,456", "1,000,000"; never an exponent.
std::string Count(std::optional<double> v);
// `digits` significant digits in fixed notation ("1234", "12.3", "0.00123"): never an exponent.
std::string Significant(double v, int digits = 3);
// A number in a unit as the report spells units: "%" -> "33.4%", "us"/"µs" -> DurationUs,
// "ms" -> DurationUs, "bytes"/"B" -> Bytes, "bytes/step" -> "19.3 MB/step", anything else
// ("calls", "GB/s", "kernels", "calls/step") -> "6.41 calls/step". Empty unit: Count.
std::string WithUnit(double v, std::string_view unit);
// A checklist / headline value: a number with its unit, a string as it is, null -> "n/a".
std::string Value(const nlohmann::json& v, const std::string& unit = "");
std::string Value(const reports::ReportValue& v, const std::string& unit = "");

// ---- units of keys (evidence, matrix metrics) ----

// What a report key says about its value, from its suffix: "exposed_per_step_us" -> label
// "exposed", unit "us", per "step"; "dataloader_pct_of_step" -> "dataloader", "%", of "step";
// "bytes" -> "bytes", "bytes"; "h2d_achieved_gbs" -> "h2d achieved", "GB/s";
// "start_us" -> time point. Keys with no known suffix have an empty unit.
struct KeyUnit {
  std::string label;  // the key without its unit suffix, words separated by spaces
  std::string unit;   // "us", "ms", "%", "bytes", "GB/s", "TFLOP/s", "FLOP", "count", ""
  std::string per;    // "step" for *_per_step
  std::string of;     // "step" for *_pct_of_step, "conv" for *_pct_of_conv, ...
  bool time_point = false;  // start_us / end_us / ts_us: a moment on the trace clock
};
KeyUnit UnitOfKey(std::string_view key);
// A number under `key`, formatted with the unit `unit` when given (a report's evidence_units
// entry), else with the one UnitOfKey infers: "59.3 ms/step", "33.4% of step", "1.2 GB", "46/step".
std::string FormatKeyed(std::string_view key, double v, std::string_view unit = "");
// The human name of a key: "tensor_core_utilization_pct" -> "Tensor Core utilization",
// "kernels_under_10us_pct" -> "Kernels under 10 µs", "h2d_bytes_per_step" -> "H2D bytes per step".
std::string HumanKey(std::string_view key);

// ---- values in a unit (the gate and diff outputs) ----

enum class Unit { kCount, kBytes, kPct, kMicroseconds };

std::string FormatValue(double value, Unit unit);
std::string FormatOptionalValue(const std::optional<double>& value, Unit unit);  // "n/a" when empty
// A signed difference in the unit: "+1", "-20.0 pts", "+1.0 MB", "+10.5 ms".
std::string FormatDelta(double delta, Unit unit);
// "+10.0%"; "n/a" when the base is 0.
std::string FormatRelativeChange(double base, double current);
// Kept for the gate's call sites: the same as DurationUs / Bytes.
std::string FormatDurationUs(double us);
std::string FormatBytes(double bytes);

// ---- titles for the contract ids ----

std::string DimensionTitle(const std::string& id);  // "compute_intensity" -> "Compute intensity"
std::string ChecklistTitle(const std::string& id);  // "grad_scaler" -> "GradScaler"
// AMD GPUs have Matrix Cores (MFMA) where NVIDIA GPUs have Tensor Cores: a report whose devices
// are all AMD says "Matrix Core" wherever a label would say "Tensor Core" (the same length, so
// tables keep their columns). The analyzers' own texts already name the run's unit.
bool AmdOnlyReport(const nlohmann::json& report);
std::string InVendorWords(const nlohmann::json& report, std::string text);
// The unit of a checklist item's value: the item's "unit" field when the report has one, else
// what the analyzers put there today (DESIGN.md's checklist): "% of step", "calls/step", ...
std::string ChecklistUnit(const reports::ChecklistItemView& item);
// "findings: a, b" for an item that warns or fails and names the findings that explain it
// (checklist[].findings), else "".
std::string ChecklistFindings(const reports::ChecklistItemView& item);
// The dimension ids in the contract order (DESIGN.md), then any extra ones in the report.
std::vector<const reports::DimensionView*> DimensionOrder(const std::vector<reports::DimensionView>& matrix);
// "good"/"pass" -> 0 (fine), "warn" -> 1, "bad"/"fail" -> 2, "unknown" -> 3, "not_applicable" -> 4.
int StatusClass(const std::string& status);
// Severity rank for sorting: critical 0, warning 1, info 2.
int SeverityRank(const std::string& severity);
// "1 finding", "2 findings"; "1 more rank", ...
std::string Plural(double n, std::string_view singular, std::string_view plural = "");

// ---- text: widths, cutting and wrapping ----

// Widths are DisplayWidth's (base/strings.h: wide characters 2, combining marks and ANSI
// colour sequences 0), the one definition every output uses.
// Cuts to at most `columns` display columns, ending with "…" when cut.
std::string Truncate(std::string_view s, size_t columns);
// Wraps to lines of at most `width` columns, breaking at spaces. A word wider than the line
// (a kernel name) is broken after "::", ",", "<", "(", "_" or "." where it can be, else hard
// cut; the rest continues on the next line. Newlines in `text` start a new line.
std::vector<std::string> Wrap(std::string_view text, size_t width);
// Wrap with a first-line prefix and an indent for the following lines ("  fix: " + hanging
// indent), every line ending in "\n". `width` includes the prefix.
std::string WrapParagraph(std::string_view text, size_t width, std::string_view first_prefix,
                          std::string_view rest_prefix);

// ---- colour ----

enum class Color { kNone, kGreen, kYellow, kRed, kDim, kCyan, kBold };
// `text` in ANSI colour when `enabled`; as it is otherwise.
std::string Paint(const std::string& text, Color c, bool enabled);
// Colour of a matrix/checklist status and of a finding severity.
Color StatusColor(const std::string& status);
Color SeverityColor(const std::string& severity);

}  // namespace ampscope::render
