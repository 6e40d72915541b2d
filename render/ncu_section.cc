#include "render/ncu_section.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "render/format.h"
#include "render/html_report.h"
#include "render/kernel_names.h"
#include "render/markdown_report.h"
#include "render/text_table.h"
#include "reports/contract/report_fields.h"

namespace ampscope::render {

namespace {

using nlohmann::json;

constexpr size_t kMaxRows = 10;

// The launches with the most weighted time, largest first.
std::vector<const json*> TopLaunches(const json& ncu) {
  std::vector<const json*> rows;
  const json& kernels = Section(ncu, "/kernels");
  if (!kernels.is_array()) return rows;
  for (const json& k : kernels) rows.push_back(&k);
  std::stable_sort(rows.begin(), rows.end(), [](const json* a, const json* b) {
    return Number(*a, "/weight_us").value_or(0) > Number(*b, "/weight_us").value_or(0);
  });
  if (rows.size() > kMaxRows) rows.resize(kMaxRows);
  return rows;
}

std::string TopStall(const json& k) {
  const json& s = Section(k, "/stall_reasons");
  if (!s.is_array() || s.empty()) return "n/a";
  return fmt::format("{} {}", String(s[0], "/reason"), Pct(Number(s[0], "/share_pct"), 0));
}

size_t KernelCount(const json& ncu) {
  const json& k = Section(ncu, "/kernels");
  return k.is_array() ? k.size() : 0;
}

std::string Intro(const json& ncu) {
  const std::string mode = String(ncu, "/mode");
  if (mode == "counters")
    return "Hardware-counter tracks of the trace (PM sampling) fill the matrix's measured values.";
  const size_t files = Section(ncu, "/files").is_array() ? Section(ncu, "/files").size() : 1;
  const std::string from = files > 1 ? fmt::format("{} files", files) : String(ncu, "/file");
  std::string s = fmt::format("{} launches from {} ({} form), weighted by {}.", KernelCount(ncu), from,
                              String(ncu, "/shape"), String(ncu, "/weighting"));
  if (mode == "joined")
    s += fmt::format(" Joined to {} of {} trace kernels: {} of kernel time covered.",
                     Count(Number(ncu, "/join/trace_kernels_matched")), Count(Number(ncu, "/join/trace_kernels")),
                     Pct(Number(ncu, "/join/kernel_time_covered_pct")));
  return s;
}

}  // namespace

std::string SavingBasis(const json& report) {
  if (String(report, "/ncu/mode") == "alone") return "of profiled kernel time";
  // Without steps the window is the one unit: a saving of it, not of a step.
  return Number(report, report_field::kStepCount).value_or(0) > 0 ? "of step time" : "of the window";
}

std::string RankingWords(const json& report) {
  return "ranked by estimated saving " + SavingBasis(report);
}

std::string NcuTerminalSection(const json& report, size_t width, bool color) {
  const json& ncu = Section(report, "/ncu");
  if (!ncu.is_object()) return "";
  std::string out = "\n" + Paint(Truncate("Measured kernels (" + String(ncu, "/source") + ")", width), Color::kBold, color) + "\n";
  const std::string intro = Intro(ncu);
  out += WrapParagraph(intro, width, "  ", "  ");
  const std::vector<const json*> rows = TopLaunches(ncu);
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
    for (const json* k : rows)
      t.AddRow({{DurationUs(Number(*k, "/weight_us"))}, {String(*k, "/bound")}, {Pct(Number(*k, "/sm_throughput_pct"))},
                {Pct(Number(*k, "/memory_throughput_pct"))}, {Pct(Number(*k, "/dram_throughput_pct"))},
                {Pct(Number(*k, "/l2_hit_rate_pct"))}, {Pct(Number(*k, "/achieved_occupancy_pct"))}, {TopStall(*k)},
                {ShortKernelName(String(*k, "/name"))}});
    TableStyle style;
    style.width = width;
    style.indent = "  ";
    style.color = color;
    out += t.Render(style);
  }
  const json& counters = Section(ncu, "/counters");
  if (counters.is_array())
    for (const json& c : counters)
      out += WrapParagraph(fmt::format("{}: mean {} over {} samples ({})", String(c, "/field"), Pct(Number(c, "/mean")),
                                       Count(Number(c, "/samples")), String(c, "/name")),
                           width, "  ", "    ");
  return out;
}

