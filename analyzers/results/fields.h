// Typed named values: a finding's evidence and a matrix dimension's metrics.
//
// A Field is a key (the report's key, e.g. "exposed_per_step_us"), the unit its value is in
// and the value. Lists of fields keep the order the rule wrote them in; the JSON report writes
// them as an object (keys sorted, as before) and the units as `evidence_units` / `metrics_units`
// ({key: unit name}) for the keys that have one. Renderers show those units next to values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace ampscope {

// What a number is measured in. The names (UnitName) are the report's unit strings, the ones
// render/format.h's WithUnit formats ("us" -> "850 µs", "% of step" -> "33.4% of step",
// "bytes/step" -> "19.3 MB/step", "/step" -> "46/step").
enum class Unit : uint8_t {
  kNone,              // ""              a plain number, a ratio, an id (a step number)
  kUs,                // "us"            microseconds
  kMs,                // "ms"
  kUsPerStep,         // "us/step"
  kPct,               // "%"             0-100
  kPctOfStep,         // "% of step"     share of the analysed step time
  kPctOfConv,         // "% of conv"     share of convolution kernel time
  kPctOfKernelTime,   // "% of kernel time"
  kPctFp32,           // "% in fp32/TF32" share of Tensor-Core-eligible op time not in fp16/bf16/fp8 (fp32 inputs, TF32 math or not)
  kPctStepsSkipped,   // "% of steps skipped"
  kBytes,             // "bytes"
  kBytesPerStep,      // "bytes/step"
  kCount,             // "count"
  kPerStep,           // "/step"         a count per step
  kCallsPerStep,      // "calls/step"
  kGbs,               // "GB/s"          (= bytes/ns)
  kTflops,            // "TFLOP/s"
  kFactor,            // "x"             a multiplier
  kPctFp16,           // "% in fp16"     fp16 share of low-precision matmul time
  kPctOfDeviceMemory, // "% of device memory"
};
const char* UnitName(Unit u);  // "" for kNone

// Records that rules list in their evidence.
struct KernelTime {  // a kernel name aggregated over the analysed steps
  std::string name;
  int64_t count = 0;
  double time_us = 0;
};
struct TimeSpan {  // a range on the trace clock
  double start_us = 0;
  double end_us = 0;
  double dur_us = 0;
};

struct Field;
using FieldList = std::vector<Field>;  // a record: named values in order

using Value = std::variant<std::monostate,  // null: not measured
                           bool, int64_t, double, std::string, std::vector<std::string>, std::vector<int64_t>,
                           std::vector<KernelTime>, std::vector<TimeSpan>,
                           FieldList,                // a nested record (a breakdown by cause, calls by name)
                           std::vector<FieldList>>;  // a list of records (GEMM shapes, chains, sync calls)

struct Field {
  std::string key;
  Value value;
  Unit unit = Unit::kNone;

  Field() = default;
  Field(std::string k, Value v, Unit u = Unit::kNone) : key(std::move(k)), value(std::move(v)), unit(u) {}
  // Integers of any width are int64_t (the report writes them without a decimal point).
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Field(std::string k, T v, Unit u = Unit::kNone) : Field(std::move(k), Value(static_cast<int64_t>(v)), u) {}
  Field(std::string k, float v, Unit u = Unit::kNone) : Field(std::move(k), Value(static_cast<double>(v)), u) {}
  Field(std::string k, double v, Unit u = Unit::kNone) : Field(std::move(k), Value(v), u) {}
  Field(std::string k, bool v, Unit u = Unit::kNone) : Field(std::move(k), Value(v), u) {}
  Field(std::string k, const char* v, Unit u = Unit::kNone) : Field(std::move(k), Value(std::string(v)), u) {}
  Field(std::string k, std::string v, Unit u = Unit::kNone) : Field(std::move(k), Value(std::move(v)), u) {}
  // An optional number: nullopt is null.
  Field(std::string k, std::optional<double> v, Unit u = Unit::kNone)
      : Field(std::move(k), v ? Value(*v) : Value(), u) {}
};

// The field named `key` (nullptr when absent).
const Field* FindField(const FieldList& fields, std::string_view key);
// Its value as a number (int64_t or double; nullopt when absent or not a number).
std::optional<double> FieldNumber(const FieldList& fields, std::string_view key);
// Its value as a string (nullopt when absent or not a string).
std::optional<std::string> FieldString(const FieldList& fields, std::string_view key);
// Whether `key` is present with a null value (a metric that could not be measured).
bool FieldIsNull(const FieldList& fields, std::string_view key);
// Sets `key` (replacing a field of that name, else appending).
void SetField(FieldList& fields, Field f);

}  // namespace ampscope
