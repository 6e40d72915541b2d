#include "fuzz/pipeline.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "analyzers/analyze.h"
#include "analyzers/memory/memory_snapshot.h"
#include "analyzers/ncu/ncu_analysis.h"
#include "analyzers/precision/precision.h"
#include "base/strings.h"
#include "export/chrome_trace.h"
#include "export/perfetto_writer.h"
#include "gate/gate.h"
#include "gate/gate_config.h"
#include "gate/gate_output.h"
#include "gate/report_diff.h"
#include "pipeline/job.h"
#include "reports/contract/report_reader.h"
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "reports/json_report.h"
#include "reports/summary_json.h"
#include "tools/scenario/scenario.h"
#include "trace/formats/amptrace/amptrace_format.h"
#include "trace/formats/amptrace/amptrace_reader.h"
#include "trace/formats/kineto/kineto_reader.h"
#include "trace/formats/memory_snapshot/memory_snapshot.h"
#include "trace/formats/ncu/ncu_reader.h"
#include "trace/formats/nsys/nsys_reader.h"
#include "trace/reader.h"
#include "trace/time_bounds.h"

namespace ampscope::fuzz {

namespace {

// A broken output property is a bug just like a crash: say which and abort, so the fuzzer
// keeps the input.
[[noreturn]] void PropertyFailed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz pipeline: property failed: %s: %s\n", what, detail.substr(0, 300).c_str());
  std::abort();
}

// The way the CLI writes reports: kernel and range names from traces need not be UTF-8.
std::string Dump(const nlohmann::json& j) { return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); }

// Every written JSON must parse back: tools downstream read it.
void MustParse(const std::string& text, const char* what) {
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) PropertyFailed(what, "not valid JSON");
}

void GateAndDiff(const nlohmann::json& baseline, const nlohmann::json& current) {
  gate::GateResult result = gate::RunGate(baseline, current, gate::DefaultGateConfig(), gate::GateOptions{});
  (void)gate::FormatGateTable(result);
  (void)gate::FormatGateMarkdown(result);
  (void)gate::FormatGateJUnit(result);
  (void)gate::FormatGithubAnnotations(result);
  MustParse(Dump(gate::GateResultToJson(result)), "gate --json");
  gate::ReportDiff diff = gate::DiffReports(baseline, current, gate::DiffOptions{});
  (void)gate::FormatDiffText(diff);
  MustParse(Dump(gate::DiffToJson(diff)), "diff --json");
}

// What `ampscope kernels` computes (cli/kernels_cmd.cc), without its printing.
void KernelTable(const Trace& trace) {
  LaunchIndex launches(trace);
  StepAnalysis steps = DetectSteps(trace, AnalysisOptions{}, launches);
  nlohmann::json rows = nlohmann::json::array();
  for (const KernelSummary& k : SummarizeKernels(trace, steps)) {
    rows.push_back({{"name", SanitizeUtf8(k.name_str)},
                    {"count", k.count},
                    {"total_us", static_cast<double>(k.total_ns) / 1000.0},
                    {"category", KernelCategoryName(k.cls.category)},
                    {"precision", PrecisionName(k.cls.precision)},
                    {"rule", DescribeKernelRule(k.cls.rule)}});
  }
  MustParse(Dump(rows), "kernels --json");
}

// Everything `ampscope analyze` does after reading (cli/analyze_cmd.cc), into memory.
void AnalyseAndRender(const std::vector<Trace>& traces) {
  const AnalysisOptions options;
  JobAnalysis job = AnalyzeJob(traces, options);
  if (job.ranks.empty()) return;  // the CLI: "no trace could be analysed", exit 2
  nlohmann::json report = BuildJsonReport(job, options);
  const std::string report_text = Dump(report);
  MustParse(report_text, "JSON report");
  (void)render::RenderHtml(report);
  (void)render::RenderMarkdown(report);
  for (const bool color : {true, false}) {
    render::TerminalOptions terminal;
    terminal.color = color;
    terminal.verbose = color;  // both levels of detail, once each
    (void)render::RenderTerminalSummary(report, terminal);
  }

  std::ostringstream chrome;
  Status st = WriteChromeTrace(traces, job, chrome);
  if (!st.ok()) PropertyFailed("Chrome trace", "failed on a good stream: " + st.message());
  MustParse(chrome.str(), "Chrome trace");
  std::ostringstream perfetto;
  (void)WritePerfettoTrace(traces, job, perfetto);  // may refuse negative timestamps, never crash

  // The report as gate and diff read it back (from its text, as they would from a file).
  auto loaded = reports::ParseJsonText(report_text, "report.json");
  if (!loaded.ok()) PropertyFailed("JSON report", "the gate cannot read it: " + loaded.status().message());
  if (reports::ValidateReport(*loaded, "report.json", reports::ReportUse::kDiff).ok()) GateAndDiff(*loaded, *loaded);
}

