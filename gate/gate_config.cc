#include "gate/gate_config.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "reports/contract/report_reader.h"

namespace ampscope::gate {

// The report is read through the contract's reader (reports/contract/).
using reports::LoadJsonFile;
namespace {

using nlohmann::json;

// The gate_metrics counters gated by default (docs/report_schema.md), with their documented
// defaults. Why these numbers:
//  - kernels per step is deterministic for a fixed model; +10% means lost fusion or new work.
//  - syncs per step: any extra host-device sync inside the loop is a stall; +0.5 per step fails
//    (one more sync every other step), +0.1 warns (e.g. a new .item() every 10 steps).
//  - H2D bytes per step is fixed by the batch; growth means extra copies. Changes under 64 KiB
//    (token ids, scalars) are ignored.
//  - FP32 GEMM share and Tensor Core share are shares of kernel time, compared in points.
//  - cast kernels per step grow when autocast regions break up or weights ping-pong dtypes.
struct CounterDefault {
  const char* metric;
  Direction direction;
  ToleranceMode mode;
  double warn;
  double fail;
  double min_change;
  MetricUnit unit;
};
constexpr CounterDefault kCounterDefaults[] = {
    {"kernels_per_step", Direction::kHigherIsWorse, ToleranceMode::kRelativePct, 5, 10, 2, MetricUnit::kCount},
    {"syncs_per_step", Direction::kHigherIsWorse, ToleranceMode::kAbsolute, 0.1, 0.5, 0, MetricUnit::kCount},
    {"h2d_bytes_per_step", Direction::kHigherIsWorse, ToleranceMode::kRelativePct, 10, 25, 65536, MetricUnit::kBytes},
    {"fp32_gemm_share_pct", Direction::kHigherIsWorse, ToleranceMode::kAbsolute, 2, 5, 0, MetricUnit::kPct},
    {"tensor_core_kernel_pct", Direction::kLowerIsWorse, ToleranceMode::kAbsolute, 5, 10, 0, MetricUnit::kPct},
    {"cast_kernels_per_step", Direction::kHigherIsWorse, ToleranceMode::kRelativePct, 10, 25, 2, MetricUnit::kCount},
};

struct NamedDirection {
  const char* name;
  Direction value;
};
constexpr NamedDirection kDirections[] = {{"higher_is_worse", Direction::kHigherIsWorse},
                                          {"lower_is_worse", Direction::kLowerIsWorse}};
struct NamedMode {
  const char* name;
  ToleranceMode value;
};
constexpr NamedMode kModes[] = {{"absolute", ToleranceMode::kAbsolute}, {"relative_pct", ToleranceMode::kRelativePct}};
struct NamedUnit {
  const char* name;
  MetricUnit value;
};
constexpr NamedUnit kUnits[] = {{"count", MetricUnit::kCount},
                                {"bytes", MetricUnit::kBytes},
                                {"pct", MetricUnit::kPct},
                                {"us", MetricUnit::kMicroseconds}};
struct NamedLevel {
  const char* name;
  CheckStatusLevel value;
};
constexpr NamedLevel kLevels[] = {{"warn", CheckStatusLevel::kWarn}, {"fail", CheckStatusLevel::kFail}};

const char* const kSeverityNames[] = {"info", "warning", "critical"};

// Unit of a counter that is not in the defaults table, from its name.
MetricUnit GuessUnit(const std::string& metric) {
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return metric.size() >= s.size() && metric.compare(metric.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("_pct")) return MetricUnit::kPct;
  if (metric.find("bytes") != std::string::npos) return MetricUnit::kBytes;
  if (ends_with("_us")) return MetricUnit::kMicroseconds;
  return MetricUnit::kCount;
}

// Reads the members of one config object, remembers which were used, and reports the rest.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string file, std::string pointer)
      : object_(object), file_(std::move(file)), pointer_(std::move(pointer)) {}

