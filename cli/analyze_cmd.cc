// ampscope analyze TRACE... : read traces (ranks of one job), analyse, write reports.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "analyzers/analyze.h"
#include "cli/command.h"
#include "cli/stdout_check.h"
#include "reports/chrome_trace.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/markdown_report.h"
#include "reports/perfetto_writer.h"
#include "reports/progress.h"
#include "reports/terminal_summary.h"
#include "trace/trace_reader.h"

namespace ampscope::cli {

namespace {

// Parses "N..M", "N..", "..M" or "N" into the analysis options.
bool ParseStepRange(const std::string& text, AnalysisOptions& options) {
  static const std::regex re(R"(^\s*(\d*)\s*(\.\.\s*(\d*))?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return false;
  if (m[1].length() > 0) options.first_step = std::stoll(m[1]);
  if (m[2].matched) {
    if (m[3].length() > 0) options.last_step = std::stoll(m[3]);
  } else if (m[1].length() > 0) {
    options.last_step = options.first_step;
  } else {
    return false;
  }
  return !(options.first_step && options.last_step && *options.last_step < *options.first_step);
}


int RunAnalyze(int argc, char** argv) {
  CLI::App app{"Analyse PyTorch-profiler (Kineto) JSON or .amptrace files; several files are ranks of one job."};
  app.name("ampscope analyze");
  std::vector<std::string> inputs;
  std::string report_path, chrome_path, perfetto_path, html_path, markdown_path, steps_text, gpu, pattern;
  bool quiet = false, no_color = false;
  app.add_option("traces", inputs, "Trace files (.json, .json.gz, .amptrace)")->required();
  app.add_option("-o,--output", report_path, "Write the JSON report here");
  app.add_option("--chrome-trace", chrome_path, "Write an annotated Chrome trace (Perfetto / chrome://tracing)");
  app.add_option("--perfetto", perfetto_path, "Write the annotated trace as Perfetto protobuf (.pftrace)");
  app.add_option("--html", html_path, "Write a self-contained HTML report");
  app.add_option("--markdown", markdown_path, "Write a Markdown summary");
  app.add_option("--gpu", gpu, "GPU to use for peak lookups when the trace does not say (e.g. A100-SXM4-80GB)");
  app.add_option("--steps", steps_text, "Analyse only steps N..M (0-based positions among detected steps)");
  app.add_option("--step-pattern", pattern,
                 "Regex for NVTX/user ranges that mark a step when there is no ProfilerStep#N");
  app.add_flag("-q,--quiet", quiet, "Do not print the terminal summary");
  app.add_flag("--no-color", no_color, "No colour in the terminal summary");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  AnalysisOptions options;
  options.gpu_override = gpu;
  if (!pattern.empty()) options.step_range_pattern = pattern;
  if (!steps_text.empty() && !ParseStepRange(steps_text, options)) {
    std::fprintf(stderr, "ampscope analyze: --steps: expected N..M, N.., ..M or N, got '%s'\n", steps_text.c_str());
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

  // Render everything first, then write: a failure leaves no partial set of outputs.
  std::vector<std::pair<std::string, std::string>> outputs;
  if (!report_path.empty()) outputs.emplace_back(report_path, report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!html_path.empty()) outputs.emplace_back(html_path, RenderHtml(report));
  if (!markdown_path.empty()) outputs.emplace_back(markdown_path, RenderMarkdown(report));
  for (const auto& [path, text] : outputs) {
    Status st = WriteTextFile(text, path);
    if (!st.ok()) {
      std::fprintf(stderr, "ampscope: %s\n", st.message().c_str());
      return 2;
    }
  }
  auto write_stream = [&](const std::string& path, auto writer) -> bool {
    std::string tmp = path + ".tmp." + std::to_string(getpid());
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    Status st = out ? writer(out) : Status::Error(path + ": cannot write");
    out.close();
    if (st.ok() && !out) st = Status::Error(path + ": write failed");
    if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) st = Status::Error(path + ": cannot rename into place");
    if (!st.ok()) {
      std::remove(tmp.c_str());
      std::fprintf(stderr, "ampscope: %s\n", st.message().c_str());
      return false;
    }
    return true;
  };
  if (!chrome_path.empty() &&
      !write_stream(chrome_path, [&](std::ostream& o) { return WriteChromeTrace(traces, job, o); }))
    return 2;
  if (!perfetto_path.empty() &&
      !write_stream(perfetto_path, [&](std::ostream& o) { return WritePerfettoTrace(traces, job, o); }))
    return 2;

  if (!quiet) std::fputs(RenderTerminalSummary(report, !no_color && TerminalWantsColor(stdout)).c_str(), stdout);
  return FinishStdout("analyze", 0);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("analyze", "analyse traces and write reports (JSON, HTML, Markdown, Chrome trace)",
                          RunAnalyze);

}  // namespace ampscope::cli
