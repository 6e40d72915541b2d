#include "cli/report_outputs.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "render/html_report.h"
#include "reports/json_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"

namespace ampscope::cli {

// The per-rank views (table, imbalance line, roofline) are read from "ranks" by the terminal
// summary, Markdown and HTML alike: a report one of them shows holds it, whatever else is written.
bool ReportNeedsRanks(const ReportPaths& paths, bool terminal_summary) {
  return terminal_summary || !paths.html.empty() || !paths.markdown.empty();
}

std::vector<OutputSpec> ReportOutputs(const nlohmann::json& report, const JobAnalysis& job, const ReportPaths& paths) {
  std::vector<OutputSpec> outputs;
  if (!paths.json.empty())
    outputs.push_back({paths.json, [&report, &job](std::ostream& out) {
                         return report.contains("ranks") ? WriteReportText(report, out) : WriteReportText(report, job.ranks, out);
                       }});
  if (!paths.html.empty()) outputs.push_back(TextOutput(paths.html, render::RenderHtml(report)));
  if (!paths.markdown.empty()) outputs.push_back(TextOutput(paths.markdown, render::RenderMarkdown(report)));
  return outputs;
}

Status WriteReportStdout(const nlohmann::json& report, const JobAnalysis& job) {
  std::ostringstream text;
  Status s = report.contains("ranks") ? WriteReportText(report, text) : WriteReportText(report, job.ranks, text);
  if (!s.ok()) return s;
  const std::string bytes = std::move(text).str();
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
    return Status::Error("-o -: cannot write the report to stdout");
  return Status::Ok();
}

void PrintTerminalSummary(const nlohmann::json& report, const SummaryStyle& style) {
  if (style.quiet) return;
  render::TerminalOptions terminal;
  terminal.width = render::TerminalWidth(STDOUT_FILENO);
  terminal.color = !style.no_color && render::TerminalWantsColor(stdout);
  terminal.verbose = style.verbose;
  std::fputs(render::RenderTerminalSummary(report, terminal).c_str(), stdout);
}

}  // namespace ampscope::cli
