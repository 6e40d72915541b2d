// Numbers, units, key names and titles (render/format.h). Text width, wrapping and colour are
// in format_text.cc.
#include "render/format.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "reports/contract/inputs_view.h"
#include "reports/contract/report_reader.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

using nlohmann::json;

namespace {

const json& Empty() {
  static const json kEmpty;
  return kEmpty;
}

// The contract's one pointer lookup (reports/contract/report_reader.h).
const json* At(const json& j, const char* pointer) { return reports::FindPath(j, pointer); }

// Trims trailing zeros of a fixed-point number: "12.50" -> "12.5", "3.00" -> "3".
std::string Trim(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// "1234567" -> "1,234,567" (the integer part of a fixed-point number; a sign is kept).
std::string Group(std::string s) {
  size_t begin = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  for (size_t i = end; i > begin + 3; i -= 3) s.insert(i - 3, ",");
  return s;
}

std::string Words(std::string_view key) {
  std::string s(key);
  std::replace(s.begin(), s.end(), '_', ' ');
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

// ---- numbers ----

std::string Pct(std::optional<double> v, int decimals) {
  if (!v) return "n/a";
  return fmt::format("{:.{}f}%", *v, decimals);
}

std::string DurationUs(std::optional<double> us) {
  if (!us) return "n/a";
  const double v = *us, a = std::fabs(v);
  if (a == 0) return "0 µs";
  if (a < 10) return fmt::format("{:.2f} µs", v);
  if (a < 100) return fmt::format("{:.1f} µs", v);
  if (a < 1e3) return fmt::format("{:.0f} µs", v);
  if (a < 1e4) return fmt::format("{:.2f} ms", v / 1e3);
  if (a < 1e6) return fmt::format("{:.1f} ms", v / 1e3);
  if (a < 1e8) return fmt::format("{:.2f} s", v / 1e6);
  return Group(fmt::format("{:.0f}", v / 1e6)) + " s";
}

std::string Bytes(std::optional<double> bytes) {
  if (!bytes) return "n/a";
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = *bytes;
  size_t u = 0;
  while (std::fabs(v) >= 1000 && u + 1 < std::size(kUnits)) v /= 1000, ++u;
  return u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string Count(std::optional<double> v) {
  if (!v) return "n/a";
  const double a = std::fabs(*v);
  if (std::floor(*v) == *v || a >= 100) {
    std::string s = fmt::format("{:.0f}", *v);
    return a >= 1e4 ? Group(s) : s;
  }
  if (a >= 1) return Trim(fmt::format("{:.2f}", *v));
  // Below 1: three significant digits, in fixed point (never "1e-05").
  int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 3, 9);
  std::string s = Trim(fmt::format("{:.{}f}", *v, decimals));
  return s == "0" || s == "-0" ? "0" : s;
}

namespace {

// SI prefixes for a unit the value is counted in ("FLOP"): 1.62e15 FLOP -> "1.62 PFLOP".
std::string Si(double v, std::string_view unit) {
  static constexpr const char* kPrefix[] = {"", "k", "M", "G", "T", "P", "E"};
  size_t p = 0;
  while (std::fabs(v) >= 1000 && p + 1 < std::size(kPrefix)) v /= 1000, ++p;
  return fmt::format("{} {}{}", p == 0 ? Count(v) : Trim(fmt::format("{:.2f}", v)), kPrefix[p], unit);
}

}  // namespace

std::string WithUnit(double v, std::string_view unit) {
  if (!std::isfinite(v)) return "n/a";
  // "bytes/step" = base "bytes" + rest "/step"; "% of step" = "%" + " of step".
  size_t split = unit.find_first_of("/ ");
  std::string_view base = unit.substr(0, split), rest = split == std::string_view::npos ? "" : unit.substr(split);
  if (base == "us" || base == "µs") return DurationUs(v) + std::string(rest);
  if (base == "ns") return DurationUs(v / 1e3) + std::string(rest);
  if (base == "ms") return DurationUs(v * 1e3) + std::string(rest);
  if (base == "s" && rest.empty()) return DurationUs(v * 1e6);
  if (base == "bytes" || base == "B") return Bytes(v) + std::string(rest);
  if (base == "%") return Pct(v, std::fabs(v) >= 0.1 || v == 0 ? 1 : 2) + std::string(rest);
  if (base == "FLOP" && rest.empty()) return Si(v, "FLOP");
  if (unit.empty() || unit == "count") return Count(v);
  // A unit the value is already in ("GB/s", "TFLOP/s", "calls", "calls/step", "kernels").
  return Count(v) + (unit[0] == '/' ? "" : " ") + std::string(unit);
}

std::string Value(const json& v, const std::string& unit) {
  if (v.is_null()) return "n/a";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return WithUnit(v.get<double>(), unit);
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string Value(const reports::ReportValue& v, const std::string& unit) {
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  if (const double* d = std::get_if<double>(&v)) return WithUnit(*d, unit);
  return "n/a";
}

// ---- keys ----

KeyUnit UnitOfKey(std::string_view key) {
  KeyUnit k;
  std::string_view rest = key;
  if (rest == "start_us" || rest == "end_us" || rest == "ts_us" || EndsWith(rest, "_start_us") ||
      EndsWith(rest, "_end_us")) {
    k.time_point = true;
    k.unit = "us";
    k.label = Words(rest.substr(0, rest.size() - 3));
    return k;
  }
  if (EndsWith(rest, "_per_step") && rest.size() > 9) {
    k.per = "step";
    rest.remove_suffix(9);
  }
  if (rest.size() > 4 && rest.substr(0, 4) == "pct_") {  // "pct_kernels_under_10us"
    k.unit = "%";
    k.label = Words(rest.substr(4));
    return k;
  }
  if (size_t of = rest.find("_pct_of_"); of != std::string_view::npos) {
    k.unit = "%";
    k.of = Words(rest.substr(of + 8));
    k.label = Words(rest.substr(0, of));
    return k;
  }
  static const std::pair<const char*, const char*> kSuffixes[] = {
      {"_pct", "%"},         {"_us", "us"},       {"_ms", "ms"},           {"_ns", "ns"},
      {"_bytes", "bytes"},   {"_gbs", "GB/s"},    {"_tflops", "TFLOP/s"},  {"_flops", "FLOP"},
      {"_count", "count"}};
  for (const auto& [suffix, unit] : kSuffixes) {
    if (EndsWith(rest, suffix) && rest.size() > std::string_view(suffix).size()) {
      k.unit = unit;
      k.label = Words(rest.substr(0, rest.size() - std::string_view(suffix).size()));
      return k;
    }
  }
  if (rest == "bytes") k.unit = "bytes";
  if (rest == "pct") k.unit = "%";
  if (rest == "count") k.unit = "count";
  k.label = Words(rest);
  return k;
}

std::string FormatKeyed(std::string_view key, double v, std::string_view unit) {
  if (!unit.empty()) return WithUnit(v, unit);
  KeyUnit k = UnitOfKey(key);
  std::string s = WithUnit(v, k.unit);
  if (!k.per.empty()) s += "/" + k.per;
  if (!k.of.empty()) s += " of " + k.of;
  return s;
}

namespace {

// Words that keep their own spelling in a human name.
std::string HumanWord(const std::string& w) {
  static const std::map<std::string, std::string> kWords = {
      {"gpu", "GPU"},     {"cpu", "CPU"},       {"h2d", "H2D"},       {"d2h", "D2H"},   {"d2d", "D2D"},
      {"p2p", "P2P"},     {"nccl", "NCCL"},     {"cuda", "CUDA"},     {"api", "API"},   {"hbm", "HBM"},
      {"simt", "SIMT"},   {"gemm", "GEMM"},     {"gemms", "GEMMs"},   {"tflops", "TFLOP/s"},
      {"gbs", "GB/s"},    {"pct", "%"},         {"us", "µs"},         {"ms", "ms"},     {"pc", "PC"},
      {"nvtx", "NVTX"},   {"dataloader", "DataLoader"}, {"warmup", "warm-up"}, {"tc", "Tensor Core"},
      {"amp", "AMP"},     {"id", "id"},         {"est", "estimated"}, {"fp32", "FP32"}, {"dur", "duration"}};
  auto it = kWords.find(w);
  if (it != kWords.end()) return it->second;
  // "10us" -> "10 µs"
  if (w.size() > 2 && EndsWith(w, "us") && std::all_of(w.begin(), w.end() - 2, [](char c) { return c >= '0' && c <= '9'; }))
    return w.substr(0, w.size() - 2) + " µs";
  return w;
}

}  // namespace

std::string HumanKey(std::string_view key) {
  // Names the matrix uses as headlines, spelled as people say them.
  static const std::map<std::string, std::string, std::less<>> kNames = {
      {"tensor_core_utilization_pct", "Tensor Core utilization"},
      {"tensor_core_kernel_time_pct", "Tensor Core kernel time"},
      {"memory_bound_kernel_time_pct", "Memory-bound kernel time"},
      {"kernels_under_10us_pct", "Kernels under 10 µs"},
      {"alloc_calls_per_step_after_warmup", "allocator calls (cudaMalloc/cudaFree, hipMalloc/hipFree) per step after warm-up"},
      {"gpu_busy_pct", "GPU busy"},
      {"fp32_simt_gemm_share_pct", "FP32 SIMT GEMM share"},
      {"est_achieved_occupancy_pct", "Estimated achieved occupancy"},
      {"launch_api_time_pct_of_kernel_time", "Launch API time (share of kernel time)"},
      {"layout_transform_pct_of_conv", "Layout transforms (share of conv time)"},
      {"memory_bound_vs_gemm_time", "Memory-bound time / GEMM time"},
      {"comm_compute_overlap_pct", "Communication/compute overlap"},
      {"syncs_per_step_beyond_grad_scaler", "Syncs per step beyond GradScaler's"},
      {"input_copy_syncs_per_step", "Blocking input copies per step"},
      {"cuda_graph_kernels", "Kernels in CUDA Graphs"},
      // measured (docs/ncu.md)
      {"sm_throughput_pct", "SM throughput"},
      {"dram_throughput_pct", "DRAM throughput"},
      {"memory_throughput_pct", "Memory throughput"},
      {"issue_active_pct", "Issue slots active"},
      {"ipc", "IPC"},
      {"achieved_occupancy_pct", "Achieved occupancy"},
      {"theoretical_occupancy_pct", "Theoretical occupancy"},
      {"l2_hit_rate_pct", "L2 hit rate"},
      {"l1_hit_rate_pct", "L1 hit rate"},
      {"tensor_pipe_active_pct", "Tensor pipe active"},
      {"sm_active_pct", "SM active"},
  };
  if (auto it = kNames.find(key); it != kNames.end()) return it->second;
  std::string_view k = key;
  for (std::string_view suffix : {"_pct", "_us", "_ms", "_gbs", "_tflops"})
    if (EndsWith(k, suffix) && k.size() > suffix.size()) {
      k.remove_suffix(suffix.size());
      break;
    }
  std::string out;
  size_t start = 0;
  while (start <= k.size()) {
    size_t end = k.find('_', start);
    if (end == std::string_view::npos) end = k.size();
    std::string word(k.substr(start, end - start));
    if (!word.empty()) {
      // "tensor core" is a name: "Tensor Core".
      if (word == "tensor" && StartsWith(k.substr(end), "_core")) {
        word = "Tensor Core";
        end += 5;
      } else {
        word = HumanWord(word);
      }
      out += (out.empty() ? "" : " ") + word;
    }
    start = end + 1;
  }
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out.empty() ? std::string(key) : out;
}

// ---- values in a unit ----

namespace {

std::string SignedCount(double value) {
  const bool whole = std::fabs(value - std::round(value)) < 1e-9;
  std::string s = whole ? fmt::format("{:+.0f}", value) : fmt::format("{:+.2f}", value);
  return std::fabs(value) >= 1e4 ? Group(s) : s;
}

}  // namespace

std::string FormatDurationUs(double us) { return DurationUs(us); }
std::string FormatBytes(double bytes) { return Bytes(bytes); }

std::string FormatValue(double value, Unit unit) {
  switch (unit) {
    case Unit::kCount:
      return Count(value);
    case Unit::kBytes:
      return Bytes(value);
    case Unit::kPct:
      return Pct(value);
    case Unit::kMicroseconds:
      return DurationUs(value);
  }
  return Count(value);
}

std::string FormatOptionalValue(const std::optional<double>& value, Unit unit) {
  return value ? FormatValue(*value, unit) : std::string("n/a");
}

std::string FormatDelta(double delta, Unit unit) {
  const char* sign = delta < 0 ? "-" : "+";
  switch (unit) {
    case Unit::kCount:
      return SignedCount(delta);
    case Unit::kBytes:
      return sign + Bytes(std::fabs(delta));
    case Unit::kPct:
      return fmt::format("{:+.1f} pts", delta);
    case Unit::kMicroseconds:
      return sign + DurationUs(std::fabs(delta));
  }
  return SignedCount(delta);
}

std::string FormatRelativeChange(double base, double current) {
  if (base == 0) return current == 0 ? std::string("+0.0%") : std::string("n/a");
  return fmt::format("{:+.1f}%", (current - base) / std::fabs(base) * 100.0);
}

// ---- titles ----

std::string DimensionTitle(const std::string& id) {
  static const std::map<std::string, std::string> kTitles = {
      {"compute_intensity", "Compute intensity"},   {"memory_bandwidth", "Memory bandwidth"},
      {"instruction_efficiency", "Instruction efficiency"}, {"data_locality", "Data locality"},
      {"task_parallelism", "Task parallelism"}};
  auto it = kTitles.find(id);
  return it == kTitles.end() ? HumanKey(id) : it->second;
}

bool AmdOnlyReport(const json& report) {
  const std::vector<reports::DeviceRow> devices = reports::ReadDevices(report);
  if (devices.empty()) return false;
  for (const reports::DeviceRow& d : devices)
    if (d.vendor != "amd") return false;
  return true;
}

std::string InVendorWords(const json& report, std::string text) {
  if (!AmdOnlyReport(report)) return text;
  static constexpr std::string_view kFrom = "Tensor Core", kTo = "Matrix Core";
  for (size_t at = text.find(kFrom); at != std::string::npos; at = text.find(kFrom, at + kTo.size()))
    text.replace(at, kFrom.size(), kTo);
  return text;
}

std::string ChecklistTitle(const std::string& id) {
  static const std::map<std::string, std::string> kTitles = {
      {"tensor_core_utilization", "Tensor Core utilization"},
      {"autocast_coverage", "Autocast coverage"},
      {"grad_scaler", "GradScaler"},
      {"kernel_fusion", "Kernel fusion"},
      {"data_pipeline", "Data pipeline"},
      {"distributed_sync", "Distributed sync"},  // NCCL, RCCL, Gloo or DeepEP alike
      {"memory_fragmentation", "Memory fragmentation"}};
  auto it = kTitles.find(id);
  return it == kTitles.end() ? HumanKey(id) : it->second;
}

std::string ChecklistUnit(const reports::ChecklistItemView& item) {
  if (!item.unit.empty()) return item.unit;
  // What analyzers/diagnosis puts in each item's value today (the report has no unit field
  // yet): Tensor Core kernel share, fp32 share of Tensor-Core-eligible op time, skip rate after
  // warm-up, fusion/DataLoader/communication cost as a share of the step, alloc calls per step.
  static const std::map<std::string, std::string> kUnits = {
      {"tensor_core_utilization", "% of kernel time"},
      {"autocast_coverage", "% in fp32/TF32"},
      {"grad_scaler", "% of steps skipped"},
      {"kernel_fusion", "% of step"},
      {"data_pipeline", "% of step"},
      {"distributed_sync", "% of step"},
      {"memory_fragmentation", "calls/step"}};
  auto it = kUnits.find(item.id);
  return it == kUnits.end() ? "" : it->second;
}

std::string ChecklistFindings(const reports::ChecklistItemView& item) {
  if (item.status != "fail" && item.status != "warn") return "";
  std::string ids;
  for (const std::string& id : item.findings) ids += (ids.empty() ? "" : ", ") + id;
  return ids.empty() ? "" : "findings: " + ids;
}

std::vector<const reports::DimensionView*> DimensionOrder(const std::vector<reports::DimensionView>& matrix) {
  static const std::vector<std::string> kContractOrder = {"compute_intensity", "memory_bandwidth", "instruction_efficiency",
                                                          "data_locality", "task_parallelism"};
  std::vector<const reports::DimensionView*> out;
  for (const std::string& id : kContractOrder)
    for (const reports::DimensionView& d : matrix)
      if (d.id == id) out.push_back(&d);
  for (const reports::DimensionView& d : matrix)
    if (std::find(kContractOrder.begin(), kContractOrder.end(), d.id) == kContractOrder.end()) out.push_back(&d);
  return out;
}

int StatusClass(const std::string& status) {
  if (status == "good" || status == "pass" || status == "ok") return 0;
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

std::string Plural(double n, std::string_view singular, std::string_view plural) {
  std::string word = n == 1 ? std::string(singular) : plural.empty() ? std::string(singular) + "s" : std::string(plural);
  return Count(n) + " " + word;
}

std::string Significant(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0) return "0";
  const int decimals = std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace ampscope::render
