// ampscope analyze TRACE... : read traces (ranks of one job), analyse, write reports.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analyzers/analyze.h"
#include "analyzers/memory/memory_snapshot.h"
#include "analyzers/peaks/gpu_peaks.h"
#include "base/atomic_write.h"
#include "base/step_range.h"
#include "cli/analyze_ncu.h"
#include "cli/cli_style.h"
#include "cli/input_dirs.h"
#include "cli/phase_progress.h"
#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/snapshot_inputs.h"
#include "cli/stdout_check.h"
#include "cli/table_outputs.h"
#include "export/chrome_trace.h"
#include "export/perfetto_writer.h"
#include "pipeline/job.h"
#include "pipeline/job_runner.h"
#include "trace/formats/ncu/ncu_reader.h"
#include "reports/json_report.h"
#include "reports/progress.h"
#include "reports/summary_json.h"
#include "trace/reader.h"

namespace ampscope::cli {

namespace {

// Steps are named by their numbers, the N of ProfilerStep#N (steps without one are numbered by
// position). A range that selects none of the trace's steps is an error naming the numbers it has;
// one that is cut (it asks for numbers before the first or past the last step) is cut with a
// warning. A --step-pattern that matches no range (so steps come from elsewhere, or there are
// none) is said too, rather than left to fall back silently.
Status CheckSteps(const Trace& trace, const AnalysisOptions& options, const std::string& text, bool pattern_given) {
  AnalysisOptions all = options;
  all.first_step.reset();
  all.last_step.reset();
  all.include_warmup = true;  // warm-up steps are analysed when --steps picks them
  const LaunchIndex launches(trace);
  const StepAnalysis detected = DetectSteps(trace, all, launches);
  const std::string& path = trace.metadata.path;
  if (pattern_given && detected.source == StepSource::kProfilerStep)
    std::fprintf(stderr,
                 "ampscope analyze: warning: --step-pattern '%s' is not used for %s: its steps are its "
                 "ProfilerStep#N ranges\n",
                 options.step_range_pattern.c_str(), path.c_str());
  else if (pattern_given && detected.source != StepSource::kNvtx)
    std::fprintf(stderr,
                 "ampscope analyze: warning: --step-pattern '%s' matches no range in %s: %s\n",
                 options.step_range_pattern.c_str(), path.c_str(),
                 detected.steps.empty()
                     ? "it has no steps, so step time is unknown (gate skips it)"
                     : fmt::format("its steps are read from {} ranges instead", StepSourceName(detected.source)).c_str());
  if (!options.first_step && !options.last_step) return Status::Ok();  // "..": every step, none needed
  const std::vector<StepWindow>& steps = detected.steps;
  if (steps.empty())
    return Status::Error(fmt::format("--steps {}: {} has no detected steps (no ProfilerStep#N and no range "
                                     "matching --step-pattern)", text, path));
  int64_t lo = steps.front().number, hi = steps.front().number;
  size_t chosen = 0;
  for (const StepWindow& w : steps) {
    lo = std::min(lo, w.number);
    hi = std::max(hi, w.number);
    if (w.number >= options.first_step.value_or(std::numeric_limits<int64_t>::min()) && w.number <= options.last_step.value_or(std::numeric_limits<int64_t>::max()))
      ++chosen;
  }
  const std::string have = fmt::format("{} has {} step{} ({}..{})", path, steps.size(), steps.size() == 1 ? "" : "s",
                                       lo, hi);
  if (chosen == 0) return Status::Error(fmt::format("--steps {} selects no step: {}", text, have));
  const int64_t first = options.first_step.value_or(lo), last = options.last_step.value_or(hi);
  if (first < lo || last > hi)
    std::fprintf(stderr, "ampscope analyze: warning: --steps %s cut to %lld..%lld (%zu step%s): %s\n", text.c_str(),
                 static_cast<long long>(std::max(first, lo)), static_cast<long long>(std::min(last, hi)), chosen,
                 chosen == 1 ? "" : "s", have.c_str());
  return Status::Ok();
}

// An error after the read: the phase's line is cleared first, so that the error stays on screen.
int StopAndFail(PhaseProgress& phase, const std::string& message) {
  phase.Stop();
  return UsageError("analyze", message);
}

// --ranks names ranks of this job: one it does not have is an error naming the ones it has
// (before: `--ranks 9` on an 8-rank job wrote nothing and said nothing).
Status CheckExportRanks(const JobAnalysis& job, const std::set<int32_t>& wanted, const std::string& text) {
  if (wanted.empty()) return Status::Ok();
  std::set<int32_t> have;
  for (size_t i = 0; i < job.ranks.size(); ++i)
    have.insert(job.ranks[i].rank >= 0 ? job.ranks[i].rank : static_cast<int32_t>(i));
  std::string missing, present;
  for (int32_t r : wanted)
    if (have.count(r) == 0) missing += (missing.empty() ? "" : ",") + std::to_string(r);
  if (missing.empty()) return Status::Ok();
  for (int32_t r : have) present += (present.empty() ? "" : ",") + std::to_string(r);
  return Status::Error(fmt::format("--ranks {}: the job has no rank {} (its ranks: {})", text, missing, present));
}

// "0,7,9" -> {0, 7, 9}.
StatusOr<std::set<int32_t>> ParseRanks(const std::string& text) {
  std::set<int32_t> ranks;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int32_t r = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), r);
    if (ec != std::errc() || end != item.data() + item.size() || r < 0)
      return Status::Error("--ranks " + text + ": '" + item + "' is not a rank number (expected e.g. 0,7)");
    ranks.insert(r);
  }
  if (ranks.empty()) return Status::Error("--ranks: no rank given (expected e.g. 0,7)");
  return ranks;
}