Outcome AnalyseTraces(std::vector<Trace> traces) {
  for (const Trace& t : traces) KernelTable(t);
  AnalyseAndRender(traces);
  return kAccepted;
}

// Two fixed reports from the scenario generator (a healthy fp16 run and a host-sync-bound one),
// made once: the gate needs a real counterpart to compare a fuzzed report or config with.
struct FixedReports {
  nlohmann::json healthy;
  nlohmann::json sync_bound;
};

nlohmann::json ScenarioReport(scenario::Problem problem) {
  scenario::ScenarioOptions o;
  o.problem = problem;
  o.steps = 4;
  o.layers = 1;
  StatusOr<Trace> trace = ReadKinetoTraceFromString(scenario::GenerateKinetoJson(o), "scenario.json");
  if (!trace.ok()) PropertyFailed("scenario trace", trace.status().message());
  std::vector<Trace> traces;
  traces.push_back(std::move(trace).value());
  const AnalysisOptions options;
  JobAnalysis job = AnalyzeJob(traces, options);
  return nlohmann::json::parse(Dump(BuildJsonReport(job, options)));
}

const FixedReports& Fixed() {
  static const FixedReports* fixed = [] {
    auto* f = new FixedReports;
    f->healthy = ScenarioReport(scenario::Problem::kNone);
    f->sync_bound = ScenarioReport(scenario::Problem::kHostSync);
    return f;
  }();
  return *fixed;
}

// A memfd holding `data`, reachable by path (the .amptrace reader takes a path).
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = memfd_create("fuzz.amptrace", MFD_CLOEXEC);
    if (fd_ < 0) PropertyFailed("memfd_create", "failed");
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) PropertyFailed("memfd write", "failed");
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A file in $TMPDIR (or /tmp) holding `data`, removed again by the destructor. SQLite resolves
// the path it opens, and a memfd's /proc/self/fd link resolves to no file, so the nsys reader
// gets a real one.
class TempFile {
 public:
  TempFile(const uint8_t* data, size_t size, const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/ampscope_fuzz_" + std::to_string(getpid()) + suffix;
    FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) PropertyFailed("temporary file", "cannot create " + path_);
    const bool ok = std::fwrite(data, 1, size, f) == size;
    if (std::fclose(f) != 0 || !ok) PropertyFailed("temporary file", "cannot write " + path_);
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The reader's contract (trace/time_bounds.h): no stored event ends before it starts, every
// time is within +/-2^62 ns and all times of a trace lie within 2^61 ns of each other, so no
// span or sum an analyzer takes can overflow.
template <typename Events>
void CheckTimes(const Events& events, const char* table, TimeNs* lo, TimeNs* hi) {
  for (const auto& e : events) {
    if (e.end_ns < e.start_ns) PropertyFailed(table, "an event ends before it starts");
    if (!IsAcceptedTime(e.start_ns) || !IsAcceptedTime(e.end_ns)) PropertyFailed(table, "a time outside +/-2^62 ns");
    *lo = std::min(*lo, e.start_ns);
    *hi = std::max(*hi, e.end_ns);
  }
}

Outcome CheckReaderContract(const StatusOr<Trace>& trace) {
  if (!trace.ok()) {
    if (trace.status().message().empty()) PropertyFailed("reader", "a rejection without a message");
    return kRejected;
  }
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  CheckTimes(trace->kernels, "kernels", &lo, &hi);
  CheckTimes(trace->memcpys, "memcpys", &lo, &hi);
  CheckTimes(trace->memsets, "memsets", &lo, &hi);
  CheckTimes(trace->api_calls, "api_calls", &lo, &hi);
  CheckTimes(trace->syncs, "syncs", &lo, &hi);
  CheckTimes(trace->ranges, "ranges", &lo, &hi);
  CheckTimes(trace->cpu_ops, "cpu_ops", &lo, &hi);
  if (lo <= hi && hi - lo > kMaxTraceSpanNs) PropertyFailed("reader", "times more than 2^61 ns apart");
  return kAccepted;
}

}  // namespace

