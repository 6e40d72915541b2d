// ampscope merge S... : the job report from rank summaries (`analyze FILE --summary-out S`),
// equal to the report of analysing the same files together.
#include <algorithm>
#include <cstdio>
#include <optional>

#include <CLI/CLI.hpp>

#include "analyzers/analyze.h"
#include "base/parallel.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/input_dirs.h"
#include "cli/report_outputs.h"
#include "cli/stdout_check.h"
#include "pipeline/job.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"

namespace ampscope::cli {

namespace {

// Reads every summary, `threads` at a time; the first failure by input order is returned.
StatusOr<std::vector<RankSummary>> ReadSummaries(const std::vector<std::string>& paths, size_t threads) {
  std::vector<std::optional<StatusOr<RankSummary>>> read(paths.size());
  ParallelFor(paths.size(), threads, [&](size_t i) { read[i] = ReadRankSummary(paths[i]); });
  std::vector<RankSummary> out;
  out.reserve(paths.size());
  for (auto& r : read) {
    if (!r->ok()) return r->status();
    out.push_back(std::move(*r).value());
  }
  return out;
}

int RunMerge(int argc, char** argv) {
  CLI::App app{"Build the job report from rank summaries (ampscope analyze FILE --summary-out S): the same report "
               "as analysing the rank files together."};
  StyleApp(app, "merge");
  app.footer("Exit codes: 0 merged, 2 usage or input error (one line on stderr, no output written).");
  std::vector<std::string> inputs;
  ReportPaths paths;
  SummaryStyle style;
  std::string jobs_text;
  app.add_option("summaries", inputs, "Rank summaries (.summary.json, or .summary.json.gz), one per rank, or a directory of them")->required();
  app.add_option("-o,--output", paths.json, "Write the JSON report here (- : to stdout, instead of the terminal summary)");
  app.add_option("--html", paths.html, "Write a self-contained HTML report");
  app.add_option("--markdown", paths.markdown, "Write a Markdown summary");
  app.add_option("-j,--jobs", jobs_text, "Summaries read at once (default, or 0: all cores)")->type_name("N");
  app.add_flag("-q,--quiet", style.quiet, "Do not print the terminal summary");
  app.add_flag("--no-color", style.no_color, "No colour in the terminal summary");
  app.add_flag("-v,--verbose", style.verbose, "Terminal summary with thresholds, sources and full kernel names");
  if (std::optional<int> done = ParseArgs(app, "merge", argc, argv)) return *done;
  if (std::optional<int> empty = RefuseEmptyPaths(app, "merge", {"-o", "--html", "--markdown"})) return *empty;

  int64_t jobs = 0;
  if (!jobs_text.empty() && !ParseIntOption("merge", jobs_text, "-j/--jobs", 0, 4096, &jobs)) return kExitUsage;
  if (StatusOr<std::vector<std::string>> expanded = ExpandInputDirectories("merge", inputs, DirInputs::kSummaries);
      expanded.ok())
    inputs = std::move(expanded).value();
  else
    return UsageError("merge", expanded.status().message());
  const bool report_to_stdout = paths.json == "-";
  if (report_to_stdout) {
    paths.json.clear();
    style.quiet = true;
  }
  if (Status p = CheckOutputPaths(inputs, {paths.json, paths.html, paths.markdown}); !p.ok())
    return UsageError("merge", p.message());
  if (Status distinct = CheckDistinctInputs(inputs); !distinct.ok()) return UsageError("merge", distinct.message());
  const size_t threads = ThreadsOrCores(static_cast<size_t>(jobs));
  StatusOr<std::vector<RankSummary>> summaries = ReadSummaries(inputs, threads);
  if (!summaries.ok()) return UsageError("merge", summaries.status().message());

  // One job, one set of options: the report states them.
  const AnalysisOptions options = summaries->front().options;
  std::vector<RankAnalysis> ranks;
  ranks.reserve(summaries->size());
  for (size_t i = 0; i < summaries->size(); ++i) {
    const AnalysisOptions& o = (*summaries)[i].options;
    if (o.step_range_pattern != options.step_range_pattern || o.first_step != options.first_step ||
        o.last_step != options.last_step || o.gpu_override != options.gpu_override ||
        o.include_warmup != options.include_warmup)
      return UsageError("merge", inputs[i] + ": analysed with other options (--steps, --step-pattern, --gpu, --include-warmup) than " +
                                     inputs.front() + "; analyse every rank with the same ones");
    ranks.push_back(std::move((*summaries)[i].rank));
  }
  summaries->clear();
  JobAnalysis job = BuildJob(std::move(ranks));
  for (const std::string& w : job.warnings) std::fprintf(stderr, "ampscope %s: warning: %s\n", "merge", w.c_str());
  nlohmann::json report = BuildJsonReport(job, options, threads, ReportNeedsRanks(paths, !style.quiet));
  if (Status written = WriteOutputs(ReportOutputs(report, job, paths)); !written.ok()) return UsageError("merge", written.message());
  if (report_to_stdout) {
    if (Status s = WriteReportStdout(report, job); !s.ok()) return UsageError("merge", s.message());
  }
  PrintTerminalSummary(report, style);
  // A thousand ranks take longer to free than to write: the process is about to exit, and the
  // system takes the memory back at once (kept reachable, so a leak checker does not object).
  KeepUntilExit(std::move(job));
  KeepUntilExit(std::move(report));
  return FinishStdout("merge", 0);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("merge", "build the job report from rank summaries (analyze --summary-out)", RunMerge);

}  // namespace ampscope::cli
