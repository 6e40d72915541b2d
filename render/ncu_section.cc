#include "render/ncu_section.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "render/format.h"
#include "render/html_report.h"
#include "render/kernel_names.h"
#include "render/markdown_report.h"
#include "render/text_table.h"
#include "reports/contract/ncu_view.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

namespace {

using nlohmann::json;
using reports::NcuKernel;
using reports::NcuView;

constexpr size_t kMaxRows = 10;

// The launches with the most weighted time, largest first.
std::vector<const NcuKernel*> TopLaunches(const NcuView& ncu) {
  std::vector<const NcuKernel*> rows;
  for (const NcuKernel& k : ncu.kernels) rows.push_back(&k);
  std::stable_sort(rows.begin(), rows.end(), [](const NcuKernel* a, const NcuKernel* b) {
    return a->weight_us.value_or(0) > b->weight_us.value_or(0);
  });
  if (rows.size() > kMaxRows) rows.resize(kMaxRows);
  return rows;
}

std::string TopStall(const NcuKernel& k) {
  if (k.stall_reasons.empty()) return "n/a";
  return fmt::format("{} {}", k.stall_reasons[0].reason, Pct(k.stall_reasons[0].share_pct, 0));
}

std::string Intro(const NcuView& ncu) {
  const std::string& mode = ncu.mode;
  if (mode == "counters")
    return "Hardware-counter tracks of the trace (PM sampling) fill the matrix's measured values.";
  const size_t files = ncu.files.value_or(1);
  const std::string from = files > 1 ? fmt::format("{} files", files) : ncu.file;
  std::string s = fmt::format("{} launches from {} ({} form), weighted by {}.", ncu.kernels.size(), from, ncu.shape, ncu.weighting);
  if (mode == "joined")
    s += fmt::format(" Joined to {} of {} trace kernels: {} of kernel time covered.", Count(ncu.join.trace_kernels_matched),
                     Count(ncu.join.trace_kernels), Pct(ncu.join.kernel_time_covered_pct));
  return s;
}

}  // namespace

std::string SavingBasis(const json& report) {
  if (reports::NcuMode(report) == "alone") return "of profiled kernel time";
  // Without steps the window is the one unit: a saving of it, not of a step.
  return Number(report, report_field::kStepCount).value_or(0) > 0 ? "of step time" : "of the window";
}

std::string RankingWords(const json& report) {
  return "ranked by estimated saving " + SavingBasis(report);
}

std::string NcuTerminalSection(const json& report, size_t width, bool color) {
  const std::optional<NcuView> view = reports::ReadNcuView(report);
  if (!view) return "";
  const NcuView& ncu = *view;
  std::string out = "\n" + Paint(Truncate("Measured kernels (" + ncu.source + ")", width), Color::kBold, color) + "\n";
  const std::string intro = Intro(ncu);
  out += WrapParagraph(intro, width, "  ", "  ");
  const std::vector<const NcuKernel*> rows = TopLaunches(ncu);
  if (!rows.empty()) {
    using Align = TextTable::Align;
    auto col = [](std::string h, Align a, size_t min = 6, int priority = 0, TextTable::Overflow o = TextTable::Overflow::kKeep) {
      TextTable::Column c;
      c.header = std::move(h);
      c.align = a;
      c.min_width = min;
      c.priority = priority;
      c.overflow = o;
      return c;
    };
    TextTable t({col("TIME", Align::kRight), col("BOUND", Align::kLeft), col("SM", Align::kRight), col("MEM", Align::kRight),
                 col("DRAM", Align::kRight), col("L2 HIT", Align::kRight), col("OCC", Align::kRight),
                 col("TOP STALL", Align::kLeft, 8), col("KERNEL", Align::kLeft, 12, 1, TextTable::Overflow::kTruncate)});
    for (const NcuKernel* k : rows)
      t.AddRow({{DurationUs(k->weight_us)}, {k->bound}, {Pct(k->sm_throughput_pct)}, {Pct(k->memory_throughput_pct)},
                {Pct(k->dram_throughput_pct)}, {Pct(k->l2_hit_rate_pct)}, {Pct(k->achieved_occupancy_pct)}, {TopStall(*k)},
                {ShortKernelName(k->name)}});
    TableStyle style;
    style.width = width;
    style.indent = "  ";
    style.color = color;
    out += t.Render(style);
  }
  for (const reports::NcuCounter& c : ncu.counters)
    out += WrapParagraph(fmt::format("{}: mean {} over {} samples ({})", c.field, Pct(c.mean), Count(c.samples), c.name), width,
                         "  ", "    ");
  return out;
}

