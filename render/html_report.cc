#include "render/html_report.h"
#include "render/memory_snapshot_render.h"
#include "render/roofline_html.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "render/critical_path_view.h"
#include "render/evidence.h"
#include "render/format.h"
#include "render/html_assets.h"
#include "render/kernel_names.h"
#include "render/ncu_section.h"
#include "render/report_view.h"
#include "reports/contract/kernels_view.h"
#include "reports/contract/ranks_view.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

namespace {

using nlohmann::json;
using namespace html_report;

std::string H(std::string_view s) { return HtmlEscape(s); }

// An id usable in an HTML id attribute and a #fragment.
std::string Anchor(const std::string& s) {
  std::string out;
  for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-');
  return out;
}

std::string StatusClassName(const std::string& status) {
  switch (StatusClass(status)) {
    case 0: return status == "pass" ? "s-pass" : "s-good";
    case 1: return "s-warn";
    case 2: return status == "fail" ? "s-fail" : "s-bad";
    case 4: return "s-not_applicable";
    default: return "s-unknown";
  }
}

std::string StatusBadge(const std::string& status) {
  std::string label = status == "not_applicable" ? "n/a" : status.empty() ? "unknown" : status;
  return "<span class=\"badge " + StatusClassName(status) + "\">" + H(label) + "</span>";
}

// ---- the chart data blob ----

json Series(const std::vector<double>& v) {
  json a = json::array();
  for (double d : v) a.push_back(std::isfinite(d) ? json(std::round(d * 1000) / 1000) : json(nullptr));
  return a;
}

json StepData(const json& r) {
  const reports::StepsView steps = reports::ReadStepsView(r);
  std::vector<std::string> labels;
  std::vector<double> dur_ms, busy, kbusy, tc;
  bool have_busy = false;
  // A report of many steps lists some of them one by one (steps.listed): the chart then draws
  // every step's duration from durations_us.
  if (!steps.per_step.empty() && !steps.listed_truncated) {
    for (size_t i = 0; i < steps.per_step.size(); ++i) {
      const reports::StepView& s = steps.per_step[i];
      labels.push_back(s.number && s.number_is_integer ? std::to_string(static_cast<int64_t>(*s.number)) : std::to_string(i));
      dur_ms.push_back(s.duration_us.value_or(NAN) / 1e3);
      double b = s.busy_pct.value_or(NAN);
      have_busy |= std::isfinite(b);
      busy.push_back(b);
      kbusy.push_back(s.kernel_busy_pct.value_or(NAN));
      tc.push_back(s.tensor_core_kernel_pct.value_or(NAN));
    }
  } else {
    for (size_t i = 0; i < steps.durations_us.size(); ++i) {
      labels.push_back(std::to_string(i));
      dur_ms.push_back(steps.durations_us[i] ? *steps.durations_us[i] / 1e3 : NAN);
    }
  }
  json out = json::object();
  if (dur_ms.empty()) return out;
  const size_t n = dur_ms.size();
  const size_t bucket = (n + kMaxChartSteps - 1) / kMaxChartSteps;
  out["bucket_size"] = bucket;
  out["median_ms"] = steps.median_us.value_or(0) / 1e3;
  if (bucket <= 1) {
    out["labels"] = labels;
    out["duration_ms"] = Series(dur_ms);
    if (have_busy) {
      out["busy_pct"] = Series(busy);
      out["kernel_busy_pct"] = Series(kbusy);
      out["tensor_core_kernel_pct"] = Series(tc);
    }
    return out;
  }
  // Many steps: each bar is the mean of `bucket` consecutive steps, with min and max.
  std::vector<std::string> blabels;
  std::vector<double> mean, lo, hi, bbusy, bkbusy, btc;
  auto mean_of = [](const std::vector<double>& v, size_t a, size_t b) {
    double sum = 0;
    size_t k = 0;
    for (size_t i = a; i < b; ++i)
      if (std::isfinite(v[i])) sum += v[i], ++k;
    return k ? sum / k : NAN;
  };
  for (size_t a = 0; a < n; a += bucket) {
    size_t b = std::min(n, a + bucket);
    blabels.push_back(labels[a] + "-" + labels[b - 1]);
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = a; i < b; ++i)
      if (std::isfinite(dur_ms[i])) mn = std::min(mn, dur_ms[i]), mx = std::max(mx, dur_ms[i]);
    mean.push_back(mean_of(dur_ms, a, b));
    lo.push_back(std::isfinite(mn) ? mn : NAN);
    hi.push_back(std::isfinite(mx) ? mx : NAN);
    if (have_busy) {
      bbusy.push_back(mean_of(busy, a, b));
      bkbusy.push_back(mean_of(kbusy, a, b));
      btc.push_back(mean_of(tc, a, b));
    }
  }
  out["labels"] = blabels;
  out["duration_ms"] = Series(mean);
  out["min_ms"] = Series(lo);
  out["max_ms"] = Series(hi);
  if (have_busy) {
    out["busy_pct"] = Series(bbusy);
    out["kernel_busy_pct"] = Series(bkbusy);
    out["tensor_core_kernel_pct"] = Series(btc);
  }
  return out;
}