Outcome RunKinetoPipeline(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  StatusOr<Trace> trace = ReadKinetoTraceFromString(bytes, "fuzz.json");
  if (!trace.ok()) return kRejected;
  std::vector<Trace> traces;
  traces.push_back(std::move(trace).value());
  if (size % 2 == 1) {
    // Two ranks of one job: the second is read again, as `analyze a.json b.json` would.
    StatusOr<Trace> again = ReadKinetoTraceFromString(bytes, "fuzz_rank1.json");
    if (!again.ok()) PropertyFailed("Kineto reader", "the same bytes read twice gave different results");
    traces.push_back(std::move(again).value());
  }
  return AnalyseTraces(std::move(traces));
}

Outcome RunAmptracePipeline(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  (void)ReadAmptraceSummary(file.path());  // what `record` reads for session.json
  StatusOr<Trace> trace = ReadAmptrace(file.path());
  // The format is sniffed from the bytes: where they carry the .amptrace magic, ReadTrace must
  // agree with the reader (other bytes, e.g. "[]", are another format's and may read fine).
  const bool has_magic = size >= sizeof(kAmptraceMagic) && std::memcmp(data, kAmptraceMagic, sizeof(kAmptraceMagic)) == 0;
  StatusOr<Trace> sniffed = ReadTrace(file.path());
  if (has_magic && trace.ok() != sniffed.ok()) PropertyFailed("ReadTrace", "sniffing disagrees with the .amptrace reader");
  if (!trace.ok()) return kRejected;
  std::vector<Trace> traces;
  traces.push_back(std::move(trace).value());
  return AnalyseTraces(std::move(traces));
}

Outcome RunNsysPipeline(const uint8_t* data, size_t size) {
  TempFile file(data, size, ".sqlite");
  StatusOr<Trace> trace = ReadNsysExport(file.path());
  // The format is sniffed from the bytes: where they are an nsys input, ReadTrace must agree with
  // the reader (other bytes, e.g. "[]", are another format's and may read fine).
  const bool is_nsys = IsNsysInput(file.path(), data, size);
  StatusOr<Trace> sniffed = ReadTrace(file.path());
  if (is_nsys && trace.ok() != sniffed.ok()) PropertyFailed("ReadTrace", "sniffing disagrees with the nsys reader");
  if (!trace.ok()) return kRejected;
  std::vector<Trace> traces;
  traces.push_back(std::move(trace).value());
  return AnalyseTraces(std::move(traces));
}