// With several inputs, each exported rank gets its own file: trace.json -> trace.rank7.json.
std::string PerRankPath(const std::string& path, int32_t rank, size_t inputs) {
  if (inputs <= 1) return path;
  const std::filesystem::path p(path);
  std::string ext = p.extension().string();
  std::filesystem::path stem = p;
  stem.replace_extension();
  return stem.string() + ".rank" + std::to_string(rank) + ext;
}

// The command line of `analyze`, as parsed.
struct AnalyzeArgs {
  std::vector<std::string> inputs, ncu_paths;
  std::string report_path, chrome_path, perfetto_path, sqlite_path, html_path, markdown_path, steps_text, gpu, pattern;
  std::string peaks_path, ranks_text, summary_path, csv_dir, jobs_text;
  bool quiet = false, no_color = false, verbose = false, keep_going = false, include_warmup = false;
  bool report_to_stdout = false;  // -o -
  int64_t jobs = 0;
  // --detail-steps: a Kineto file with more ProfilerSteps keeps the events of this many (0: all).
  size_t detail_steps = 4096;
  // Any of --chrome-trace, --perfetto, --sqlite, --csv: the outputs that draw the trace's events.
  bool exporting() const { return !chrome_path.empty() || !perfetto_path.empty() || !sqlite_path.empty() || !csv_dir.empty(); }
};

