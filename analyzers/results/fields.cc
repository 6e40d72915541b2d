#include "analyzers/results/fields.h"

namespace ampscope {

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kNone: return "";
    case Unit::kUs: return "us";
    case Unit::kMs: return "ms";
    case Unit::kUsPerStep: return "us/step";
    case Unit::kPct: return "%";
    case Unit::kPctOfStep: return "% of step";
    case Unit::kPctOfConv: return "% of conv";
    case Unit::kPctOfKernelTime: return "% of kernel time";
    case Unit::kPctFp32: return "% in fp32/TF32";
    case Unit::kPctStepsSkipped: return "% of steps skipped";
    case Unit::kBytes: return "bytes";
    case Unit::kBytesPerStep: return "bytes/step";
    case Unit::kCount: return "count";
    case Unit::kPerStep: return "/step";
    case Unit::kCallsPerStep: return "calls/step";
    case Unit::kGbs: return "GB/s";
    case Unit::kTflops: return "TFLOP/s";
    case Unit::kFactor: return "x";
    case Unit::kPctFp16: return "% in fp16";
    case Unit::kPctOfDeviceMemory: return "% of device memory";
  }
  return "";
}

const Field* FindField(const FieldList& fields, std::string_view key) {
  for (const Field& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

std::optional<double> FieldNumber(const FieldList& fields, std::string_view key) {
  const Field* f = FindField(fields, key);
  if (f == nullptr) return std::nullopt;
  if (const double* d = std::get_if<double>(&f->value)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(&f->value)) return static_cast<double>(*i);
  return std::nullopt;
}

std::optional<std::string> FieldString(const FieldList& fields, std::string_view key) {
  const Field* f = FindField(fields, key);
  if (f == nullptr) return std::nullopt;
  if (const std::string* s = std::get_if<std::string>(&f->value)) return *s;
  return std::nullopt;
}

bool FieldIsNull(const FieldList& fields, std::string_view key) {
  const Field* f = FindField(fields, key);
  return f != nullptr && std::holds_alternative<std::monostate>(f->value);
}

void SetField(FieldList& fields, Field f) {
  for (Field& x : fields) {
    if (x.key == f.key) {
      x = std::move(f);
      return;
    }
  }
  fields.push_back(std::move(f));
}

}  // namespace ampscope