  const json* Get(const std::string& key) {
    used_.insert(key);
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  std::string Where(const std::string& key) const { return pointer_ + "/" + key; }
  Status Error(const std::string& key, const std::string& what) const {
    return Status::Error(fmt::format("{}: {}: {}", file_, Where(key), what));
  }

  Status Bool(const std::string& key, bool* out) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_boolean()) return Error(key, fmt::format("expected true or false, got {}", v->type_name()));
    *out = v->get<bool>();
    return Status::Ok();
  }
  // A number >= 0, or null to disable (when allow_null).
  Status Number(const std::string& key, std::optional<double>* out, bool allow_null) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (v->is_null() && allow_null) {
      *out = std::nullopt;
      return Status::Ok();
    }
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0)
      return Error(key, fmt::format("expected a number >= 0{}, got {}", allow_null ? " or null" : "", v->dump()));
    *out = v->get<double>();
    return Status::Ok();
  }
  Status Number(const std::string& key, double* out) {
    std::optional<double> value = *out;
    AMPSCOPE_RETURN_IF_ERROR(Number(key, &value, false));
    *out = *value;
    return Status::Ok();
  }
  Status Integer(const std::string& key, int* out, int min_value) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_number_integer() || v->get<int64_t>() < min_value || v->get<int64_t>() > 1000000)
      return Error(key, fmt::format("expected an integer >= {}, got {}", min_value, v->dump()));
    *out = static_cast<int>(v->get<int64_t>());
    return Status::Ok();
  }
  Status StringList(const std::string& key, std::vector<std::string>* out, const std::vector<std::string>& allowed) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    if (!v->is_array()) return Error(key, fmt::format("expected an array of strings, got {}", v->type_name()));
    std::vector<std::string> values;
    for (const json& item : *v) {
      if (!item.is_string()) return Error(key, fmt::format("expected an array of strings, found {}", item.dump()));
      const std::string& s = item.get_ref<const std::string&>();
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
        return Error(key, fmt::format("expected values from {}, got \"{}\"", fmt::join(allowed, "|"), s));
      values.push_back(s);
    }
    *out = std::move(values);
    return Status::Ok();
  }
  template <typename Named, size_t N, typename T>
  Status Enum(const std::string& key, const Named (&table)[N], T* out) {
    const json* v = Get(key);
    if (v == nullptr) return Status::Ok();
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.name);
    if (v->is_string()) {
      for (const auto& entry : table) {
        if (v->get_ref<const std::string&>() == entry.name) {
          *out = entry.value;
          return Status::Ok();
        }
      }
    }
    return Error(key, fmt::format("expected one of {}, got {}", fmt::join(names, "|"), v->dump()));
  }
  // Everything not read is a typo unless it is a comment key ("_...").
  Status RejectUnknown() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      const std::string& key = it.key();
      if (!key.empty() && key[0] == '_') continue;
      if (used_.count(key) == 0) {
        std::vector<std::string> known(used_.begin(), used_.end());
        return Error(key, fmt::format("unknown key (known here: {})", fmt::join(known, ", ")));
      }
    }
    return Status::Ok();
  }

 private:
  const json& object_;
  std::string file_;
  std::string pointer_;
  std::set<std::string> used_;
};

Status RequireObjectValue(const json* v, const std::string& file, const std::string& where) {
  if (v != nullptr && !v->is_object())
    return Status::Error(fmt::format("{}: {}: expected an object, got {}", file, where, v->type_name()));
  return Status::Ok();
}

Status CheckTiers(const std::optional<double>& warn, const std::optional<double>& fail, const std::string& file,
                  const std::string& where) {
  if (warn && fail && *warn > *fail)
    return Status::Error(fmt::format("{}: {}: warn tier ({}) must not exceed the fail tier ({})", file, where, *warn, *fail));
  return Status::Ok();
}

Status ParseCounter(const json& object, const std::string& file, const std::string& where, bool known,
                    CounterRule* rule) {
  ObjectReader r(object, file, where);
  AMPSCOPE_RETURN_IF_ERROR(r.Bool("enabled", &rule->enabled));
  if (!known) {
    // A counter without defaults must say how to compare it.
    for (const char* key : {"direction", "mode"})
      if (object.find(key) == object.end())
        return Status::Error(fmt::format("{}: {}: a counter that has no defaults needs \"{}\"", file, where, key));
    if (object.find("warn") == object.end() && object.find("fail") == object.end())
      return Status::Error(fmt::format("{}: {}: a counter that has no defaults needs \"warn\" or \"fail\"", file, where));
    rule->warn.reset();
    rule->fail.reset();
  }
  AMPSCOPE_RETURN_IF_ERROR(r.Enum("direction", kDirections, &rule->direction));
  AMPSCOPE_RETURN_IF_ERROR(r.Enum("mode", kModes, &rule->mode));
  AMPSCOPE_RETURN_IF_ERROR(r.Number("warn", &rule->warn, true));
  AMPSCOPE_RETURN_IF_ERROR(r.Number("fail", &rule->fail, true));
  AMPSCOPE_RETURN_IF_ERROR(r.Number("min_change", &rule->min_change));
  AMPSCOPE_RETURN_IF_ERROR(r.Enum("unit", kUnits, &rule->unit));
  AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
  return CheckTiers(rule->warn, rule->fail, file, where);
}

