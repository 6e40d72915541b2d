// ampscope analyze TRACE... : read traces (ranks of one job), analyse, write reports.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analyzers/analyze.h"
#include "analyzers/gpu_peaks.h"
#include "base/atomic_write.h"
#include "base/step_range.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "export/chrome_trace.h"
#include "export/perfetto_writer.h"
#include "export/sqlite/sqlite_export.h"
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "reports/json_report.h"
#include "reports/progress.h"
#include "trace/reader.h"

namespace ampscope::cli {

namespace {

// --steps selects by position among the steps detected in each trace. A range that starts past
// the last step is an error naming how many there are; one that runs past it is cut with a
// warning (before: `--steps 5..9` on 6 steps silently analysed one).
std::optional<int> CheckStepRange(const Trace& trace, const AnalysisOptions& options, const std::string& text) {
  if (!options.first_step && !options.last_step) return std::nullopt;  // "..": every step, none needed
  AnalysisOptions all = options;
  all.first_step.reset();
  all.last_step.reset();
  const LaunchIndex launches(trace);
  const int64_t count = static_cast<int64_t>(DetectSteps(trace, all, launches).steps.size());
  const int64_t first = options.first_step.value_or(0);
  const std::string& path = trace.metadata.path;
  if (count == 0)
    return UsageError("analyze", fmt::format("--steps {}: {} has no detected steps (no ProfilerStep#N and no range "
                                             "matching --step-pattern)", text, path));
  const std::string have = fmt::format("{} has {} step{} (0..{})", path, count, count == 1 ? "" : "s", count - 1);
  if (first >= count) return UsageError("analyze", fmt::format("--steps {} selects no step: {}", text, have));
  if (options.last_step && *options.last_step >= count)
    std::fprintf(stderr, "ampscope analyze: warning: --steps %s cut to %lld..%lld: %s\n", text.c_str(),
                 static_cast<long long>(first), static_cast<long long>(count - 1), have.c_str());
  return std::nullopt;
}

int RunAnalyze(int argc, char** argv) {
  CLI::App app{"Analyse PyTorch-profiler (Kineto) JSON, .amptrace files or Nsight Systems SQLite exports; several files are ranks of one job."};
  StyleApp(app, "analyze");
  app.footer("Exit codes: 0 analysed, 2 usage or input error (one line on stderr, no output written).");
  std::vector<std::string> inputs;
  std::string report_path, chrome_path, perfetto_path, sqlite_path, html_path, markdown_path, steps_text, gpu, pattern;
  bool quiet = false, no_color = false, verbose = false;
  app.add_option("traces", inputs, "Trace files (.json, .json.gz, .amptrace, nsys export .sqlite)")->required();
  app.add_option("-o,--output", report_path, "Write the JSON report here");
  app.add_option("--chrome-trace", chrome_path, "Write an annotated Chrome trace (Perfetto / chrome://tracing)");
  app.add_option("--perfetto", perfetto_path, "Write the annotated trace as Perfetto protobuf (.pftrace)");
  app.add_option("--sqlite", sqlite_path,
                 "Write the kernels, ops, steps, copies, syncs, idle gaps, findings, checklist and matrix as a SQLite "
                 "database (tables: docs/sqlite_schema.md)");
  app.add_option("--html", html_path, "Write a self-contained HTML report");
  app.add_option("--markdown", markdown_path, "Write a Markdown summary");
  app.add_option("--gpu", gpu, "GPU to use for peak lookups: a row id (e.g. A100-80GB-SXM4) or a device name, exactly");
  app.add_option("--steps", steps_text,
                 "Analyse only steps N..M (0-based positions among the detected steps, inclusive; N.., ..M and N "
                 "also work). A range that runs past the last step is cut, with a warning");
  app.add_option("--step-pattern", pattern,
                 "Regex for NVTX/user ranges that mark a step when there is no ProfilerStep#N");
  app.add_flag("-q,--quiet", quiet, "Do not print the terminal summary");
  app.add_flag("--no-color", no_color, "No colour in the terminal summary");
  app.add_flag("-v,--verbose", verbose,
               "Terminal summary with the checklist thresholds and sources, how each saving is estimated, full kernel names");
  if (std::optional<int> done = ParseArgs(app, "analyze", argc, argv)) return *done;

  AnalysisOptions options;
  if (!gpu.empty()) {
    // Exact names only (a fuzzy match silently used another GPU's peaks): say what is close.
    StatusOr<const GpuPeak*> row = ResolveGpuOverride(gpu, BuiltinGpuPeaks());
    if (!row.ok()) {
      std::fprintf(stderr, "ampscope analyze: %s\n", row.status().message().c_str());
      return 2;
    }
  }
  options.gpu_override = gpu;
  if (!pattern.empty()) {
    // Checked here so that a bad pattern is named, not reported as "no trace could be analysed".
    try {
      std::regex check(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return UsageError("analyze", "--step-pattern '" + pattern + "' is not a valid ECMAScript regex: " + e.what());
    }
    options.step_range_pattern = pattern;
  }
  if (!steps_text.empty()) {
    StatusOr<StepRange> range = ParseStepRange(steps_text);
    if (!range.ok()) {
      std::fprintf(stderr, "ampscope analyze: --steps: %s\n", range.status().message().c_str());
      return 2;
    }
    options.first_step = range->first;
    options.last_step = range->last;
  }
  // Before reading anything: no output may overwrite an input or another output.
  if (Status paths = CheckOutputPaths(inputs, {report_path, chrome_path, perfetto_path, sqlite_path, html_path, markdown_path});
      !paths.ok()) {
    std::fprintf(stderr, "ampscope analyze: %s\n", paths.message().c_str());
    return 2;
  }

  std::vector<Trace> traces;
  traces.reserve(inputs.size());
  for (const std::string& path : inputs) {
    std::error_code ec;
    uint64_t size = std::filesystem::file_size(path, ec);
    ProgressBar progress("reading " + path, ec ? 0 : size);
    ReadOptions ropts;
    ropts.progress = [&progress](uint64_t done, uint64_t /*total*/) { progress.Update(done); };
    StatusOr<Trace> trace = ReadTrace(path, ropts);
    progress.Finish();
    if (!trace.ok()) {
      return UsageError("analyze", trace.status().message());
    }
    traces.push_back(std::move(trace).value());
  }
  if (!steps_text.empty()) {
    for (const Trace& trace : traces)
      if (std::optional<int> failed = CheckStepRange(trace, options, steps_text)) return *failed;
  }

  JobAnalysis job = AnalyzeJob(traces, options);
  if (job.ranks.empty()) {
    return UsageError("analyze", "no trace could be analysed");
  }
  nlohmann::json report = BuildJsonReport(job, traces, options);

  // Render the text outputs, then write the whole set: a failure leaves none of them behind.
  std::vector<OutputSpec> outputs;
  if (!report_path.empty())
    outputs.push_back(TextOutput(report_path, report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  if (!html_path.empty()) outputs.push_back(TextOutput(html_path, render::RenderHtml(report)));
  if (!markdown_path.empty()) outputs.push_back(TextOutput(markdown_path, render::RenderMarkdown(report)));
  if (!chrome_path.empty())
    outputs.push_back({chrome_path, [&](std::ostream& o) { return WriteChromeTrace(traces, job, o); }});
  if (!perfetto_path.empty())
    outputs.push_back({perfetto_path, [&](std::ostream& o) { return WritePerfettoTrace(traces, job, o); }});
  if (!sqlite_path.empty()) {
    SqliteExportOptions sqlite_options;
    sqlite_options.tool_version = AMPSCOPE_VERSION;
    outputs.push_back({sqlite_path, [&traces, &job, sqlite_options](std::ostream& o) {
                         return WriteSqliteExport(traces, job, sqlite_options, o);
                       }});
  }
  if (Status written = WriteOutputs(outputs); !written.ok()) {
    return UsageError("analyze", written.message());
  }

  if (!quiet) {
    render::TerminalOptions terminal;
    terminal.width = render::TerminalWidth(STDOUT_FILENO);
    terminal.color = !no_color && render::TerminalWantsColor(stdout);
    terminal.verbose = verbose;
    std::fputs(render::RenderTerminalSummary(report, terminal).c_str(), stdout);
  }
  return FinishStdout("analyze", 0);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("analyze", "analyse traces and write reports (JSON, HTML, Markdown, Chrome trace, Perfetto, SQLite)",
                          RunAnalyze);

}  // namespace ampscope::cli