// The same bytes read in one piece and in 7-byte pieces: the CSV reader must not care where a
// read ends (a quote, a CRLF, a thousands separator cut in two).
Outcome RunNcuPipeline(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<NcuReport> whole = ReadNcuCsv(MakeStringByteSource(text), "fuzz.csv");
  StatusOr<NcuReport> pieces = ReadNcuCsv(MakeChunkLimitedByteSource(MakeStringByteSource(text), 7), "fuzz.csv");
  if (whole.ok() != pieces.ok()) PropertyFailed("ncu reader", "the result depends on where reads end");
  if (!whole.ok()) {
    if (whole.status().message().empty() || whole.status().message() != pieces.status().message())
      PropertyFailed("ncu reader", "a refusal without the same one-line message");
    return kRejected;
  }
  if (whole->launches.size() != pieces->launches.size() || whole->metrics.size() != pieces->metrics.size())
    PropertyFailed("ncu reader", "launches or metrics depend on where reads end");
  for (size_t i = 0; i < whole->launches.size(); ++i) {
    const NcuLaunch& a = whole->launches[i];
    const NcuLaunch& b = pieces->launches[i];
    if (a.name != b.name || a.id != b.id || a.rules.size() != b.rules.size()) PropertyFailed("ncu reader", "a launch differs");
    for (size_t f = 0; f < kNcuFieldCount; ++f) {
      if (a.values[f].has_value() != b.values[f].has_value()) PropertyFailed("ncu reader", "a field differs");
      if (a.values[f] && !std::isfinite(*a.values[f])) PropertyFailed("ncu reader", "a non-finite value was kept");
    }
  }
  // Everything `analyze run.csv` does after reading.
  const AnalysisOptions options;
  std::vector<RankAnalysis> ranks;
  ranks.push_back(AnalyzeNcuAlone(std::make_shared<const NcuReport>(std::move(whole).value()), options));
  const JobAnalysis job = BuildJob(std::move(ranks));
  const nlohmann::json report = BuildJsonReport(job, options);
  MustParse(Dump(report), "JSON report");
  (void)render::RenderHtml(report);
  (void)render::RenderMarkdown(report);
  render::TerminalOptions terminal;
  terminal.verbose = true;
  (void)render::RenderTerminalSummary(report, terminal);
  return kAccepted;
}