template <typename Named, size_t N, typename T>
const char* NameOf(const Named (&table)[N], T value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

json OptionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

MetricUnit UnitForMetric(const std::string& metric) {
  for (const auto& d : kCounterDefaults)
    if (metric == d.metric) return d.unit;
  return GuessUnit(metric);
}

const char* DirectionName(Direction direction) { return NameOf(kDirections, direction); }
const char* ToleranceModeName(ToleranceMode mode) { return NameOf(kModes, mode); }
const char* MetricUnitName(MetricUnit unit) { return NameOf(kUnits, unit); }

GateConfig DefaultGateConfig() {
  GateConfig config;
  for (const auto& d : kCounterDefaults) {
    CounterRule rule;
    rule.metric = d.metric;
    rule.direction = d.direction;
    rule.mode = d.mode;
    rule.warn = d.warn;
    rule.fail = d.fail;
    rule.min_change = d.min_change;
    rule.unit = d.unit;
    config.counters.push_back(rule);
  }
  return config;
}

StatusOr<GateConfig> ParseGateConfig(const json& root, const std::string& file) {
  GateConfig config = DefaultGateConfig();
  if (!root.is_object())
    return Status::Error(fmt::format("{}: expected a JSON object (a gate config), got {}", file, root.type_name()));
  ObjectReader top(root, file, "");

  if (const json* v = top.Get("step_time")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/step_time"));
    ObjectReader r(*v, file, "/step_time");
    StepTimeRule& rule = config.step_time;
    AMPSCOPE_RETURN_IF_ERROR(r.Bool("enabled", &rule.enabled));
    AMPSCOPE_RETURN_IF_ERROR(r.Number("warn_pct", &rule.warn_pct, true));
    AMPSCOPE_RETURN_IF_ERROR(r.Number("fail_pct", &rule.fail_pct, true));
    AMPSCOPE_RETURN_IF_ERROR(r.Number("alpha", &rule.alpha));
    if (!(rule.alpha > 0 && rule.alpha < 1)) return r.Error("alpha", fmt::format("expected 0 < alpha < 1, got {}", rule.alpha));
    AMPSCOPE_RETURN_IF_ERROR(r.Integer("min_steps", &rule.min_steps, 1));
    AMPSCOPE_RETURN_IF_ERROR(r.Integer("max_exact_n", &rule.max_exact_n, 0));
    if (rule.max_exact_n > 50) return r.Error("max_exact_n", "expected at most 50 (the exact tables grow as n^3)");
    AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
    AMPSCOPE_RETURN_IF_ERROR(CheckTiers(rule.warn_pct, rule.fail_pct, file, "/step_time"));
  }

  if (const json* v = top.Get("counters")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/counters"));
    for (auto it = v->begin(); it != v->end(); ++it) {
      const std::string& metric = it.key();
      if (!metric.empty() && metric[0] == '_') continue;
      std::string where = "/counters/" + metric;
      AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(&it.value(), file, where));
      auto existing = std::find_if(config.counters.begin(), config.counters.end(),
                                   [&](const CounterRule& c) { return c.metric == metric; });
      if (existing != config.counters.end()) {
        AMPSCOPE_RETURN_IF_ERROR(ParseCounter(it.value(), file, where, true, &*existing));
      } else {
        CounterRule rule;
        rule.metric = metric;
        rule.unit = GuessUnit(metric);
        AMPSCOPE_RETURN_IF_ERROR(ParseCounter(it.value(), file, where, false, &rule));
        config.counters.push_back(rule);
      }
    }
  }

  if (const json* v = top.Get("checklist")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/checklist"));
    ObjectReader r(*v, file, "/checklist");
    AMPSCOPE_RETURN_IF_ERROR(r.Bool("enabled", &config.checklist.enabled));
    AMPSCOPE_RETURN_IF_ERROR(r.Enum("fail_at", kLevels, &config.checklist.fail_at));
    AMPSCOPE_RETURN_IF_ERROR(r.StringList("ignore", &config.checklist.ignore, {}));
    AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
  }

  if (const json* v = top.Get("findings")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/findings"));
    ObjectReader r(*v, file, "/findings");
    std::vector<std::string> severities(std::begin(kSeverityNames), std::end(kSeverityNames));
    AMPSCOPE_RETURN_IF_ERROR(r.Bool("enabled", &config.findings.enabled));
    AMPSCOPE_RETURN_IF_ERROR(r.StringList("warn_severities", &config.findings.warn_severities, severities));
    AMPSCOPE_RETURN_IF_ERROR(r.StringList("fail_severities", &config.findings.fail_severities, severities));
    AMPSCOPE_RETURN_IF_ERROR(r.StringList("ignore", &config.findings.ignore, {}));
    AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
  }

  if (const json* v = top.Get("new_fp32_gemm_kernels")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/new_fp32_gemm_kernels"));
    ObjectReader r(*v, file, "/new_fp32_gemm_kernels");
    AMPSCOPE_RETURN_IF_ERROR(r.Bool("enabled", &config.new_fp32_gemm.enabled));
    AMPSCOPE_RETURN_IF_ERROR(r.Number("warn_pct", &config.new_fp32_gemm.warn_pct, true));
    AMPSCOPE_RETURN_IF_ERROR(r.Number("fail_pct", &config.new_fp32_gemm.fail_pct, true));
    AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
    AMPSCOPE_RETURN_IF_ERROR(
        CheckTiers(config.new_fp32_gemm.warn_pct, config.new_fp32_gemm.fail_pct, file, "/new_fp32_gemm_kernels"));
  }

  if (const json* v = top.Get("environment")) {
    AMPSCOPE_RETURN_IF_ERROR(RequireObjectValue(v, file, "/environment"));
    ObjectReader r(*v, file, "/environment");
    AMPSCOPE_RETURN_IF_ERROR(r.StringList("fields", &config.environment.fields, {}));
    AMPSCOPE_RETURN_IF_ERROR(r.RejectUnknown());
  }

  AMPSCOPE_RETURN_IF_ERROR(top.RejectUnknown());
  return config;
}