json SharesData(const json& obj) {
  json a = json::array();
  for (const auto& [name, v] : SortedShares(obj)) a.push_back({name, std::round(v * 1000) / 1000});
  return a;
}

json RanksData(const std::vector<reports::RankRow>& ranks) {
  json a = json::array();
  if (ranks.size() < 2) return a;
  const size_t bucket = (ranks.size() + kMaxChartRanks - 1) / kMaxChartRanks;
  for (size_t i = 0; i < ranks.size(); i += bucket) {
    size_t end = std::min(ranks.size(), i + bucket);
    double step = 0, busy = 0;
    size_t ns = 0, nb = 0;
    for (size_t k = i; k < end; ++k) {
      if (auto v = ranks[k].step_time_mean_us) step += *v / 1e3, ++ns;
      if (auto v = ranks[k].gpu_busy_pct) busy += *v, ++nb;
    }
    std::string label = Count(ranks[i].rank);
    if (end - i > 1) label += "-" + Count(ranks[end - 1].rank);
    a.push_back({label, ns ? json(step / ns) : json(nullptr), nb ? json(busy / nb) : json(nullptr)});
  }
  return a;
}

// Colours of the top-kernels chart: by Tensor Core use first, then precision, so green means
// Tensor Cores and an fp32 kernel can never look like one. The legend lists these labels.
struct KernelClass {
  const char* id;
  const char* label;
  const char* colour;
  bool tensor_core;
};
constexpr KernelClass kKernelClasses[] = {
    {"tc-half", "Tensor Cores, fp16/bf16", "#1e8e3e", true},
    {"tc-8bit", "Tensor Cores, fp8/int8", "#0b8043", true},
    {"tc-tf32", "Tensor Cores, tf32", "#81c995", true},
    {"tc-other", "Tensor Cores, other precision", "#34a853", true},
    {"simt-fp32", "no Tensor Cores, fp32/fp64", "#e8710a", false},
    {"simt-half", "no Tensor Cores, fp16/bf16", "#f9ab00", false},
    {"other", "no Tensor Cores, other or unknown precision", "#9aa0a6", false},
};

size_t KernelClassIndex(bool tensor_core, const std::string& precision) {
  if (tensor_core) {
    if (precision == "fp16" || precision == "bf16") return 0;
    if (precision == "fp8" || precision == "int8" || precision == "fp4") return 1;
    if (precision == "tf32") return 2;
    return 3;
  }
  if (precision == "fp32" || precision == "fp64") return 4;
  if (precision == "fp16" || precision == "bf16") return 5;
  return 6;
}