std::string NcuMarkdownSection(const json& report) {
  const std::optional<NcuView> view = reports::ReadNcuView(report);
  if (!view) return "";
  const NcuView& ncu = *view;
  std::string out = "### Measured kernels (" + MarkdownEscape(ncu.source) + ")\n\n" + MarkdownEscape(Intro(ncu)) + "\n\n";
  const std::vector<const NcuKernel*> rows = TopLaunches(ncu);
  if (!rows.empty()) {
    out += "| Time | Bound | SM | Memory | DRAM | L2 hit | Occupancy | Top stall | Kernel |\n";
    out += "|---:|---|---:|---:|---:|---:|---:|---|---|\n";
    for (const NcuKernel* k : rows)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", DurationUs(k->weight_us), MarkdownEscape(k->bound),
                         Pct(k->sm_throughput_pct), Pct(k->memory_throughput_pct), Pct(k->dram_throughput_pct),
                         Pct(k->l2_hit_rate_pct), Pct(k->achieved_occupancy_pct), MarkdownEscape(TopStall(*k)),
                         MarkdownCode(ShortKernelName(k->name), true));
    out += "\n";
  }
  return out;
}

std::string NcuHtmlSection(const json& report) {
  const std::optional<NcuView> view = reports::ReadNcuView(report);
  if (!view) return "";
  const NcuView& ncu = *view;
  std::string h = "<section id=\"ncu\">\n<h2>Measured kernels (" + HtmlEscape(ncu.source) + ")</h2>\n<p>" +
                  HtmlEscape(Intro(ncu)) + "</p>\n";
  const std::vector<const NcuKernel*> rows = TopLaunches(ncu);
  if (!rows.empty()) {
    h += "<table>\n<thead><tr><th class=\"num\">Time</th><th>Bound</th><th class=\"num\">SM</th><th class=\"num\">Memory</th>"
         "<th class=\"num\">DRAM</th><th class=\"num\">L2 hit</th><th class=\"num\">Occupancy</th><th>Top stall</th>"
         "<th>Kernel</th></tr></thead>\n<tbody>\n";
    for (const NcuKernel* k : rows)
      h += "<tr><td class=\"num\">" + HtmlEscape(DurationUs(k->weight_us)) + "</td><td>" + HtmlEscape(k->bound) +
           "</td><td class=\"num\">" + HtmlEscape(Pct(k->sm_throughput_pct)) + "</td><td class=\"num\">" +
           HtmlEscape(Pct(k->memory_throughput_pct)) + "</td><td class=\"num\">" + HtmlEscape(Pct(k->dram_throughput_pct)) +
           "</td><td class=\"num\">" + HtmlEscape(Pct(k->l2_hit_rate_pct)) + "</td><td class=\"num\">" +
           HtmlEscape(Pct(k->achieved_occupancy_pct)) + "</td><td>" + HtmlEscape(TopStall(*k)) + "</td><td class=\"name\" title=\"" +
           HtmlEscape(Truncate(k->name, 2000)) + "\">" + HtmlEscape(ShortKernelName(k->name)) + "</td></tr>\n";
    h += "</tbody></table>\n";
  }
  return h + "</section>\n";
}

}  // namespace ampscope::render