StatusOr<GateConfig> LoadGateConfig(const std::string& path) {
  auto parsed = LoadJsonFile(path);
  if (!parsed.ok()) return parsed.status();
  return ParseGateConfig(*parsed, path);
}

json GateConfigToJson(const GateConfig& config) {
  json out = json::object();
  const StepTimeRule& st = config.step_time;
  out["step_time"] = {{"enabled", st.enabled},
                      {"warn_pct", OptionalNumber(st.warn_pct)},
                      {"fail_pct", OptionalNumber(st.fail_pct)},
                      {"alpha", st.alpha},
                      {"min_steps", st.min_steps},
                      {"max_exact_n", st.max_exact_n}};
  json counters = json::object();
  for (const CounterRule& c : config.counters) {
    counters[c.metric] = {{"enabled", c.enabled},
                          {"direction", DirectionName(c.direction)},
                          {"mode", ToleranceModeName(c.mode)},
                          {"warn", OptionalNumber(c.warn)},
                          {"fail", OptionalNumber(c.fail)},
                          {"min_change", c.min_change},
                          {"unit", MetricUnitName(c.unit)}};
  }
  out["counters"] = counters;
  out["checklist"] = {{"enabled", config.checklist.enabled},
                      {"fail_at", NameOf(kLevels, config.checklist.fail_at)},
                      {"ignore", config.checklist.ignore}};
  out["findings"] = {{"enabled", config.findings.enabled},
                     {"warn_severities", config.findings.warn_severities},
                     {"fail_severities", config.findings.fail_severities},
                     {"ignore", config.findings.ignore}};
  out["new_fp32_gemm_kernels"] = {{"enabled", config.new_fp32_gemm.enabled},
                                  {"warn_pct", OptionalNumber(config.new_fp32_gemm.warn_pct)},
                                  {"fail_pct", OptionalNumber(config.new_fp32_gemm.fail_pct)}};
  out["environment"] = {{"fields", config.environment.fields}};
  return out;
}

}  // namespace ampscope::gate