json ChartData(const json& r) {
  json d;
  d["steps"] = StepData(r);
  d["categories"] = SharesData(Section(r, report_field::kKernelTimeByCategoryPct));
  d["precision"] = SharesData(Section(r, report_field::kKernelTimeByPrecisionPct));
  d["idle"] = {{"busy", Number(r, report_field::kGpuBusyPct).value_or(0)},
               {"host_wait", Number(r, report_field::kGpuIdleHostWaitPct).value_or(0)},
               {"kernel_wait", Number(r, report_field::kGpuIdleKernelWaitPct).value_or(0)},
               {"other", Number(r, report_field::kGpuIdleOtherPct).value_or(0)}};
  json top = json::array();
  std::vector<bool> used(std::size(kKernelClasses), false);
  const std::vector<reports::TopKernel> kernels = reports::ReadKernelsView(r).top;
  for (size_t i = 0; i < kernels.size() && i < kMaxChartKernels; ++i) {
    const reports::TopKernel& k = kernels[i];
    const size_t cls = KernelClassIndex(k.tensor_core, k.precision);
    used[cls] = true;
    top.push_back({ShortKernelName(k.name), k.pct.value_or(0), k.category, k.precision, k.tensor_core, k.name,
                   kKernelClasses[cls].id});
  }
  // The legend: the classes the bars use, in table order, each with the colour its bars get.
  json classes = json::array();
  for (size_t c = 0; c < std::size(kKernelClasses); ++c)
    if (used[c]) classes.push_back({kKernelClasses[c].id, kKernelClasses[c].label, kKernelClasses[c].colour,
                                    kKernelClasses[c].tensor_core});
  d["kernel_classes"] = classes;
  d["top_kernels"] = top;
  d["ranks"] = RanksData(reports::ReadRanksView(r).ranks);
  return d;
}

