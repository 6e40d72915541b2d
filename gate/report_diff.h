// `ampscope diff A B`: two reports side by side (headline metrics, idle breakdown, precision and
// category mix, gate_metrics, checklist statuses, environment) and kernel-level changes from
// kernels.top (added, removed, top N slower and faster, and per-category time).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/gate_config.h"
#include "render/terminal.h"

namespace ampscope::gate {

struct MetricDiff {
  std::string section;  // "steps", "gpu", "idle", "tensor_cores", "precision", "category", "gate_metrics"
  std::string name;     // JSON path-like label, e.g. "gpu.busy_pct"
  MetricUnit unit = MetricUnit::kCount;
  std::optional<double> a;
  std::optional<double> b;
};

struct ChecklistDiff {
  std::string id;
  std::string a;  // status, or "absent"
  std::string b;
  std::string change;  // "worse" | "better" | "same" | "n/a"
};

struct EnvironmentDiff {
  std::string field;
  std::optional<std::string> a;
  std::optional<std::string> b;
};

struct KernelDiff {
  std::string name;
  std::string category;   // from whichever report has the kernel (B first)
  std::string precision;
  std::optional<double> a_us_per_step;  // total time per step (or per report, see per_step)
  std::optional<double> b_us_per_step;
  std::optional<double> a_mean_us;  // mean duration of one launch
  std::optional<double> b_mean_us;
  std::optional<double> a_count_per_step;
  std::optional<double> b_count_per_step;
  double delta_us_per_step() const { return b_us_per_step.value_or(0) - a_us_per_step.value_or(0); }
};

struct CategoryDiff {
  std::string category;
  double a_us_per_step = 0;
  double b_us_per_step = 0;
};

struct DiffOptions {
  int top = 10;  // how many slower and faster kernels to list
  std::string a_name = "A";
  std::string b_name = "B";
};

struct ReportDiff {
  std::string a_name;
  std::string b_name;
  // Kernel times are divided by steps.count when both reports have steps; otherwise they are
  // the reports' totals (per_step false) and the columns say so.
  bool per_step = true;
  int top = 10;  // DiffOptions::top: the text output lists at most this many kernels per table
  std::vector<EnvironmentDiff> environment;
  std::vector<MetricDiff> metrics;
  std::vector<ChecklistDiff> checklist;
  std::vector<KernelDiff> added;    // in B's kernels.top, not in A's (largest first)
  std::vector<KernelDiff> removed;  // in A's, not in B's (largest first)
  std::vector<KernelDiff> slower;   // in both, time per step grew (largest growth first, at most top)
  std::vector<KernelDiff> faster;   // in both, time per step shrank (largest saving first, at most top)
  std::vector<CategoryDiff> categories;  // kernel time per step by category (largest change first)
  bool kernels_available = false;        // both reports have kernels.top
};

// Both reports must have passed ValidateReport(..., ReportUse::kDiff); absent fields show as n/a.
ReportDiff DiffReports(const nlohmann::json& a, const nlohmann::json& b, const DiffOptions& options);

// The diff as aligned tables fitted to `width` columns (kernel names shortened to their template
// head and functor, render/kernel_names.h; the JSON keeps the full names).
std::string FormatDiffText(const ReportDiff& diff, size_t width = render::kDefaultWidth);
nlohmann::json DiffToJson(const ReportDiff& diff);  // {"schema": "ampscope.diff/1", ...}

}  // namespace ampscope::gate
