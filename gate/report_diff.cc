#include "gate/report_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "reports/contract/checklist_view.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/report_reader.h"
#include "render/format.h"
#include "render/kernel_names.h"
#include "render/text_table.h"
#include "reports/contract/report_fields.h"

namespace ampscope::gate {

// The report is read through the contract's reader (reports/contract/).
using reports::FindPath;
using reports::NumberAt;

// Values are printed by the one formatting module of the outputs people read.
using render::FormatDelta;
using render::FormatDurationUs;
using render::FormatOptionalValue;
using render::FormatRelativeChange;
using render::FormatValue;
using render::TextTable;
namespace {

using nlohmann::json;

// Fixed metrics shown side by side, in display order.
struct FixedMetric {
  const char* section;
  const char* name;
  const char* pointer;
  MetricUnit unit;
};
constexpr FixedMetric kFixedMetrics[] = {
    {"steps", "steps.count", report_field::kStepCount, MetricUnit::kCount},
    {"steps", "steps.time_us.median", report_field::kStepTimeMedianUs, MetricUnit::kMicroseconds},
    {"steps", "steps.time_us.mean", report_field::kStepTimeMeanUs, MetricUnit::kMicroseconds},
    {"steps", "steps.time_us.p90", report_field::kStepTimeP90Us, MetricUnit::kMicroseconds},
    {"gpu", "gpu.busy_pct", report_field::kGpuBusyPct, MetricUnit::kPct},
    {"gpu", "gpu.kernel_busy_pct", report_field::kGpuKernelBusyPct, MetricUnit::kPct},
    {"gpu", "gpu.idle_pct", report_field::kGpuIdlePct, MetricUnit::kPct},
    {"idle", "gpu.idle_breakdown_pct.host_wait", report_field::kGpuIdleHostWaitPct, MetricUnit::kPct},
    {"idle", "gpu.idle_breakdown_pct.kernel_wait", report_field::kGpuIdleKernelWaitPct, MetricUnit::kPct},
    {"idle", "gpu.idle_breakdown_pct.other", report_field::kGpuIdleOtherPct, MetricUnit::kPct},
    {"tensor_cores", "tensor_cores.kernel_time_pct", report_field::kTensorCoreKernelTimePct, MetricUnit::kPct},
    {"tensor_cores", "tensor_cores.active_pct", report_field::kTensorCoreActivePct, MetricUnit::kPct},
};

// Object-valued sections whose keys vary between reports; keys are the union of both sides.
struct DynamicSection {
  const char* section;
  const char* prefix;
  const char* pointer;
};
constexpr DynamicSection kDynamicSections[] = {
    {"precision", "gpu.kernel_time_by_precision_pct.", report_field::kKernelTimeByPrecisionPct},
    {"category", "gpu.kernel_time_by_category_pct.", report_field::kKernelTimeByCategoryPct},
    {"gate_metrics", "gate_metrics.", report_field::kGateMetrics},
};

constexpr const char* kEnvironmentFields[] = {"gpu", "driver", "cuda", "cupti", "framework", "host"};

std::vector<std::string> ObjectKeys(const json& report, const char* pointer) {
  std::vector<std::string> keys;
  const json* node = FindPath(report, pointer);
  if (node == nullptr || !node->is_object()) return keys;
  for (auto it = node->begin(); it != node->end(); ++it) keys.push_back(it.key());
  return keys;
}

std::optional<std::string> EnvironmentString(const json& report, const std::string& field) {
  const json* node = FindPath(report, "/environment/" + field);
  if (node == nullptr || node->is_null()) return std::nullopt;
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
}

std::optional<int> StatusLevel(const std::string& status) {
  if (status == "pass") return 0;
  if (status == "warn") return 1;
  if (status == "fail") return 2;
  return std::nullopt;
}

struct KernelEntry {
  std::string category;
  std::string precision;
  double total_us = 0;
  std::optional<double> mean_us;
  std::optional<double> count;
};

// kernels.top by name; nullopt when the report has no kernels.top. Duplicate names (should not
// happen) are summed.
std::optional<std::map<std::string, KernelEntry>> TopKernels(const json& report) {
  const reports::KernelsView kernels = reports::ReadKernelsView(report);
  if (!kernels.top_listed) return std::nullopt;
  std::map<std::string, KernelEntry> out;
  for (const reports::TopKernel& k : kernels.top) {
    if (k.name.empty()) continue;
    KernelEntry& e = out[k.name];
    e.category = k.category.empty() ? "other" : k.category;
    e.precision = k.precision.empty() ? "unknown" : k.precision;
    e.total_us += k.total_us.value_or(0);
    if (k.count) e.count = e.count.value_or(0) + *k.count;
    e.mean_us = k.mean_us;
    if (e.count && *e.count > 0) e.mean_us = e.total_us / *e.count;
  }
  return out;
}

std::optional<double> Scale(const std::optional<double>& v, double divisor) {
  if (!v) return std::nullopt;
  return *v / divisor;
}

// Kernel time per category (µs): the report's complete table when both have it, else summed
// from kernels.top.
std::map<std::string, double> CategoryTimes(const json& report, const std::map<std::string, KernelEntry>* top,
                                            bool use_table) {
  std::map<std::string, double> out;
  if (use_table) {
    const json* node = FindPath(report, report_field::kKernelTimeByCategoryUs);
    for (auto it = node->begin(); it != node->end(); ++it)
      if (it->is_number()) out[it.key()] = it->get<double>();
    return out;
  }
  if (top != nullptr)
    for (const auto& [name, e] : *top) out[e.category] += e.total_us;
  return out;
}

std::string OptionalText(const std::optional<std::string>& v) { return v ? *v : std::string("n/a"); }

json OptionalJson(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

ReportDiff DiffReports(const json& a, const json& b, const DiffOptions& options) {
  ReportDiff diff;
  diff.a_name = options.a_name;
  diff.b_name = options.b_name;
  diff.top = std::max(options.top, 0);

  for (const char* field : kEnvironmentFields)
    diff.environment.push_back({field, EnvironmentString(a, field), EnvironmentString(b, field)});

  for (const FixedMetric& m : kFixedMetrics)
    diff.metrics.push_back({m.section, m.name, m.unit, NumberAt(a, m.pointer), NumberAt(b, m.pointer)});

  for (const DynamicSection& s : kDynamicSections) {
    std::vector<std::string> keys = ObjectKeys(b, s.pointer);
    for (const std::string& k : ObjectKeys(a, s.pointer))
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    std::vector<MetricDiff> rows;
    for (const std::string& key : keys) {
      const std::string pointer = std::string(s.pointer) + "/" + key;
      const MetricUnit unit = std::string(s.section) == "gate_metrics" ? UnitForMetric(key) : MetricUnit::kPct;
      rows.push_back({s.section, s.prefix + key, unit, NumberAt(a, pointer), NumberAt(b, pointer)});
    }
    if (std::string(s.section) != "gate_metrics") {
      // Mix tables read best largest first.
      std::stable_sort(rows.begin(), rows.end(), [](const MetricDiff& x, const MetricDiff& y) {
        return std::max(x.a.value_or(0), x.b.value_or(0)) > std::max(y.a.value_or(0), y.b.value_or(0));
      });
    }
    diff.metrics.insert(diff.metrics.end(), rows.begin(), rows.end());
  }

  // Checklist statuses by id, in B's order then A-only ids.
  auto statuses = [](const json& report) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const reports::ChecklistItemView& item : reports::ReadChecklistView(report))
      if (!item.id.empty()) out.emplace_back(item.id, item.status.value_or("unknown"));
    return out;
  };
  auto a_status = statuses(a);
  auto b_status = statuses(b);
  std::vector<std::string> ids;
  for (const auto& [id, s] : b_status) ids.push_back(id);
  for (const auto& [id, s] : a_status)
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  for (const std::string& id : ids) {
    auto find = [&id](const std::vector<std::pair<std::string, std::string>>& list) {
      for (const auto& [k, v] : list)
        if (k == id) return v;
      return std::string("absent");
    };
    ChecklistDiff c{id, find(a_status), find(b_status), "n/a"};
    auto la = StatusLevel(c.a), lb = StatusLevel(c.b);
    if (c.a == c.b) {
      c.change = "same";
    } else if (la && lb) {
      c.change = *lb > *la ? "worse" : "better";
    }
    diff.checklist.push_back(c);
  }