// JSON for a <script type="application/json">: no "</script>", no "<!--", no HTML entities.
std::string ScriptJson(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// ---- sections ----

void Header(std::string& h, const json& r) {
  h += "<header>\n<h1>ampscope report</h1>\n<p class=\"sub\">" + H(InputsSummary(r)) + "</p>\n";
  h += "<div class=\"cards\">\n";
  h += HtmlCard("Device", DevicesSummary(r), DriverLabel(String(r, report_field::kEnvironmentDriver)));
  // A job of several ranks: each card says which definition it shows (report "job.definitions").
  const bool job = Number(r, report_field::kJobRanks).value_or(1) > 1;
  const reports::StepsView steps = reports::ReadStepsView(r);
  h += HtmlCard("Steps", Count(steps.count), StepsSummary(r));
  const std::optional<reports::JobImbalance> imbalance = reports::ReadRanksView(r).imbalance;
  const std::optional<double> step_imbalance = imbalance ? imbalance->step_time : std::nullopt;
  h += HtmlCard(job ? "Step time (mean, slowest rank per step)" : "Step time (mean)", DurationUs(steps.mean_us),
                "median " + DurationUs(steps.median_us) + ", p90 " + DurationUs(steps.p90_us) +
                    (job && step_imbalance ? fmt::format(", rank imbalance {:.2f}x (max/mean)", *step_imbalance) : std::string()));
  if (!GpuActivityRecorded(r))
    h += HtmlCard("GPU busy", "unknown", kNoGpuActivity);
  else
    h += HtmlCard(job ? "GPU busy (" + JobDefinition(r, "gpu") + ")" : "GPU busy", Pct(Number(r, report_field::kGpuBusyPct)),
                  "kernels " + Pct(Number(r, report_field::kGpuKernelBusyPct)) + ", host_wait " +
                      Pct(Number(r, report_field::kGpuIdleHostWaitPct)));
  h += HtmlCard(job ? "Tensor Core kernel time (mean over ranks)" : "Tensor Core kernel time", Pct(Number(r, report_field::kTensorCoreKernelTimePct)),
            String(r, report_field::kTensorCoreSource, "estimated") +
                (Number(r, report_field::kTensorCoreActivePct)
                     ? ", active " + Pct(Number(r, report_field::kTensorCoreActivePct)) + " (sampled)"
                     : ""));
  const std::vector<reports::FindingView> findings = reports::ReadFindingsView(r);
  if (!findings.empty()) {
    h += HtmlCard("Top finding", findings[0].id, "est. saving " + Pct(findings[0].est_saving_pct) + " " + SavingBasis(r));
  } else {
    h += HtmlCard("Findings", "none", "nothing to fix was detected");
  }
  h += "</div>\n</header>\n";
}

void Matrix(std::string& h, const json& r) {
  const std::vector<reports::DimensionView> m = reports::ReadMatrixView(r);
  h += "<section id=\"matrix\">\n<h2>Five-dimension matrix</h2>\n<div class=\"matrix\">\n";
  if (m.empty()) h += "<p class=\"empty\">No matrix in this report.</p>\n";
  if (const std::string why = SharedUnknownReason(m); !why.empty()) {
    h += "<p class=\"empty\">Every dimension unknown: " + H(why) + ".</p>\n</div>\n</section>\n";
    return;
  }
  for (const reports::DimensionView* d : DimensionOrder(m)) {
    const std::string status = d->status.value_or("unknown");
    h += "<div class=\"dim " + StatusClassName(status) + "\" id=\"dim-" + Anchor(d->id) + "\">";
    h += "<h3>" + H(DimensionTitle(d->id)) + " " + StatusBadge(status) + "</h3>";
    const std::string& name = d->headline.name;
    h += "<div title=\"" + H(name) + "\">" + H(name.empty() ? "" : StepWords(r, HumanKey(name))) + "</div><div class=\"hv\">" +
         H(DimensionValueCell(*d)) + "</div>";
    h += "<div class=\"src\">" + H(d->headline.source) + "</div>";
    const json& metrics = d->metrics;
    if (metrics.is_object() && !metrics.empty()) {
      std::string rows;
      for (const auto& [k, v] : metrics.items()) {
        if (v.is_null()) continue;  // its "..._unavailable" sibling says why
        std::string text = MetricText(k, v, d->metrics_units);
        if (text.empty()) continue;
        rows += "<tr><th title=\"" + H(k) + "\">" + H(StepWords(r, MetricLabel(k))) + "</th><td>" + H(text) + "</td></tr>";
      }
      if (!rows.empty()) h += "<details class=\"mm\"><summary>metrics</summary><table class=\"ev\"><tbody>" + rows +
                              "</tbody></table></details>";
    }
    if (!d->findings.empty()) {
      h += "<div class=\"fl\">findings: ";
      bool first = true;
      for (const std::string& id : d->findings) {
        h += (first ? "" : ", ") + std::string("<a href=\"#finding-") + Anchor(id) + "\">" + H(id) + "</a>";
        first = false;
      }
      h += "</div>";
    }
    h += "</div>\n";
  }
  h += "</div>\n</section>\n";
}

// What the trace can be trusted for: one row per check.
void TraceIntegrity(std::string& h, const json& r) {
  const std::vector<IntegrityRow> rows = IntegrityChecks(r);
  if (rows.empty()) return;
  h += "<section id=\"trace-integrity\">\n<h2>Trace integrity</h2>\n";
  h += "<table>\n<thead><tr><th>Check</th><th>Status</th><th>Evidence</th><th>Unreliable</th></tr></thead>\n<tbody>\n";
  for (const IntegrityRow& c : rows) {
    std::string affects;
    for (const std::string& a : c.affects) affects += (affects.empty() ? "" : ", ") + a;
    h += "<tr class=\"st-" + H(c.status) + "\"><td title=\"" + H(c.id) + "\">" + H(IntegrityTitle(c.id)) + "</td><td>" +
         StatusBadge(c.status) + "</td><td>" + H(c.evidence) + "</td><td>" + (affects.empty() ? "-" : H(affects)) +
         "</td></tr>\n";
  }
  h += "</tbody></table>\n</section>\n";
}

void Checklist(std::string& h, const json& r) {
  const std::vector<reports::ChecklistItemView> c = reports::ReadChecklistView(r);
  h += "<section id=\"checklist\">\n<h2>Optimization checklist</h2>\n";
  if (c.empty()) {
    h += "<p class=\"empty\">No checklist in this report.</p>\n</section>\n";
    return;
  }
  if (const std::string why = SharedUnknownReason(c); !why.empty()) {
    h += "<p class=\"empty\">Every item unknown: " + H(why) + ".</p>\n</section>\n";
    return;
  }
  h += "<table>\n<thead><tr><th>Item</th><th>Status</th><th class=\"num\">Value</th><th>Threshold</th>"
       "<th>Source</th><th>Evidence</th></tr></thead>\n<tbody>\n";
  for (const reports::ChecklistItemView& item : c) {
    const std::string status = item.status.value_or("unknown");
    std::string evidence = item.evidence;
    const std::string& how = item.how_to_know;
    if (const std::string see = ChecklistFindings(item); !see.empty()) evidence = see + (evidence.empty() ? "" : "; " + evidence);
    h += "<tr class=\"st-" + H(status) + "\"><td>" + H(ChecklistTitle(item.id)) + "</td><td>" +
         StatusBadge(status) + "</td><td class=\"num\">" + H(ChecklistValueCell(item)) +
         "</td><td>" + H(item.threshold.value_or("")) + "</td><td>" + H(item.source) + "</td><td>" +
         H(evidence) + (how.empty() ? "" : "<div class=\"meta\">to know: " + H(how) + "</div>") + "</td></tr>\n";
  }
  h += "</tbody></table>\n</section>\n";
}

// A list of records (top kernels, sync calls, chains) as a small table; kernel names short,
// the full name on hover.
std::string RecordTableHtml(const EvidenceItem& item) {
  std::string t = "<table class=\"evt\"><thead><tr>";
  for (const std::string& col : item.header) t += "<th>" + H(col) + "</th>";
  t += "</tr></thead><tbody>";
  for (size_t i = 0; i < item.rows.size(); ++i) {
    t += "<tr>";
    for (size_t c = 0; c < item.rows[i].size(); ++c) {
      const std::string& cell = item.rows[i][c];
      if (c == 0 && i < item.row_full.size() && item.row_full[i] != cell)
        t += "<td class=\"name\" title=\"" + H(Truncate(item.row_full[i], 2000)) + "\">" + H(cell) + "</td>";
      else
        t += "<td>" + H(Truncate(cell, kMaxEvidenceChars)) + "</td>";
    }
    t += "</tr>";
  }
  t += "</tbody></table>";
  if (item.more > 0) t += fmt::format("<div class=\"meta\">and {} more</div>", item.more);
  return t;
}

std::string EvidenceHtml(const json& r, const reports::FindingView& f, const StepClock& clock) {
  std::string rows;
  for (const EvidenceItem& item : FindingEvidence(r, f, clock)) {
    std::string value = item.rows.empty() ? H(Truncate(item.text, kMaxEvidenceChars)) : RecordTableHtml(item);
    rows += std::string(item.note ? "<tr class=\"note\">" : "<tr>") + "<th title=\"" + H(item.key) + "\">" + H(item.label) +
            "</th><td>" + value + "</td></tr>";
  }
  std::string when = TimeRangesText(f, clock, 6);
  if (!when.empty()) rows += "<tr><th title=\"time_ranges_us\">When</th><td>" + H(when) + "</td></tr>";
  return rows.empty() ? "" : "<table class=\"ev\"><tbody>" + rows + "</tbody></table>";
}

void Findings(std::string& h, const json& r) {
  const std::vector<reports::FindingView> findings = reports::ReadFindingsView(r);
  const StepClock report_clock(r);
  h += fmt::format("<section id=\"findings\">\n<h2>Findings ({}), {}</h2>\n", findings.size(), H(RankingWords(r)));
  if (findings.empty()) {
    h += "<p class=\"empty\">No findings: nothing to fix was detected.</p>\n</section>\n";
    return;
  }
  h += "<ol class=\"findings\">\n";
  for (size_t i = 0; i < findings.size() && i < kMaxFindings; ++i) {
    const reports::FindingView& f = findings[i];
    const StepClock clock = FindingClock(r, f, report_clock);
    std::string id = f.id;
    std::string severity = f.severity.value_or("info");
    h += "<li id=\"finding-" + Anchor(id) + "\">";
    auto saving = f.est_saving_pct;
    if (saving && *saving > 0) h += "<span class=\"saving\">est. saving " + H(Pct(saving)) + "</span>";
    h += "<div class=\"t\">" + H(RelativeTimes(f.title, clock)) + "</div>";
    h += "<div class=\"meta\"><span class=\"badge sev-" + Anchor(severity) + "\">" + H(severity) + "</span> <code>" +
         H(id) + "</code>";
    const std::string &dim = f.dimension, &check = f.checklist;
    if (!dim.empty()) h += " \xC2\xB7 " + H(DimensionTitle(dim));
    if (!check.empty()) h += " \xC2\xB7 checklist: " + H(ChecklistTitle(check));
    h += "</div>";
    if (f.confidence == "low")
      h += "<div class=\"meta\"><span class=\"badge s-warn\">low confidence</span> " +
           H(f.confidence_reason.value_or("")) + "</div>";
    h += EvidenceHtml(r, f, clock);
    const std::string& rec = f.recommendation;
    if (!rec.empty()) h += "<div class=\"rec\"><b>Fix:</b> " + H(RelativeTimes(rec, clock)) + "</div>";
    h += "</li>\n";
  }
  h += "</ol>\n";
  if (findings.size() > kMaxFindings)
    h += "<p class=\"empty\">" + H(Plural(static_cast<double>(findings.size() - kMaxFindings), "more finding")) +
         " in the JSON report.</p>\n";
  h += "</section>\n";
}

void Chart(std::string& h, const char* id, const char* title, const std::string& note) {
  h += fmt::format("<figure class=\"chart\" id=\"chart-{}\"><figcaption>{}</figcaption>", id, title);
  h += fmt::format("<div class=\"chart-body\" data-chart=\"{}\"></div>", id);
  if (!note.empty()) h += "<div class=\"note\">" + H(note) + "</div>";
  h += "</figure>\n";
}

void Charts(std::string& h, const json& r, const json& data) {
  h += "<section id=\"charts\">\n<h2>Charts</h2>\n";
  h += "<noscript><p class=\"empty\">The charts need JavaScript; every number is also in the tables.</p></noscript>\n";
  h += "<div class=\"charts\">\n";
  size_t bucket = data["steps"].value("bucket_size", size_t{1});
  Chart(h, "step-time", "Step time per step",
        bucket > 1 ? fmt::format("{} steps; each bar is the mean of {} steps (line: min to max)",
                                 Count(Number(r, report_field::kStepCount)), bucket)
                   : "");
  Chart(h, "busy-timeline", "GPU busy / idle per step", "share of each step's window (copies/memsets = busy minus kernels)");
  Chart(h, "idle-breakdown", "GPU busy and idle breakdown (all steps)",
        "idle: host_wait = waiting for the CPU to launch work; kernel_wait = short gaps between launched kernels");
  Chart(h, "gpu-categories", "GPU kernel time by category", "share of kernel time");
  Chart(h, "precision", "Precision mix", "share of kernel time by math precision");
  Chart(h, "top-kernels", "Top kernels", "share of kernel time; colour: Tensor Core use and precision (legend below)");
  const json& ranks = Section(r, report_field::kRanks);
  if (ranks.is_array() && ranks.size() > 1) Chart(h, "ranks", "Step time by rank", "");
  h += "</div>\n</section>\n";
}

// Where each step's time goes along its critical path (docs/whatif.md).
void CriticalPath(std::string& h, const json& r) {
  const CriticalPathView v = ViewCriticalPath(r);
  if (!v.available && v.reason == "this report has no critical_path section") return;
  h += "<section id=\"critical-path\">\n<h2>Critical path</h2>\n";
  if (!v.available) {
    h += "<p class=\"empty\">No critical path: " + H(v.reason) + "</p>\n</section>\n";
    return;
  }
  h += "<p>" + H(v.summary) + "</p>\n";
  h += "<table>\n<thead><tr><th class=\"num\">Share</th><th class=\"num\">Time</th><th>On the critical path</th>"
       "<th></th></tr></thead>\n<tbody>\n";
  for (const CriticalPathView::Row& row : v.rows)
    h += "<tr><td class=\"num\">" + H(Pct(row.pct)) + "</td><td class=\"num\">" + H(DurationUs(row.us)) + "</td><td>" +
         H(row.name) + "</td><td><div class=\"cpbar\" style=\"width:" + fmt::format("{:.1f}", std::clamp(row.pct, 0.0, 100.0)) +
         "%\"></div></td></tr>\n";
  h += "</tbody></table>\n";
  if (!v.replay.empty()) h += "<p class=\"cpnote\">" + H(v.replay) + "</p>\n";
  h += "</section>\n";
}

void Kernels(std::string& h, const json& r) {
  const reports::KernelsView kernels = reports::ReadKernelsView(r);
  const std::vector<reports::TopKernel>& top = kernels.top;
  h += "<section id=\"kernels\">\n<h2>Top kernels</h2>\n";
  if (top.empty()) {
    h += "<p class=\"empty\">No kernels in the analysed window.</p>\n</section>\n";
    return;
  }
  size_t rows = std::min(top.size(), kMaxKernelRows);
  const auto all = kernels.all_count;
  h += fmt::format("<details open><summary>The {} kernels with the most GPU time{}</summary>\n", rows,
                   all ? " (of " + Count(all) + " distinct)" : "");
  h += "<table>\n<thead><tr><th class=\"num\">Time</th><th class=\"num\">Total</th><th class=\"num\">Count</th>"
       "<th class=\"num\">Mean</th><th>Category</th><th>Precision</th><th>TC</th><th>Kernel</th></tr></thead>\n<tbody>\n";
  for (size_t i = 0; i < rows; ++i) {
    const reports::TopKernel& k = top[i];
    h += "<tr><td class=\"num\">" + H(Pct(k.pct)) + "</td><td class=\"num\">" + H(DurationUs(k.total_us)) +
         "</td><td class=\"num\">" + H(Count(k.count)) + "</td><td class=\"num\">" + H(DurationUs(k.mean_us)) + "</td><td>" +
         H(k.category) + "</td><td>" + H(k.precision) + "</td><td>" + (k.tensor_core ? "yes" : "no") +
         "</td><td class=\"name\" title=\"" + H(Truncate(k.name, 2000)) + "\">" + H(ShortKernelName(k.name)) + "</td></tr>\n";
  }
  h += "</tbody></table>\n</details>\n</section>\n";
}

void Ranks(std::string& h, const json& r) {
  const reports::RanksView view = reports::ReadRanksView(r);
  const std::vector<reports::RankRow>& ranks = view.ranks;
  if (ranks.size() < 2) return;
  h += "<section id=\"ranks\">\n<h2>Ranks</h2>\n";
  h += fmt::format("<details{}><summary>Per-rank numbers ({} ranks)</summary>\n",
                   ranks.size() <= kOpenRankTableUpTo ? " open" : "", ranks.size());
  h += "<table>\n<thead><tr><th class=\"num\">Rank</th><th class=\"num\">Steps</th><th class=\"num\">Step mean</th>"
       "<th class=\"num\">p90</th><th class=\"num\">GPU busy</th><th class=\"num\">Kernels busy</th>"
       "<th class=\"num\">host_wait</th><th class=\"num\">Tensor Core</th><th>Device</th><th>File</th></tr></thead>\n"
       "<tbody>\n";
  size_t rows = std::min(ranks.size(), kMaxRankRows);
  for (size_t i = 0; i < rows; ++i) {
    const reports::RankRow& rk = ranks[i];
    h += "<tr><td class=\"num\">" + H(Count(rk.rank)) + "</td><td class=\"num\">" + H(Count(rk.steps)) +
         "</td><td class=\"num\">" + H(DurationUs(rk.step_time_mean_us)) + "</td><td class=\"num\">" +
         H(DurationUs(rk.step_time_p90_us)) + "</td><td class=\"num\">" + H(Pct(rk.gpu_busy_pct)) + "</td><td class=\"num\">" +
         H(Pct(rk.gpu_kernel_busy_pct)) + "</td><td class=\"num\">" + H(Pct(rk.gpu_idle_host_wait_pct)) +
         "</td><td class=\"num\">" + H(Pct(rk.tensor_core_kernel_time_pct)) + "</td><td>" + H(rk.device) +
         "</td><td class=\"name\">" + H(rk.input) + "</td></tr>\n";
  }
  h += "</tbody></table>\n";
  // What the job's top-level numbers are (report job.definitions) and how uneven the ranks are.
  auto factor = [](std::optional<double> v) { return v ? fmt::format("{:.2f}x", *v) : std::string("n/a"); };
  if (const auto& imb = view.imbalance)
    h += "<p>Imbalance (max / mean over ranks): step time " + H(factor(imb->step_time)) + ", compute " +
         H(factor(imb->compute)) + ", communication " + H(factor(imb->communication)) +
         ". The job's step time is its slowest rank's per step; GPU busy and Tensor Core shares are means over "
         "ranks; kernel time and shares are of the sum over ranks.</p>\n";
  for (const std::string& w : view.warnings) h += "<p class=\"warn\">" + H(w) + "</p>\n";
  if (ranks.size() > rows)
    h += fmt::format("<p class=\"empty\">{} more ranks in the JSON report.</p>\n", ranks.size() - rows);
  h += "</details>\n</section>\n";
}

void Diagnostics(std::string& h, const json& r) {
  std::vector<DiagnosticEntry> entries = render::Diagnostics(r);
  h += "<section id=\"diagnostics\">\n<h2>Input diagnostics</h2>\n";
  if (entries.empty()) {
    h += "<p class=\"empty\">The inputs were read without problems.</p>\n</section>\n";
    return;
  }
  h += "<ul class=\"diag\">\n";
  for (const DiagnosticEntry& e : entries)
    h += "<li class=\"sev-" + Anchor(e.severity.empty() ? "info" : e.severity) + "\">" + H(e.text) +
         (e.severity == "data_loss" || e.severity == "error" ? " <span class=\"badge sev-warning\">" + H(e.severity) + "</span>" : "") +
         "</li>\n";
  h += "</ul>\n";
  const std::vector<reports::DiagnosticMessage> messages = reports::ReadDiagnosticsView(r).messages;
  if (!messages.empty()) {
    h += "<details><summary>Where each was first seen</summary>\n<table>\n<thead><tr><th>Code</th>"
         "<th>Severity</th><th class=\"num\">Count</th><th>File</th><th class=\"num\">First offset</th><th>First seen</th>"
         "</tr></thead>\n<tbody>\n";
    size_t n = 0;
    for (const reports::DiagnosticMessage& m : messages) {
      if (++n > 200) break;
      const auto offset = m.first_offset;
      h += "<tr><td>" + H(m.code) + "</td><td>" + H(m.severity) + "</td><td class=\"num\">" + H(Count(m.count)) +
           "</td><td class=\"name\">" + H(m.file) + "</td><td class=\"num\">" +
           H(offset && *offset >= 0 ? "byte " + Count(offset) : "-") + "</td><td>" + H(Truncate(m.message, 300)) + "</td></tr>\n";
    }
    h += "</tbody></table>\n</details>\n";
  }
  h += "</section>\n";
}

}  // namespace