std::string NcuMarkdownSection(const json& report) {
  const json& ncu = Section(report, "/ncu");
  if (!ncu.is_object()) return "";
  std::string out = "### Measured kernels (" + MarkdownEscape(String(ncu, "/source")) + ")\n\n" + MarkdownEscape(Intro(ncu)) + "\n\n";
  const std::vector<const json*> rows = TopLaunches(ncu);
  if (!rows.empty()) {
    out += "| Time | Bound | SM | Memory | DRAM | L2 hit | Occupancy | Top stall | Kernel |\n";
    out += "|---:|---|---:|---:|---:|---:|---:|---|---|\n";
    for (const json* k : rows)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", DurationUs(Number(*k, "/weight_us")),
                         MarkdownEscape(String(*k, "/bound")), Pct(Number(*k, "/sm_throughput_pct")),
                         Pct(Number(*k, "/memory_throughput_pct")), Pct(Number(*k, "/dram_throughput_pct")),
                         Pct(Number(*k, "/l2_hit_rate_pct")), Pct(Number(*k, "/achieved_occupancy_pct")),
                         MarkdownEscape(TopStall(*k)), MarkdownCode(ShortKernelName(String(*k, "/name")), true));
    out += "\n";
  }
  return out;
}

std::string NcuHtmlSection(const json& report) {
  const json& ncu = Section(report, "/ncu");
  if (!ncu.is_object()) return "";
  std::string h = "<section id=\"ncu\">\n<h2>Measured kernels (" + HtmlEscape(String(ncu, "/source")) + ")</h2>\n<p>" +
                  HtmlEscape(Intro(ncu)) + "</p>\n";
  const std::vector<const json*> rows = TopLaunches(ncu);
  if (!rows.empty()) {
    h += "<table>\n<thead><tr><th class=\"num\">Time</th><th>Bound</th><th class=\"num\">SM</th><th class=\"num\">Memory</th>"
         "<th class=\"num\">DRAM</th><th class=\"num\">L2 hit</th><th class=\"num\">Occupancy</th><th>Top stall</th>"
         "<th>Kernel</th></tr></thead>\n<tbody>\n";
    for (const json* k : rows)
      h += "<tr><td class=\"num\">" + HtmlEscape(DurationUs(Number(*k, "/weight_us"))) + "</td><td>" +
           HtmlEscape(String(*k, "/bound")) + "</td><td class=\"num\">" + HtmlEscape(Pct(Number(*k, "/sm_throughput_pct"))) +
           "</td><td class=\"num\">" + HtmlEscape(Pct(Number(*k, "/memory_throughput_pct"))) + "</td><td class=\"num\">" +
           HtmlEscape(Pct(Number(*k, "/dram_throughput_pct"))) + "</td><td class=\"num\">" +
           HtmlEscape(Pct(Number(*k, "/l2_hit_rate_pct"))) + "</td><td class=\"num\">" +
           HtmlEscape(Pct(Number(*k, "/achieved_occupancy_pct"))) + "</td><td>" + HtmlEscape(TopStall(*k)) +
           "</td><td class=\"name\" title=\"" + HtmlEscape(Truncate(String(*k, "/name"), 2000)) + "\">" +
           HtmlEscape(ShortKernelName(String(*k, "/name"))) + "</td></tr>\n";
    h += "</tbody></table>\n";
  }
  return h + "</section>\n";
}

}  // namespace ampscope::render