void AddAnalyzeOptions(CLI::App& app, AnalyzeArgs& a) {
  app.add_option("traces", a.inputs,
                 "Trace files (.json, .json.gz, .amptrace, nsys export .sqlite) or a directory of them (its traces are the ranks of one job), PyTorch memory snapshots (.pickle: alone, "
                 "or one per trace, the i-th with the i-th trace), or Nsight Compute CSVs (ncu --csv) analysed on their own; a pipe or FIFO works "
                 "too, and - is stdin (Kineto JSON, plain or gzip'd)")
      ->required();
  app.add_option("--ncu", a.ncu_paths,
                 "Nsight Compute CSV(s) of the same run (ncu --csv --page raw|details): kernels joined to the trace's "
                 "fill the matrix's measured values (docs/ncu.md)")
      ->expected(1);
  app.add_option("-o,--output", a.report_path, "Write the JSON report here (- : to stdout, instead of the terminal summary)");
  app.add_option("--chrome-trace", a.chrome_path, "Write an annotated Chrome trace (Perfetto / chrome://tracing)");
  app.add_option("--perfetto", a.perfetto_path, "Write the annotated trace as Perfetto protobuf (.pftrace)");
  app.add_option("--sqlite", a.sqlite_path,
                 "Write the kernels, ops, steps, copies, syncs, idle gaps, findings, checklist and matrix as a SQLite "
                 "database (tables: docs/sqlite_schema.md)");
  app.add_option("--csv", a.csv_dir,
                 "Write each table of the --sqlite database as DIR/<table>.csv: the same columns and rows, RFC 4180 "
                 "(DIR is created if missing)")
      ->type_name("DIR");
  app.add_option("--html", a.html_path, "Write a self-contained HTML report");
  app.add_option("--markdown", a.markdown_path, "Write a Markdown summary");
  app.add_option("--summary-out", a.summary_path,
                 "Write this rank's summary (what `ampscope merge` needs to build the job report); one input only. "
                 "A path ending in .gz is written gzip'd (about 7x smaller)");
  app.add_option("-j,--jobs", a.jobs_text, "Threads at work: ranks read and analysed at once, or one rank's threads (default, or 0: all cores)")
      ->type_name("N");
  app.add_option("--ranks", a.ranks_text,
                 "Ranks drawn by --chrome-trace/--perfetto/--sqlite/--csv (e.g. 0,7; default: all; needs one of them). With several inputs each "
                 "Chrome/Perfetto rank gets its own file (t.json -> t.rank7.json); SQLite keeps them in one database");
  app.add_flag("--keep-going", a.keep_going,
               "An input that cannot be read or analysed is named on stderr and left out; the report lists it");
  app.add_option("--gpu-peaks", a.peaks_path,
                 "GPU peak table (gpu_peaks.tsv format) used instead of the built-in one for every peak lookup");
  app.add_option("--gpu", a.gpu, "GPU to use for peak lookups: a row id (e.g. A100-80GB-SXM4) or a device name, exactly");
  app.add_option("--steps", a.steps_text,
                 "Analyse only steps N..M: the numbers of ProfilerStep#N (steps without a number: their 0-based position), "
                 "inclusive; N.., ..M and N also work. A range that runs past the trace's steps is cut, with a warning");
  app.add_option("--detail-steps", a.detail_steps,
                 "A Kineto file with more ProfilerStep#N than this is read in two passes and analysed on this many of "
                 "its steps (the first and last 50, the 100 longest, and every k-th), with the step time of every "
                 "step; memory then stays bounded by the steps analysed. 0 analyses every step. Not applied with "
                 "--steps, the timeline outputs (--chrome-trace, --perfetto, --sqlite, --csv), or a pipe");
  app.add_option("--step-pattern", a.pattern,
                 "Regex for NVTX/user ranges that mark a step when there is no ProfilerStep#N");
  app.add_flag("--include-warmup", a.include_warmup,
               "Keep warm-up and cold-start steps in the analysed window (by default they are left out, and the "
               "report's steps.flagged and trace_integrity say which and why)");
  app.add_flag("-q,--quiet", a.quiet, "Do not print the terminal summary");
  app.add_flag("--no-color", a.no_color, "No colour in the terminal summary");
  app.add_flag("-v,--verbose", a.verbose,
               "Terminal summary with the checklist thresholds and sources, how each saving is estimated, full kernel names");
}