std::string HtmlCard(const std::string& key, const std::string& value, const std::string& detail) {
  const char* v_class = DisplayWidth(value) > 16 ? "v long" : "v";
  return "<div class=\"card\"><div class=\"k\">" + HtmlEscape(key) + "</div><div class=\"" + v_class + "\">" +
         HtmlEscape(value) + "</div><div class=\"d\">" + HtmlEscape(detail) + "</div></div>\n";
}

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string RenderHtml(const json& report) {
  json data = ChartData(report);
  std::string h;
  h.reserve(64 * 1024);
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched: styles and scripts are inline, images only data: URIs.
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta name=\"generator\" content=\"ampscope " + H(String(report, report_field::kToolVersion)) + "\">\n";
  h += "<title>ampscope: " + H(InputsSummary(report)) + "</title>\n";
  h += "<style>" + std::string(html_assets::kCss) + "</style>\n</head>\n<body>\n<main>\n";
  Header(h, report);
  TraceIntegrity(h, report);
  Matrix(h, report);
  Checklist(h, report);
  Findings(h, report);
  Charts(h, report, data);
  CriticalPath(h, report);
  AppendRooflineSection(h, report);
  AppendMemorySnapshotHtml(h, report);
  h += NcuHtmlSection(report);
  Kernels(h, report);
  Ranks(h, report);
  Diagnostics(h, report);
  h += "<footer>Generated by ampscope " + H(String(report, report_field::kToolVersion)) + " from a report with schema " +
       H(String(report, report_field::kSchema)) + ". This page is self-contained and loads nothing from the network.</footer>\n";
  h += "</main>\n<script type=\"application/json\" id=\"ampscope-data\">" + ScriptJson(data) + "</script>\n";
  h += "<script>" + std::string(html_assets::kScript) + "</script>\n</body>\n</html>\n";
  return InVendorWords(report, std::move(h));
}

}  // namespace ampscope::render
