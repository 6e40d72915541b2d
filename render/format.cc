#include "render/format.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace ampscope::render {

using nlohmann::json;

namespace {

const json& Empty() {
  static const json kEmpty;
  return kEmpty;
}

const json* At(const json& j, const char* pointer) {
  try {
    json::json_pointer p(pointer);
    if (!j.contains(p)) return nullptr;
    return &j.at(p);
  } catch (const std::exception&) {
    return nullptr;  // a path through a non-object, or a malformed pointer
  }
}

// Trims trailing zeros of a fixed-point number: "12.50" -> "12.5", "3.00" -> "3".
std::string Trim(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::optional<double> Number(const json& j, const char* pointer) {
  const json* v = At(j, pointer);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string String(const json& j, const char* pointer, const std::string& fallback) {
  const json* v = At(j, pointer);
  if (v == nullptr || !v->is_string()) return fallback;
  return v->get<std::string>();
}

const json& Section(const json& j, const char* pointer) {
  const json* v = At(j, pointer);
  return v == nullptr ? Empty() : *v;
}

std::string Pct(std::optional<double> v, int decimals) {
  if (!v) return "n/a";
  return fmt::format("{:.{}f}%", *v, decimals);
}

std::string DurationUs(std::optional<double> us) {
  if (!us) return "n/a";
  double v = *us;
  double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.2f} s", v / 1e6);
  if (a >= 1e3) return fmt::format("{:.1f} ms", v / 1e3);
  if (a >= 10) return fmt::format("{:.0f} us", v);
  return fmt::format("{:.2f} us", v);
}

std::string Bytes(std::optional<double> bytes) {
  if (!bytes) return "n/a";
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  double v = *bytes;
  size_t u = 0;
  while (std::fabs(v) >= 1000 && u + 1 < std::size(kUnits)) v /= 1000, ++u;
  return u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string Count(std::optional<double> v) {
  if (!v) return "n/a";
  double a = std::fabs(*v);
  if (a >= 1e7) return fmt::format("{:.3g}", *v);
  if (a >= 100 || std::floor(*v) == *v) return fmt::format("{:.0f}", *v);
  return Trim(fmt::format("{:.2f}", *v));
}

std::string Value(const json& v, const std::string& unit) {
  if (v.is_null()) return "n/a";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) {
    double d = v.get<double>();
    if (!std::isfinite(d)) return "n/a";
    std::string num = Count(d);
    if (unit.empty()) return num;
    if (unit == "%") return num + "%";
    return num + " " + unit;
  }
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string DimensionTitle(const std::string& id) {
  static const std::map<std::string, std::string> kTitles = {
      {"compute_intensity", "Compute intensity"},   {"memory_bandwidth", "Memory bandwidth"},
      {"instruction_efficiency", "Instruction efficiency"}, {"data_locality", "Data locality"},
      {"task_parallelism", "Task parallelism"}};
  auto it = kTitles.find(id);
  return it == kTitles.end() ? id : it->second;
}

std::string ChecklistTitle(const std::string& id) {
  static const std::map<std::string, std::string> kTitles = {
      {"tensor_core_utilization", "Tensor Core utilization"},
      {"autocast_coverage", "Autocast coverage"},
      {"grad_scaler", "GradScaler"},
      {"kernel_fusion", "Kernel fusion"},
      {"data_pipeline", "Data pipeline"},
      {"distributed_sync", "Distributed sync (NCCL)"},
      {"memory_fragmentation", "Memory fragmentation"}};
  auto it = kTitles.find(id);
  return it == kTitles.end() ? id : it->second;
}

std::vector<std::string> DimensionOrder(const json& report) {
  std::vector<std::string> ids = {"compute_intensity", "memory_bandwidth", "instruction_efficiency", "data_locality",
                                  "task_parallelism"};
  const json& m = Section(report, "/matrix");
  if (m.is_object())
    for (const auto& [k, v] : m.items())
      if (std::find(ids.begin(), ids.end(), k) == ids.end()) ids.push_back(k);
  return ids;
}

int StatusClass(const std::string& status) {
  if (status == "good" || status == "pass") return 0;
  if (status == "warn") return 1;
  if (status == "bad" || status == "fail") return 2;
  if (status == "not_applicable") return 4;
  return 3;
}

int SeverityRank(const std::string& severity) {
  if (severity == "critical") return 0;
  if (severity == "warning") return 1;
  return 2;
}

size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string Truncate(std::string_view s, size_t columns) {
  if (DisplayWidth(s) <= columns) return std::string(s);
  if (columns == 0) return "";
  std::string out;
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    bool lead = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (lead && ++n > columns - 1) break;
    out.push_back(s[i]);
  }
  return out + "\xE2\x80\xA6";  // …
}

std::string EvidenceText(const json& evidence, size_t max_columns) {
  std::string out;
  if (evidence.is_object()) {
    for (const auto& [k, v] : evidence.items()) {
      if (!out.empty()) out += ", ";
      out += k + ": ";
      if (v.is_string()) {
        out += v.get<std::string>();
      } else if (v.is_number_float()) {
        out += Count(v.get<double>());
      } else {
        out += v.dump(-1, ' ', false, json::error_handler_t::replace);
      }
    }
  } else if (evidence.is_string()) {
    out = evidence.get<std::string>();
  } else if (!evidence.is_null()) {
    out = evidence.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return max_columns ? Truncate(out, max_columns) : out;
}

namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string InputsSummary(const json& report) {
  const json& inputs = Section(report, "/inputs");
  if (!inputs.is_array() || inputs.empty()) return "no inputs";
  if (inputs.size() == 1) {
    const json& in = inputs[0];
    std::string s = BaseName(String(in, "/path", "?"));
    std::string fmt_name = String(in, "/format");
    if (!fmt_name.empty()) s += " (" + fmt_name + ")";
    return s;
  }
  std::string s = fmt::format("{} ranks: ", inputs.size());
  for (size_t i = 0; i < inputs.size() && i < 3; ++i) s += (i ? ", " : "") + BaseName(String(inputs[i], "/path", "?"));
  if (inputs.size() > 3) s += ", ...";
  return s;
}

std::string DevicesSummary(const json& report) {
  const json& devices = Section(report, "/devices");
  if (!devices.is_array() || devices.empty()) return "unknown device";
  std::vector<std::pair<std::string, int>> groups;  // label -> count, in order of appearance
  for (const json& d : devices) {
    std::string label = String(d, "/name", "unknown GPU");
    std::string cc = String(d, "/compute_capability");
    if (!cc.empty()) label += " (cc " + cc + ")";
    std::string vendor = String(d, "/vendor");
    if (vendor == "amd") label += " [AMD]";
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == label; });
    if (it == groups.end()) {
      groups.emplace_back(label, 1);
    } else {
      it->second++;
    }
  }
  std::string out;
  for (const auto& [label, n] : groups) {
    if (!out.empty()) out += ", ";
    out += n > 1 ? fmt::format("{}x {}", n, label) : label;
  }
  return out;
}

std::string StepsSummary(const json& report) {
  std::optional<double> count = Number(report, "/steps/count");
  std::string source = String(report, "/steps/source", "none");
  if (!count || *count == 0) return "no steps found (the whole trace is analysed)";
  return fmt::format("{} step{} ({})", Count(count), *count == 1 ? "" : "s", source);
}

std::vector<std::pair<std::string, double>> SortedShares(const json& obj) {
  std::vector<std::pair<std::string, double>> out;
  if (!obj.is_object()) return out;
  for (const auto& [k, v] : obj.items())
    if (v.is_number() && std::isfinite(v.get<double>())) out.emplace_back(k, v.get<double>());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::vector<const json*> RankedFindings(const json& report) {
  std::vector<const json*> out;
  const json& findings = Section(report, "/findings");
  if (!findings.is_array()) return out;
  for (const json& f : findings)
    if (f.is_object()) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [](const json* a, const json* b) {
    double sa = Number(*a, "/est_saving_pct").value_or(0), sb = Number(*b, "/est_saving_pct").value_or(0);
    if (sa != sb) return sa > sb;
    return SeverityRank(String(*a, "/severity")) < SeverityRank(String(*b, "/severity"));
  });
  return out;
}

// ---- values in a unit ----

std::string FormatDurationUs(double us) {
  const double magnitude = std::fabs(us);
  if (magnitude < 1000.0) return fmt::format("{:.1f} us", us);
  if (magnitude < 1e6) return fmt::format("{:.2f} ms", us / 1e3);
  return fmt::format("{:.3f} s", us / 1e6);
}

std::string FormatBytes(double bytes) {
  const double magnitude = std::fabs(bytes);
  if (magnitude < 1024.0) return fmt::format("{:.0f} B", bytes);
  if (magnitude < 1024.0 * 1024.0) return fmt::format("{:.2f} KiB", bytes / 1024.0);
  if (magnitude < 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024.0));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

namespace {
std::string FormatCount(double value, bool sign) {
  const bool whole = std::fabs(value - std::round(value)) < 1e-9;
  if (whole) return sign ? fmt::format("{:+.0f}", value) : fmt::format("{:.0f}", value);
  return sign ? fmt::format("{:+.2f}", value) : fmt::format("{:.2f}", value);
}
}  // namespace

std::string FormatValue(double value, Unit unit) {
  switch (unit) {
    case Unit::kCount:
      return FormatCount(value, false);
    case Unit::kBytes:
      return FormatBytes(value);
    case Unit::kPct:
      return fmt::format("{:.1f}%", value);
    case Unit::kMicroseconds:
      return FormatDurationUs(value);
  }
  return fmt::format("{}", value);
}

std::string FormatOptionalValue(const std::optional<double>& value, Unit unit) {
  return value ? FormatValue(*value, unit) : std::string("n/a");
}

std::string FormatDelta(double delta, Unit unit) {
  switch (unit) {
    case Unit::kCount:
      return FormatCount(delta, true);
    case Unit::kBytes:
      return (delta < 0 ? "-" : "+") + FormatBytes(std::fabs(delta));
    case Unit::kPct:
      return fmt::format("{:+.1f} pts", delta);
    case Unit::kMicroseconds:
      return (delta < 0 ? "-" : "+") + FormatDurationUs(std::fabs(delta));
  }
  return fmt::format("{:+}", delta);
}

std::string FormatRelativeChange(double base, double current) {
  if (base == 0) return current == 0 ? std::string("+0.0%") : std::string("n/a");
  return fmt::format("{:+.1f}%", (current - base) / std::fabs(base) * 100.0);
}

}  // namespace ampscope::render