// -j, directories as jobs, -o -, then the analysis options (peaks, --gpu, --step-pattern,
// --steps) and the ranks to export; an exit status when one of them is refused.
std::optional<int> ResolveAnalyzeOptions(AnalyzeArgs& a, AnalysisOptions& options, std::set<int32_t>& export_ranks) {
  if (!a.jobs_text.empty() && !ParseIntOption("analyze", a.jobs_text, "-j/--jobs", 0, 4096, &a.jobs)) return kExitUsage;
  // A directory is the ranks of one job (said on stderr, before any other check reads the inputs).
  if (StatusOr<std::vector<std::string>> expanded = ExpandInputDirectories("analyze", a.inputs, DirInputs::kTraces);
      expanded.ok())
    a.inputs = std::move(expanded).value();
  else
    return UsageError("analyze", expanded.status().message());
  // -o - : the JSON report on stdout, as Unix tools do; the terminal summary would mix with it.
  a.report_to_stdout = a.report_path == "-";
  if (a.report_to_stdout) {
    a.report_path.clear();
    a.quiet = true;
  }

  options.include_warmup = a.include_warmup;
  std::vector<GpuPeak> peaks = BuiltinGpuPeaks();
  if (!a.peaks_path.empty()) {
    StatusOr<std::vector<GpuPeak>> loaded = LoadGpuPeaksTsv(a.peaks_path);
    if (!loaded.ok()) return UsageError("analyze", "--gpu-peaks: " + loaded.status().message());
    peaks = std::move(loaded).value();
    options.gpu_peaks_path = a.peaks_path;
  }
  if (!a.gpu.empty()) {
    // Exact names only (a fuzzy match silently used another GPU's peaks): say what is close.
    StatusOr<const GpuPeak*> row = ResolveGpuOverride(a.gpu, peaks);
    if (!row.ok()) {
      std::fprintf(stderr, "ampscope analyze: %s\n", row.status().message().c_str());
      return 2;
    }
  }
  options.gpu_override = a.gpu;
  if (!a.pattern.empty()) {
    // Checked here so that a bad pattern is named, not reported as "no trace could be analysed".
    try {
      std::regex check(a.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return UsageError("analyze", "--step-pattern '" + a.pattern + "' is not a valid ECMAScript regex: " + e.what());
    }
    options.step_range_pattern = a.pattern;
  }
  if (!a.steps_text.empty()) {
    StatusOr<StepRange> range = ParseStepRange(a.steps_text);
    if (!range.ok()) {
      std::fprintf(stderr, "ampscope analyze: --steps: %s\n", range.status().message().c_str());
      return 2;
    }
    options.first_step = range->first;
    options.last_step = range->last;
  }
  if (!a.ranks_text.empty()) {
    StatusOr<std::set<int32_t>> parsed = ParseRanks(a.ranks_text);
    if (!parsed.ok()) return UsageError("analyze", parsed.status().message());
    export_ranks = std::move(parsed).value();
    if (!a.exporting())
      return UsageError("analyze", "--ranks " + a.ranks_text +
                                       " selects the ranks drawn by --chrome-trace, --perfetto, --sqlite or --csv; "
                                       "give one of them (the JSON, HTML and Markdown reports cover every rank)");
  }
  if (!a.summary_path.empty() && a.inputs.size() != 1)
    return UsageError("analyze", "--summary-out writes one rank's summary: give one input (got " +
                                     std::to_string(a.inputs.size()) + ")");
  return std::nullopt;
}

// The report, the text outputs and the exports of an analysed job, written all or none; then the
// terminal summary (or the JSON on stdout).
int WriteAnalyzeOutputs(const AnalyzeArgs& a, const AnalysisOptions& options, PhaseProgress& phase,
                        const std::vector<std::string>& rank_paths, JobAnalysis job, std::vector<KeptTrace> kept,
                        const std::vector<size_t>& rank_inputs, const std::string& summary_text) {
  const ReportPaths report_paths{a.report_path, a.html_path, a.markdown_path};
  phase.Start("writing the report and outputs");
  nlohmann::json report = BuildJsonReport(job, options, 0, ReportNeedsRanks(report_paths, !a.quiet));
  // The job view (for one rank, a copy of it with every step's numbers) is in the report now; past
  // here only the exporters read it, and the report's text reads the ranks. Without exports it
  // goes before the text is written, the analysis' peak on traces of many steps (issue 38).
  if (!a.exporting()) job.job = RankAnalysis();

  // Render the text outputs, then write the whole set: a failure leaves none of them behind.
  std::vector<OutputSpec> outputs = ReportOutputs(report, job, report_paths);
  if (!a.summary_path.empty()) outputs.push_back(TextOutput(a.summary_path, summary_text));
  // Chrome and Perfetto draw events: one file per kept rank, each with that rank's own analysis.
  // SQLite holds every kept rank in one database, with the job's own rows.
  std::vector<std::vector<Trace>> export_traces;
  // Each kept rank's own job: for one input the job itself, read in place (a copy held every
  // step's numbers a second time, issue 38); for several, a one-rank job built from its analysis.
  std::vector<JobAnalysis> export_jobs;
  export_traces.reserve(kept.size());
  export_jobs.reserve(rank_paths.size() == 1 ? 0 : kept.size());
  for (KeptTrace& k : kept) {
    const RankAnalysis* ra = nullptr;
    for (size_t r = 0; r < rank_inputs.size(); ++r)
      if (rank_inputs[r] == k.index) ra = &job.ranks[r];
    if (ra == nullptr) continue;
    if (rank_paths.size() != 1) export_jobs.push_back(BuildJob({*ra}));
    export_traces.emplace_back();
    export_traces.back().push_back(std::move(k.trace));
    const std::vector<Trace>& traces = export_traces.back();
    const JobAnalysis& one = rank_paths.size() == 1 ? job : export_jobs.back();
    if (!a.chrome_path.empty())
      outputs.push_back({PerRankPath(a.chrome_path, ra->rank, rank_paths.size()),
                         [&traces, &one](std::ostream& o) { return WriteChromeTrace(traces, one, o); }});
    if (!a.perfetto_path.empty())
      outputs.push_back({PerRankPath(a.perfetto_path, ra->rank, rank_paths.size()),
                         [&traces, &one](std::ostream& o) { return WritePerfettoTrace(traces, one, o); }});
  }
  if (!a.sqlite_path.empty() || !a.csv_dir.empty()) {
    std::vector<const Trace*> sqlite_traces;
    for (const std::vector<Trace>& t : export_traces) sqlite_traces.push_back(&t.front());
    if (Status tables = AddTableOutputs(a.sqlite_path, a.csv_dir, sqlite_traces, job, AMPSCOPE_VERSION, outputs);
        !tables.ok())
      return StopAndFail(phase, tables.message());
  }
  // The per-rank timeline paths exist only now (they carry each trace's rank): none may be an
  // input or another output either (two a.inputs of the same rank would share one).
  std::vector<std::string> output_paths;
  for (const OutputSpec& o : outputs) output_paths.push_back(o.path);
  // The --csv folder exists before the paths are checked (each output's folder must take files);
  // a folder made here goes again when the set fails.
  CsvDir csv(a.csv_dir);
  if (!a.csv_dir.empty()) {
    if (Status created = csv.Create(); !created.ok()) return StopAndFail(phase, created.message());
  }
  if (Status paths = CheckOutputPaths(a.inputs, output_paths); !paths.ok()) {
    csv.RemoveIfCreated();
    return StopAndFail(phase, paths.message());
  }
  if (Status written = WriteOutputs(outputs); !written.ok()) {
    csv.RemoveIfCreated();
    return StopAndFail(phase, written.message());
  }
  phase.Stop();
  if (a.report_to_stdout) {
    // Written after the files: if they fail, nothing reached stdout either.
    if (Status s = WriteReportStdout(report, job); !s.ok()) return StopAndFail(phase, s.message());
  }
  PrintTerminalSummary(report, {a.quiet, a.no_color, a.verbose});
  // Freeing the kept traces and a many-rank job costs more than the exit that follows.
  outputs.clear();
  KeepUntilExit(std::move(export_traces));
  KeepUntilExit(std::move(export_jobs));
  KeepUntilExit(std::move(job));
  KeepUntilExit(std::move(report));
  return FinishStdout("analyze", 0);
}

int RunAnalyze(int argc, char** argv) {
  CLI::App app{"Analyse PyTorch-profiler (Kineto) JSON, .amptrace files or Nsight Systems SQLite exports; several files are ranks of one job."};
  StyleApp(app, "analyze");
  app.footer("Exit codes: 0 analysed, 2 usage or input error (one line on stderr, no output written).");
  AnalyzeArgs a;
  AddAnalyzeOptions(app, a);
  if (std::optional<int> done = ParseArgs(app, "analyze", argc, argv)) return *done;
  if (std::optional<int> empty = RefuseEmptyPaths(app, "analyze", {"-o", "--chrome-trace", "--perfetto", "--sqlite",
                                                                   "--html", "--markdown", "--summary-out", "--gpu-peaks"}))
    return *empty;

  AnalysisOptions options;
  std::set<int32_t> export_ranks;
  if (std::optional<int> refused = ResolveAnalyzeOptions(a, options, export_ranks)) return *refused;
  // Before reading anything: no output may overwrite an input or another output, and no input
  // may be given twice (it would count as two ranks).
  if (Status paths = CheckOutputPaths(a.inputs, {a.report_path, a.chrome_path, a.perfetto_path, a.sqlite_path, a.html_path,
                                               a.markdown_path, a.summary_path});
      !paths.ok()) {
    std::fprintf(stderr, "ampscope analyze: %s\n", paths.message().c_str());
    return 2;
  }
  if (Status distinct = CheckDistinctInputs(a.inputs); !distinct.ok()) return UsageError("analyze", distinct.message());
  if (!a.csv_dir.empty()) {
    if (Status dir = CheckCsvDir(a.csv_dir); !dir.ok()) return UsageError("analyze", dir.message());
  }
  // Nsight Compute CSVs: analysed alone (no timeline: the timeline outputs and step options have
  // nothing to work on), or read once for --ncu.
  StatusOr<NcuInputs> ncu_inputs = ClassifyNcuInputs(a.inputs);
  if (!ncu_inputs.ok()) return UsageError("analyze", ncu_inputs.status().message());
  if (*ncu_inputs == NcuInputs::kAll) {
    if (!a.chrome_path.empty() || !a.perfetto_path.empty() || !a.sqlite_path.empty() || !a.csv_dir.empty() ||
        !a.summary_path.empty() ||
        !a.steps_text.empty() || !a.ncu_paths.empty())
      return UsageError("analyze", "an Nsight Compute CSV alone has no timeline: --chrome-trace, --perfetto, --sqlite, --csv, "
                                   "--summary-out, --steps and --ncu need a trace (give the CSV with --ncu beside it)");
    StatusOr<std::shared_ptr<const NcuReport>> report = ReadNcuInputs(a.inputs);
    if (!report.ok()) return UsageError("analyze", report.status().message());
    return AnalyzeNcuAloneCommand(std::move(report).value(), options, {a.report_path, a.html_path, a.markdown_path},
                                  {a.quiet, a.no_color, a.verbose});
  }
  if (!a.ncu_paths.empty()) {
    if (Status paths = CheckOutputPaths(a.ncu_paths, {a.report_path, a.chrome_path, a.perfetto_path, a.sqlite_path, a.html_path,
                                                    a.markdown_path, a.summary_path});
        !paths.ok())
      return UsageError("analyze", paths.message());
    for (const std::string& p : a.ncu_paths)
      if (const NcuInputKind kind = SniffNcuInput(p); kind != NcuInputKind::kCsv && kind != NcuInputKind::kNotNcu)
        return UsageError("analyze", NcuRefusalMessage(p, kind));
    StatusOr<std::shared_ptr<const NcuReport>> report = ReadNcuInputs(a.ncu_paths);
    if (!report.ok()) return UsageError("analyze", report.status().message());
    options.ncu = std::move(report).value();
  }
  // Memory snapshots attach to ranks; they are read (and refused, when bad) before any trace.
  StatusOr<SnapshotPairing> pairing = PairSnapshots(a.inputs);
  if (!pairing.ok()) return UsageError("analyze", pairing.status().message());
  const std::vector<std::string>& rank_paths = pairing->rank_inputs;
  StatusOr<std::vector<std::shared_ptr<const MemorySnapshotResult>>> snapshots = AnalyzeSnapshots(*pairing, !a.sqlite_path.empty() || !a.csv_dir.empty());
  if (!snapshots.ok()) return UsageError("analyze", snapshots.status().message());

  const bool exporting = a.exporting();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  RankRunOptions run;
  run.analysis = options;
  run.jobs = a.jobs > 0 ? static_cast<int>(a.jobs) : cores;
  run.keep_going = a.keep_going;
  InputsProgress progress(rank_paths);
  PhaseProgress phase;  // after the read: the analysis, then the reports and exports
  // -j N is the number of threads at work, as make's: with one input its read and its
  // analysis use N threads (all cores by default); with several, N ranks go at once, one
  // thread each.
  // The reader takes at most 8 (KinetoReadOptions::threads' own limit for "all cores": each
  // parse thread holds 4 MiB pieces in flight).
  constexpr int kMaxReaderThreads = 8;
  const int per_rank_threads = rank_paths.size() == 1 ? run.jobs : 1;
  const int reader_threads = std::min(per_rank_threads, kMaxReaderThreads);
  run.analysis.threads = per_rank_threads;
  run.read = [&](size_t i) {
    ReadOptions ropts;
    ropts.threads = reader_threads;
    ropts.keep_export_only_events = exporting;
    // The timeline outputs draw every event and --steps picks steps by number: both read all.
    ropts.detail_steps = exporting || !a.steps_text.empty() ? 0 : a.detail_steps;
    ropts.progress = [&progress, i](uint64_t done, uint64_t /*total*/) { progress.Update(i, done); };
    if (pairing->snapshots_alone) return StatusOr<Trace>(SnapshotOnlyTrace(rank_paths[i]));
    StatusOr<Trace> trace = ReadTrace(rank_paths[i], ropts);
    // One input: its analysis follows its read, and takes seconds on a big trace; say so.
    if (rank_paths.size() == 1 && trace.ok()) {
      progress.Finish();
      phase.Start("analysing " + std::filesystem::path(rank_paths[i]).filename().string());
    }
    return trace;
  };
  if (!a.steps_text.empty() || !a.pattern.empty())
    run.check = [&](const Trace& t) { return CheckSteps(t, options, a.steps_text, !a.pattern.empty()); };
  run.keep_trace = [&](size_t i, const RankAnalysis& ra) {
    // A trace that names no rank is numbered by its position (as BuildJob does).
    return exporting && (export_ranks.empty() || export_ranks.count(ra.rank >= 0 ? ra.rank : static_cast<int32_t>(i)) > 0);
  };
  StatusOr<RankRunResult> ran = RunRanks(rank_paths, run);
  progress.Finish();
  phase.Stop();
  if (!ran.ok()) return StopAndFail(phase, ran.status().message());
  for (const MissingInput& m : ran->missing) std::fprintf(stderr, "ampscope analyze: left out: %s\n", m.error.c_str());

  std::vector<KeptTrace> kept = std::move(ran->kept);
  const std::vector<size_t> rank_inputs = ran->rank_inputs;
  for (size_t r = 0; r < rank_inputs.size(); ++r) ApplyMemorySnapshot((*snapshots)[rank_inputs[r]], ran->ranks[r]);
  // The summary keeps the trace's own rank (-1 when it names none): its place in a job is the
  // merge's to give, as analysing the files together gives it.
  std::string summary_text;
  if (!a.summary_path.empty() && !ran->ranks.empty()) {
    StatusOr<std::string> bytes = RankSummaryBytes(ran->ranks.front(), options, a.summary_path);
    if (!bytes.ok()) return UsageError("analyze", a.summary_path + ": " + bytes.status().message());
    summary_text = std::move(*bytes);
  }
  JobAnalysis job = BuildJob(std::move(ran->ranks), {}, std::move(ran->missing));
  if (job.ranks.empty()) {
    return StopAndFail(phase, "no trace could be analysed");
  }
  for (const std::string& w : job.warnings) std::fprintf(stderr, "ampscope %s: warning: %s\n", "analyze", w.c_str());
  if (Status ranks = CheckExportRanks(job, export_ranks, a.ranks_text); !ranks.ok())
    return StopAndFail(phase, ranks.message());
  return WriteAnalyzeOutputs(a, options, phase, rank_paths, std::move(job), std::move(kept), rank_inputs, summary_text);
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("analyze", "analyse traces and write reports (JSON, HTML, Markdown, Chrome trace, Perfetto, SQLite, CSV)",
                          RunAnalyze);

}  // namespace ampscope::cli