  // Kernel-level changes.
  auto a_top = TopKernels(a);
  auto b_top = TopKernels(b);
  const double a_steps = NumberAt(a, report_field::kStepCount).value_or(0);
  const double b_steps = NumberAt(b, report_field::kStepCount).value_or(0);
  diff.per_step = a_steps > 0 && b_steps > 0;
  const double a_div = diff.per_step ? a_steps : 1.0;
  const double b_div = diff.per_step ? b_steps : 1.0;
  diff.kernels_available = a_top.has_value() && b_top.has_value();
  if (diff.kernels_available) {
    auto make = [&](const std::string& name, const KernelEntry* ea, const KernelEntry* eb) {
      KernelDiff k;
      k.name = name;
      const KernelEntry* info = eb != nullptr ? eb : ea;
      k.category = info->category;
      k.precision = info->precision;
      if (ea != nullptr) {
        k.a_us_per_step = ea->total_us / a_div;
        k.a_mean_us = ea->mean_us;
        k.a_count_per_step = Scale(ea->count, a_div);
      }
      if (eb != nullptr) {
        k.b_us_per_step = eb->total_us / b_div;
        k.b_mean_us = eb->mean_us;
        k.b_count_per_step = Scale(eb->count, b_div);
      }
      return k;
    };
    std::vector<KernelDiff> common;
    for (const auto& [name, eb] : *b_top) {
      auto ia = a_top->find(name);
      if (ia == a_top->end())
        diff.added.push_back(make(name, nullptr, &eb));
      else
        common.push_back(make(name, &ia->second, &eb));
    }
    for (const auto& [name, ea] : *a_top)
      if (b_top->find(name) == b_top->end()) diff.removed.push_back(make(name, &ea, nullptr));
    std::stable_sort(diff.added.begin(), diff.added.end(),
                     [](const KernelDiff& x, const KernelDiff& y) { return *x.b_us_per_step > *y.b_us_per_step; });
    std::stable_sort(diff.removed.begin(), diff.removed.end(),
                     [](const KernelDiff& x, const KernelDiff& y) { return *x.a_us_per_step > *y.a_us_per_step; });
    std::stable_sort(common.begin(), common.end(),
                     [](const KernelDiff& x, const KernelDiff& y) { return x.delta_us_per_step() > y.delta_us_per_step(); });
    const size_t top = static_cast<size_t>(diff.top);
    for (const KernelDiff& k : common)
      if (k.delta_us_per_step() > 0 && diff.slower.size() < top) diff.slower.push_back(k);
    for (auto it = common.rbegin(); it != common.rend(); ++it)
      if (it->delta_us_per_step() < 0 && diff.faster.size() < top) diff.faster.push_back(*it);

    const bool use_table = FindPath(a, report_field::kKernelTimeByCategoryUs) != nullptr &&
                           FindPath(a, report_field::kKernelTimeByCategoryUs)->is_object() &&
                           FindPath(b, report_field::kKernelTimeByCategoryUs) != nullptr &&
                           FindPath(b, report_field::kKernelTimeByCategoryUs)->is_object();
    auto a_cat = CategoryTimes(a, &*a_top, use_table);
    auto b_cat = CategoryTimes(b, &*b_top, use_table);
    std::set<std::string> cats;
    for (const auto& [c, v] : a_cat) cats.insert(c);
    for (const auto& [c, v] : b_cat) cats.insert(c);
    for (const std::string& c : cats) {
      CategoryDiff d{c, a_cat.count(c) ? a_cat[c] / a_div : 0.0, b_cat.count(c) ? b_cat[c] / b_div : 0.0};
      diff.categories.push_back(d);
    }
    std::stable_sort(diff.categories.begin(), diff.categories.end(), [](const CategoryDiff& x, const CategoryDiff& y) {
      return std::fabs(x.b_us_per_step - x.a_us_per_step) > std::fabs(y.b_us_per_step - y.a_us_per_step);
    });
  }
  return diff;
}

std::string FormatDiffText(const ReportDiff& diff, size_t width) {
  using Align = TextTable::Align;
  using Column = TextTable::Column;
  using Overflow = TextTable::Overflow;
  render::TableStyle style;
  style.width = width;
  style.rule = true;
  auto col = [](std::string header, Align align, Overflow overflow, size_t min_width = 8, bool head = false) {
    Column c;
    c.priority = head ? 1 : 0;  // names (the first column) keep their width longest
    c.header = std::move(header);
    c.align = align;
    c.overflow = overflow;
    c.min_width = min_width;
    c.block_head = head;
    return c;
  };
  const Overflow kWrap = Overflow::kWrap, kKeep = Overflow::kKeep;
  std::string out = "ampscope diff\n" + render::WrapParagraph(diff.a_name, width, "  A: ", "     ") +
                    render::WrapParagraph(diff.b_name, width, "  B: ", "     ") + "\n";

  TextTable env({col("environment", Align::kLeft, kKeep, 8, true), col("A", Align::kLeft, kWrap, 10),
                 col("B", Align::kLeft, kWrap, 10), col("", Align::kLeft, kKeep)});
  for (const EnvironmentDiff& e : diff.environment)
    env.AddRow({e.field, OptionalText(e.a), OptionalText(e.b), (e.a && e.b && *e.a != *e.b) ? "differs" : ""});
  out += env.Render(style) + "\n";

  TextTable metrics({col("metric", Align::kLeft, kWrap, 16, true), col("A", Align::kRight, kKeep),
                     col("B", Align::kRight, kKeep), col("change", Align::kRight, kKeep), col("rel", Align::kRight, kKeep)});
  std::string section;
  for (const MetricDiff& m : diff.metrics) {
    if (!m.a && !m.b) continue;
    if (m.section != section) {
      section = m.section;
      metrics.AddSection("[" + section + "]");
    }
    std::string change = "n/a", rel = "n/a";
    if (m.a && m.b) {
      change = FormatDelta(*m.b - *m.a, m.unit);
      rel = m.unit == MetricUnit::kPct ? std::string() : FormatRelativeChange(*m.a, *m.b);
    }
    metrics.AddRow({"  " + m.name, FormatOptionalValue(m.a, m.unit), FormatOptionalValue(m.b, m.unit), change, rel});
  }
  out += metrics.Render(style) + "\n";

  if (!diff.checklist.empty()) {
    TextTable checklist({col("checklist", Align::kLeft, kWrap, 12, true), col("A", Align::kLeft, kKeep),
                         col("B", Align::kLeft, kKeep), col("change", Align::kLeft, kKeep)});
    for (const ChecklistDiff& c : diff.checklist) checklist.AddRow({c.id, c.a, c.b, c.change == "same" ? "" : c.change});
    out += checklist.Render(style) + "\n";
  }

  if (!diff.kernels_available) {
    out += render::WrapParagraph("kernels: kernels.top missing from one of the reports; no kernel-level changes", width, "", "  ");
    return out;
  }
  const char* per = diff.per_step ? "/step" : " total";
  auto us = [](const std::optional<double>& v) { return v ? render::DurationUs(*v) : std::string("-"); };
  auto signed_us = [](double v) { return (v < 0 ? "-" : "+") + render::DurationUs(std::fabs(v)); };
  // Short names, told apart across all four tables where distinct kernels share one.
  std::vector<std::string> full_names;
  for (const std::vector<KernelDiff>* list : {&diff.slower, &diff.faster, &diff.added, &diff.removed})
    for (const KernelDiff& k : *list) full_names.push_back(k.name);
  const std::vector<std::string> distinct = render::DistinctShortNames(full_names);
  std::map<std::string, std::string> shown_name;
  for (size_t i = 0; i < full_names.size(); ++i) shown_name[full_names[i]] = distinct[i];
  auto kernel_table = [&](const std::string& title, const std::vector<KernelDiff>& list, size_t limit) {
    if (list.empty()) return render::WrapParagraph(title + ": none", width, "", "  ") + "\n";
    // The kernel (short name) with its class on a second line: "conv fp32".
    TextTable t({col(title, Align::kLeft, kWrap, 16, true),
                 col(std::string("A") + per, Align::kRight, kKeep), col(std::string("B") + per, Align::kRight, kKeep),
                 col("change", Align::kRight, kKeep), col("A mean", Align::kRight, kKeep), col("B mean", Align::kRight, kKeep)});
    for (size_t i = 0; i < list.size() && i < limit; ++i) {
      const KernelDiff& k = list[i];
      t.AddRow({shown_name[k.name] + "\n  " + k.category + " " + k.precision, us(k.a_us_per_step), us(k.b_us_per_step),
                signed_us(k.delta_us_per_step()), us(k.a_mean_us), us(k.b_mean_us)});
    }
    std::string s = t.Render(style);
    if (list.size() > limit) s += fmt::format("  ... and {} more (see --json)\n", list.size() - limit);
    return s + "\n";
  };
  const size_t limit = static_cast<size_t>(diff.top);
  out += kernel_table("kernels slower in B", diff.slower, limit);
  out += kernel_table("kernels faster in B", diff.faster, limit);
  out += kernel_table("kernels added in B", diff.added, limit);
  out += kernel_table("kernels removed in B", diff.removed, limit);
  if (!diff.categories.empty()) {
    TextTable cats({col("kernel time by category", Align::kLeft, kWrap, 10, true), col(std::string("A") + per, Align::kRight, kKeep),
                    col(std::string("B") + per, Align::kRight, kKeep), col("change", Align::kRight, kKeep),
                    col("rel", Align::kRight, kKeep)});
    for (const CategoryDiff& c : diff.categories)
      cats.AddRow({c.category, render::DurationUs(c.a_us_per_step), render::DurationUs(c.b_us_per_step),
                   signed_us(c.b_us_per_step - c.a_us_per_step), FormatRelativeChange(c.a_us_per_step, c.b_us_per_step)});
    out += cats.Render(style);
  }
  out += "\n" + render::WrapParagraph(
                    "(added/removed compare the reports' kernels.top lists: a kernel can also enter or leave the top list; "
                    "names are shortened, --json has them in full)",
                    width, "", "");
  return out;
}

json DiffToJson(const ReportDiff& diff) {
  json out;
  out["schema"] = "ampscope.diff/1";
  out["a"] = diff.a_name;
  out["b"] = diff.b_name;
  out["environment"] = json::array();
  for (const EnvironmentDiff& e : diff.environment)
    out["environment"].push_back({{"field", e.field},
                                  {"a", e.a ? json(*e.a) : json(nullptr)},
                                  {"b", e.b ? json(*e.b) : json(nullptr)},
                                  {"differs", e.a && e.b && *e.a != *e.b}});
  out["metrics"] = json::array();
  for (const MetricDiff& m : diff.metrics) {
    json row = {{"section", m.section}, {"name", m.name}, {"unit", MetricUnitName(m.unit)},
                {"a", OptionalJson(m.a)},   {"b", OptionalJson(m.b)}};
    row["delta"] = (m.a && m.b) ? json(*m.b - *m.a) : json(nullptr);
    row["delta_pct"] = (m.a && m.b && *m.a != 0) ? json((*m.b - *m.a) / std::fabs(*m.a) * 100.0) : json(nullptr);
    out["metrics"].push_back(row);
  }
  out["checklist"] = json::array();
  for (const ChecklistDiff& c : diff.checklist)
    out["checklist"].push_back({{"id", c.id}, {"a", c.a}, {"b", c.b}, {"change", c.change}});
  json kernels;
  kernels["available"] = diff.kernels_available;
  kernels["normalization"] = diff.per_step ? "per_step" : "total";
  auto kernel_list = [](const std::vector<KernelDiff>& list) {
    json arr = json::array();
    for (const KernelDiff& k : list)
      arr.push_back({{"name", k.name},
                     {"category", k.category},
                     {"precision", k.precision},
                     {"a_us", OptionalJson(k.a_us_per_step)},
                     {"b_us", OptionalJson(k.b_us_per_step)},
                     {"delta_us", k.delta_us_per_step()},
                     {"a_mean_us", OptionalJson(k.a_mean_us)},
                     {"b_mean_us", OptionalJson(k.b_mean_us)},
                     {"a_count", OptionalJson(k.a_count_per_step)},
                     {"b_count", OptionalJson(k.b_count_per_step)}});
    return arr;
  };
  kernels["added"] = kernel_list(diff.added);
  kernels["removed"] = kernel_list(diff.removed);
  kernels["slower"] = kernel_list(diff.slower);
  kernels["faster"] = kernel_list(diff.faster);
  kernels["categories"] = json::array();
  for (const CategoryDiff& c : diff.categories)
    kernels["categories"].push_back({{"category", c.category},
                                     {"a_us", c.a_us_per_step},
                                     {"b_us", c.b_us_per_step},
                                     {"delta_us", c.b_us_per_step - c.a_us_per_step}});
  out["kernels"] = kernels;
  return out;
}

}  // namespace ampscope::gate