Outcome RunKinetoReader(const uint8_t* data, size_t size) {
  // One parse thread, as `analyze -j` runs each reader: starting threads per input would cost
  // more than the parse. The parallel parse is checked against the serial one in the suite.
  KinetoReadOptions options;
  options.threads = 1;
  return CheckReaderContract(
      ReadKinetoTraceFromString(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", options));
}

Outcome RunAmptraceReader(const uint8_t* data, size_t size) {
  MemFile file(data, size);
  return CheckReaderContract(ReadAmptrace(file.path()));
}

Outcome RunNsysReader(const uint8_t* data, size_t size) {
  TempFile file(data, size, ".sqlite");
  return CheckReaderContract(ReadNsysExport(file.path()));
}

Outcome RunMemorySnapshotPipeline(const uint8_t* data, size_t size) {
  StatusOr<MemorySnapshot> snap =
      ReadMemorySnapshotBytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pickle");
  if (!snap.ok()) {
    const std::string& m = snap.status().message();
    if (m.empty() || m.find('\n') != std::string::npos || m.find("byte ") == std::string::npos)
      PropertyFailed("ReadMemorySnapshot", "a refusal is not one line naming a byte offset: " + m);
    return kRejected;
  }
  auto rows = std::make_shared<const MemorySnapshot>(std::move(snap).value());
  auto result = std::make_shared<const MemorySnapshotResult>(AnalyzeMemorySnapshot(rows, true));
  if (result->peak_live_bytes && result->timeline.empty()) PropertyFailed("AnalyzeMemorySnapshot", "a peak without a timeline");
  Trace trace;
  trace.metadata.path = "fuzz.pickle";
  trace.metadata.format = SourceFormat::kMemorySnapshot;
  StatusOr<RankAnalysis> ra = AnalyzeTrace(trace, AnalysisOptions{});
  if (!ra.ok()) PropertyFailed("AnalyzeTrace", "the empty trace of a snapshot did not analyse: " + ra.status().message());
  ApplyMemorySnapshot(result, *ra);
  std::vector<RankAnalysis> ranks;
  ranks.push_back(std::move(ra).value());
  const JobAnalysis job = BuildJob(std::move(ranks));
  const nlohmann::json report = BuildJsonReport(job, AnalysisOptions{}, 1);
  MustParse(ReportText(report, 1), "report");
  (void)render::RenderHtml(report);
  (void)render::RenderMarkdown(report);
  (void)render::RenderTerminalSummary(report, {80, false, false});
  return kAccepted;
}

// `merge`'s reader: a summary it accepts is merged into a job report, and written back it reads
// back to the same summary.
bool RunSummary(std::string_view text) {
  StatusOr<RankSummary> summary = ParseRankSummary(text, "r.summary.json");
  if (!summary.ok()) return false;
  const std::string written = RankSummaryText(summary->rank, summary->options);
  StatusOr<RankSummary> again = ParseRankSummary(written, "again.summary.json");
  if (!again.ok()) PropertyFailed("rank summary", "a summary written back does not read: " + again.status().message());
  if (RankSummaryText(again->rank, again->options) != written) PropertyFailed("rank summary", "writing is not stable");
  std::vector<RankAnalysis> ranks;
  ranks.push_back(std::move(summary->rank));
  const JobAnalysis job = BuildJob(std::move(ranks));
  const nlohmann::json report = BuildJsonReport(job, summary->options, 1);
  MustParse(ReportText(report, 1), "merge -o");
  (void)render::RenderMarkdown(report);
  return true;
}

Outcome RunReportPipeline(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (RunSummary(text)) return kAccepted;
  auto parsed = reports::ParseJsonText(text, "report.json");
  if (!parsed.ok()) return kRejected;
  const nlohmann::json& report = *parsed;
  const bool for_diff = reports::ValidateReport(report, "report.json", reports::ReportUse::kDiff).ok();
  const bool for_gate = reports::ValidateReport(report, "report.json", reports::ReportUse::kGate).ok();
  if (for_gate && !for_diff) PropertyFailed("ValidateReport", "accepted for the gate but not for diff");
  if (!for_diff) return kRejected;
  (void)reports::StepDurationsUs(report);
  const FixedReports& fixed = Fixed();
  gate::ReportDiff diff = gate::DiffReports(fixed.healthy, report, gate::DiffOptions{});
  (void)gate::FormatDiffText(diff);
  MustParse(Dump(gate::DiffToJson(diff)), "diff --json");
  diff = gate::DiffReports(report, fixed.healthy, gate::DiffOptions{});
  (void)gate::FormatDiffText(diff);
  if (!for_gate) return kAccepted;
  GateAndDiff(fixed.healthy, report);
  GateAndDiff(report, fixed.sync_bound);
  GateAndDiff(report, report);
  return kAccepted;
}

Outcome RunGateConfigPipeline(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = reports::ParseJsonText(text, "gate.json");
  if (!parsed.ok()) return kRejected;
  auto config = gate::ParseGateConfig(*parsed, "gate.json");
  if (!config.ok()) return kRejected;
  // --print-config prints it back; reading that back must give the same config.
  const std::string printed = Dump(gate::GateConfigToJson(*config));
  auto reparsed = gate::ParseGateConfig(nlohmann::json::parse(printed), "printed.json");
  if (!reparsed.ok()) PropertyFailed("gate config", "the printed config does not parse: " + reparsed.status().message());
  if (Dump(gate::GateConfigToJson(*reparsed)) != printed) PropertyFailed("gate config", "printing is not stable");
  const FixedReports& fixed = Fixed();
  for (const auto& [baseline, current] : {std::pair(&fixed.healthy, &fixed.sync_bound),
                                          std::pair(&fixed.sync_bound, &fixed.healthy)}) {
    gate::GateResult result = gate::RunGate(*baseline, *current, *config, gate::GateOptions{});
    (void)gate::FormatGateTable(result);
    (void)gate::FormatGateMarkdown(result);
    (void)gate::FormatGateJUnit(result);
    (void)gate::FormatGithubAnnotations(result);
    MustParse(Dump(gate::GateResultToJson(result)), "gate --json");
  }
  return kAccepted;
}

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"kineto", &RunKinetoPipeline},
      {"amptrace", &RunAmptracePipeline},
      {"nsys", &RunNsysPipeline},
      {"ncu", &RunNcuPipeline},
      {"report", &RunReportPipeline},
      {"gate_config", &RunGateConfigPipeline},
      {"memory_snapshot", &RunMemorySnapshotPipeline},
      {"kineto_reader", &RunKinetoReader},
      {"amptrace_reader", &RunAmptraceReader},
      {"nsys_reader", &RunNsysReader},
  };
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const Target& t : Targets())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace ampscope::fuzz
