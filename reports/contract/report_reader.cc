#include "reports/contract/report_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "base/read_file.h"
#include "reports/contract/report_fields.h"

namespace ampscope::reports {
namespace {

using nlohmann::json;

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 7: ...";
// the bracketed id means nothing to a user, so it is dropped.
std::string StripExceptionId(const std::string& what) {
  if (!what.empty() && what.front() == '[') {
    auto close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

const char* TypeName(const json& j) { return j.type_name(); }

std::string EscapePointerToken(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

Status FieldError(const std::string& file, const std::string& pointer, const std::string& what) {
  return Status::Error(fmt::format("{}: {}: {}", file, pointer, what));
}

Status RequireObject(const json& parent, const std::string& key, const std::string& file,
                     const std::string& pointer) {
  auto it = parent.find(key);
  if (it == parent.end()) return FieldError(file, pointer, "missing required object");
  if (!it->is_object()) return FieldError(file, pointer, fmt::format("expected an object, got {}", TypeName(*it)));
  return Status::Ok();
}

Status RequireArray(const json& parent, const std::string& key, const std::string& file,
                    const std::string& pointer) {
  auto it = parent.find(key);
  if (it == parent.end()) return FieldError(file, pointer, "missing required array");
  if (!it->is_array()) return FieldError(file, pointer, fmt::format("expected an array, got {}", TypeName(*it)));
  return Status::Ok();
}

Status RequireStringMember(const json& object, const std::string& key, const std::string& file,
                           const std::string& pointer, const std::vector<std::string>& allowed) {
  auto it = object.find(key);
  std::string where = pointer + "/" + EscapePointerToken(key);
  if (it == object.end()) return FieldError(file, where, "missing required string");
  if (!it->is_string()) return FieldError(file, where, fmt::format("expected a string, got {}", TypeName(*it)));
  if (allowed.empty()) return Status::Ok();
  const std::string& value = it->get_ref<const std::string&>();
  for (const auto& a : allowed)
    if (a == value) return Status::Ok();
  return FieldError(file, where, fmt::format("expected one of {}, got \"{}\"", fmt::join(allowed, "|"), value));
}

// Each member of an object must be a number or null (gate_metrics).
Status RequireNumberOrNullMembers(const json& object, const std::string& file, const std::string& pointer) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const json& v = it.value();
    if (v.is_null()) continue;
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      return FieldError(file, pointer + "/" + EscapePointerToken(it.key()),
                        fmt::format("expected a finite number or null, got {}", TypeName(v)));
  }
  return Status::Ok();
}

// Each member must be a scalar (string, number, boolean) or null (environment).
Status RequireScalarMembers(const json& object, const std::string& file, const std::string& pointer) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const json& v = it.value();
    if (v.is_null() || v.is_string() || v.is_number() || v.is_boolean()) continue;
    return FieldError(file, pointer + "/" + EscapePointerToken(it.key()),
                      fmt::format("expected a string or null, got {}", TypeName(v)));
  }
  return Status::Ok();
}

Status ValidateSchema(const json& report, const std::string& file) {
  if (!report.is_object())
    return Status::Error(fmt::format("{}: expected a JSON object (an ampscope report), got {}", file, TypeName(report)));
  auto it = report.find("schema");
  if (it == report.end())
    return FieldError(file, report_field::kSchema, fmt::format("missing; expected \"{}\" (not an ampscope report?)", kReportSchema));
  if (!it->is_string() || it->get_ref<const std::string&>() != kReportSchema)
    return FieldError(file, report_field::kSchema, fmt::format("expected \"{}\", got {}", kReportSchema, it->dump()));
  return Status::Ok();
}

Status ValidateForGate(const json& report, const std::string& file) {
  // steps.durations_us: the per-step times the timing rule tests.
  AMPSCOPE_RETURN_IF_ERROR(RequireObject(report, "steps", file, "/steps"));
  const json& steps = report["steps"];
  AMPSCOPE_RETURN_IF_ERROR(RequireArray(steps, "durations_us", file, report_field::kStepDurationsUs));
  const json& durations = steps["durations_us"];
  for (size_t i = 0; i < durations.size(); ++i) {
    const json& d = durations[i];
    if (!d.is_number() || !std::isfinite(d.get<double>()) || d.get<double>() < 0)
      return FieldError(file, fmt::format("/steps/durations_us/{}", i),
                        fmt::format("expected a finite number >= 0, got {}", d.is_number() ? d.dump() : TypeName(d)));
  }

  AMPSCOPE_RETURN_IF_ERROR(RequireObject(report, "gate_metrics", file, report_field::kGateMetrics));
  AMPSCOPE_RETURN_IF_ERROR(RequireNumberOrNullMembers(report["gate_metrics"], file, report_field::kGateMetrics));

  AMPSCOPE_RETURN_IF_ERROR(RequireObject(report, "environment", file, report_field::kEnvironment));
  AMPSCOPE_RETURN_IF_ERROR(RequireScalarMembers(report["environment"], file, report_field::kEnvironment));

  static const std::vector<std::string> kCheckStatuses = {"pass", "warn", "fail", "unknown", "not_applicable"};
  AMPSCOPE_RETURN_IF_ERROR(RequireArray(report, "checklist", file, report_field::kChecklist));
  const json& checklist = report["checklist"];
  for (size_t i = 0; i < checklist.size(); ++i) {
    std::string where = fmt::format("/checklist/{}", i);
    if (!checklist[i].is_object()) return FieldError(file, where, fmt::format("expected an object, got {}", TypeName(checklist[i])));
    AMPSCOPE_RETURN_IF_ERROR(RequireStringMember(checklist[i], "id", file, where, {}));
    AMPSCOPE_RETURN_IF_ERROR(RequireStringMember(checklist[i], "status", file, where, kCheckStatuses));
  }

  static const std::vector<std::string> kSeverities = {"info", "warning", "critical"};
  AMPSCOPE_RETURN_IF_ERROR(RequireArray(report, "findings", file, report_field::kFindings));
  const json& findings = report["findings"];
  for (size_t i = 0; i < findings.size(); ++i) {
    std::string where = fmt::format("/findings/{}", i);
    if (!findings[i].is_object()) return FieldError(file, where, fmt::format("expected an object, got {}", TypeName(findings[i])));
    AMPSCOPE_RETURN_IF_ERROR(RequireStringMember(findings[i], "id", file, where, {}));
    AMPSCOPE_RETURN_IF_ERROR(RequireStringMember(findings[i], "severity", file, where, kSeverities));
  }

  // kernels.top is optional (only the new-FP32-GEMM rule reads it), but if present it must be usable.
  if (const json* top = FindPath(report, report_field::kKernelsTop)) {
    if (!top->is_array()) return FieldError(file, report_field::kKernelsTop, fmt::format("expected an array, got {}", TypeName(*top)));
    for (size_t i = 0; i < top->size(); ++i) {
      std::string where = fmt::format("/kernels/top/{}", i);
      if (!(*top)[i].is_object()) return FieldError(file, where, fmt::format("expected an object, got {}", TypeName((*top)[i])));
      AMPSCOPE_RETURN_IF_ERROR(RequireStringMember((*top)[i], "name", file, where, {}));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<json> ParseJsonText(std::string_view text, const std::string& display_name) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return Status::Error(fmt::format("{}: invalid JSON at byte {}: {}", display_name, e.byte, StripExceptionId(e.what())));
  } catch (const std::exception& e) {
    return Status::Error(fmt::format("{}: invalid JSON: {}", display_name, StripExceptionId(e.what())));
  }
}

StatusOr<json> LoadJsonFile(const std::string& path) {
  // Capped as merge caps a summary: /dev/zero or a trace given by mistake is one line, not 16 GB.
  StatusOr<std::string> text = ReadFileCapped(path, "a JSON file ampscope reads (a report or a gate config)");
  if (!text.ok()) return text.status();
  return ParseJsonText(*text, path);
}

Status ValidateReport(const json& report, const std::string& display_name, ReportUse use) {
  AMPSCOPE_RETURN_IF_ERROR(ValidateSchema(report, display_name));
  if (use == ReportUse::kGate) AMPSCOPE_RETURN_IF_ERROR(ValidateForGate(report, display_name));
  return Status::Ok();
}

StatusOr<json> LoadReport(const std::string& path, ReportUse use) {
  auto parsed = LoadJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  AMPSCOPE_RETURN_IF_ERROR(ValidateReport(*parsed, path, use));
  return parsed;
}

const json* FindPath(const json& root, std::string_view pointer) {
  const json* node = &root;
  size_t pos = 0;
  if (pointer.empty()) return node;
  if (pointer.front() != '/') return nullptr;
  while (pos < pointer.size()) {
    size_t next = pointer.find('/', pos + 1);
    std::string token(pointer.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1));
    // Unescape RFC 6901 tokens: ~1 is '/', ~0 is '~'.
    std::string key;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        key += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        key += token[i];
      }
    }
    if (node->is_object()) {
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos) return nullptr;
      size_t index = std::strtoull(key.c_str(), nullptr, 10);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    if (next == std::string_view::npos) break;
    pos = next;
  }
  return node;
}

std::optional<double> NumberAt(const json& root, std::string_view pointer) {
  const json* node = FindPath(root, pointer);
  if (node == nullptr || !node->is_number()) return std::nullopt;
  double v = node->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::string> StringAt(const json& root, std::string_view pointer) {
  const json* node = FindPath(root, pointer);
  if (node == nullptr || !node->is_string()) return std::nullopt;
  return node->get<std::string>();
}

std::vector<double> StepDurationsUs(const json& report) {
  std::vector<double> out;
  const json* durations = FindPath(report, report_field::kStepDurationsUs);
  if (durations == nullptr || !durations->is_array()) return out;
  out.reserve(durations->size());
  for (const json& d : *durations)
    if (d.is_number() && std::isfinite(d.get<double>())) out.push_back(d.get<double>());
  return out;
}

}  // namespace ampscope::reports
