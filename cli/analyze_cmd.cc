// ampscope analyze TRACE... : read traces (ranks of one job), analyse, write reports.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "analyzers/analyze.h"
#include "analyzers/gpu_peaks.h"
#include "base/atomic_write.h"
#include "base/step_range.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "reports/chrome_trace.h"
#include "reports/json_report.h"
#include "reports/perfetto_writer.h"
#include "reports/progress.h"
#include "trace/reader.h"

namespace ampscope::cli {

namespace {

int RunAnalyze(int argc, char** argv) {
  CLI::App app{"Analyse PyTorch-profiler (Kineto) JSON, .amptrace files or Nsight Systems SQLite exports; several files are ranks of one job."};
  app.name("ampscope analyze");
  std::vector<std::string> inputs;
  std::string report_path, chrome_path, perfetto_path, html_path, markdown_path, steps_text, gpu, pattern;
  bool quiet = false, no_color = false, verbose = false;
  app.add_option("traces", inputs, "Trace files (.json, .json.gz, .amptrace, nsys export .sqlite)")->required();
  app.add_option("-o,--output", report_path, "Write the JSON report here");
  app.add_option("--chrome-trace", chrome_path, "Write an annotated Chrome trace (Perfetto / chrome://tracing)");
  app.add_option("--perfetto", perfetto_path, "Write the annotated trace as Perfetto protobuf (.pftrace)");
  app.add_option("--html", html_path, "Write a self-contained HTML report");
  app.add_option("--markdown", markdown_path, "Write a Markdown summary");
  app.add_option("--gpu", gpu, "GPU to use for peak lookups: a row id (e.g. A100-80GB-SXM4) or a device name, exactly");
  app.add_option("--steps", steps_text, "Analyse only steps N..M (0-based positions among detected steps)");
  app.add_option("--step-pattern", pattern,
                 "Regex for NVTX/user ranges that mark a step when there is no ProfilerStep#N");
  app.add_flag("-q,--quiet", quiet, "Do not print the terminal summary");
  app.add_flag("--no-color", no_color, "No colour in the terminal summary");
  app.add_flag("-v,--verbose", verbose,
               "Terminal summary with the checklist thresholds and sources, how each saving is estimated, full kernel names");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

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
  if (!pattern.empty()) options.step_range_pattern = pattern;
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
  if (Status paths = CheckOutputPaths(inputs, {report_path, chrome_path, perfetto_path, html_path, markdown_path});
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
      std::fprintf(stderr, "ampscope: %s\n", trace.status().message().c_str());
      return 2;
    }
    traces.push_back(std::move(trace).value());
  }

  JobAnalysis job = AnalyzeJob(traces, options);
  if (job.ranks.empty()) {
    std::fprintf(stderr, "ampscope: no trace could be analysed\n");
    return 2;
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
  if (Status written = WriteOutputs(outputs); !written.ok()) {
    std::fprintf(stderr, "ampscope: %s\n", written.message().c_str());
    return 2;
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

AMPSCOPE_REGISTER_COMMAND("analyze", "analyse traces and write reports (JSON, HTML, Markdown, Chrome trace)",
                          RunAnalyze);

}  // namespace ampscope::cli
