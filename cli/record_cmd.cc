// ampscope record [-o DIR] [-f] [--steps N..M | --capture-range=nvtx --nvtx-capture=NAME]
//                 [--step-range-name NAME] [--tensor-metrics] -- CMD ARGS...
//
// Runs CMD (execvp, never a shell) with the injection library set in CUDA_INJECTION64_PATH
// and NVTX_INJECTION64_PATH (a value of the user's own is replaced with a warning), forwards
// signals (SIGUSR1, SIGUSR2 and SIGALRM too, which do not end record), and exits with CMD's exit
// code (128+N when a signal killed it; when that signal was sent to record itself, as Ctrl-C
// is, record dies by it after writing session.json, so a shell loop around it stops). The
// collector in each CUDA/NVTX process writes DIR/<host>.<pid>[.rank<RANK>].amptrace;
// afterwards this command writes DIR/session.json. CMD gets SIGTERM if record is killed.
//
// Exit codes: CMD's own; 2 for a usage error or an unusable DIR (nothing is run), or when
// session.json cannot be written after CMD exited 0; 127 when CMD does not exist, 126 when it
// cannot be executed (as a shell would; nothing is left behind); 3 with --fail-on-empty when CMD
// exited 0 but the recording is empty (see kExitEmptyRecording).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/atomic_write.h"
#include "base/saturating.h"
#include "base/step_range.h"
#include "base/strings.h"
#include "cli/cli_style.h"
#include "cli/command.h"
#include "cli/input_dirs.h"
#include "cli/launcher.h"
#include "cli/record_warnings.h"
#include "trace/formats/amptrace/amptrace_reader.h"

namespace ampscope::cli {
namespace {

constexpr const char* kDescription =
    "Runs CMD with the CUPTI/NVTX collector injected and records one .amptrace file per CUDA or NVTX "
    "process into DIR, plus DIR/session.json.";
constexpr const char* kFooter =
    "Exit codes: CMD's (128+N if signal N killed it); 2 usage error; 127 CMD not found; 126 not executable; "
    "3 with --fail-on-empty (CMD exited 0, the recording is empty). Every warning is one line on stderr.";

// --fail-on-empty: CMD succeeded but the recording lacks what it was for. Not 1 or 2, which
// CMD itself often returns; CMD's own non-zero code always wins.
constexpr int kExitEmptyRecording = 3;

int UsageError(const std::string& message) {
  // One line, as every usage error, with where to look (cli_style.h).
  return cli::UsageError("record", message + " (try 'ampscope record --help')");
}

std::string DefaultDir() {
  std::time_t now = std::time(nullptr);
  std::tm tm;
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "ampscope-%Y%m%d-%H%M%S", &tm);
  std::string dir = buf;
  struct stat st;
  for (int i = 2; stat(dir.c_str(), &st) == 0; ++i) dir = std::string(buf) + "-" + std::to_string(i);
  return dir;
}

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

std::vector<std::string> ListAmptraceFiles(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (EndsWith(name, ".amptrace")) files.push_back(name);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// mkdir -p
bool MakeDirs(const std::string& path, std::string* error) {
  std::string partial;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) {
      *error = partial + ": " + std::strerror(errno);
      return false;
    }
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *error = path + ": not a directory";
    return false;
  }
  return true;
}

std::string JoinCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    if (!a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGBUS: return "SIGBUS";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGALRM: return "SIGALRM";
    case SIGPIPE: return "SIGPIPE";
    default: return "";
  }
}

const char* SeverityText(AmpSeverity s) {
  switch (s) {
    case AmpSeverity::kInfo: return "info";
    case AmpSeverity::kWarning: return "warning";
    default: return "error";
  }
}

// How the run went, for session.json.
struct SessionFacts {
  std::chrono::system_clock::time_point started, ended;
  int exit_code = 0;
  int signal = 0;
  std::string error;  // the program could not be run
};

// What the files of the run add up to.
struct SessionTotals {
  size_t files = 0;
  uint64_t dropped = 0;  // saturates: never wraps to a small number
  bool empty = false;
};

// Lines on stderr and entries in session.json for warnings: a directory any process can write
// into may hold files with a million distinct warnings.
constexpr size_t kMaxWarningLines = 20;
constexpr size_t kMaxSessionWarnings = 1000;

nlohmann::json FileJson(const RecordedFile& rf, uint64_t* dropped) {
  nlohmann::json f;
  f["file"] = SanitizeUtf8(rf.name);
  *dropped = 0;
  if (!rf.summary.ok()) {
    f["error"] = SanitizeUtf8(rf.summary.status().message());
    return f;
  }
  const AmptraceSummary& s = rf.summary.value();
  *dropped = SaturatingAddU(SaturatingAddU(s.stats.cupti_dropped_records, s.stats.buffers_refused),
                            s.stats.nvtx_events_dropped);
  f["bytes"] = s.file_bytes;
  f["pid"] = s.pid;
  f["host"] = SanitizeUtf8(s.host);
  f["rank"] = s.rank;
  f["local_rank"] = s.local_rank;
  f["world_size"] = s.world_size;
  f["clean_end"] = s.clean_end;
  f["records"] = s.records;
  f["dropped_records"] = *dropped;
  f["cupti_dropped_records"] = s.stats.cupti_dropped_records;
  f["buffers_refused"] = s.stats.buffers_refused;
  f["nvtx_events_dropped"] = s.stats.nvtx_events_dropped;
  nlohmann::json by_type = nlohmann::json::object();
  for (const auto& [type, count] : s.records_by_type) by_type[AmpChunkTypeName(type)] = count;
  f["records_by_type"] = by_type;
  nlohmann::json fw = nlohmann::json::array();
  for (size_t i = 0; i < s.warnings.size() && i < kMaxSessionWarnings; ++i) {
    const AmptraceWarning& w = s.warnings[i];
    fw.push_back({{"code", SanitizeUtf8(w.code)}, {"severity", SeverityText(w.severity)}, {"message", SanitizeUtf8(w.message)}});
  }
  f["warnings"] = fw;
  if (s.warnings.size() > kMaxSessionWarnings) f["warnings_omitted"] = s.warnings.size() - kMaxSessionWarnings;
  return f;
}

nlohmann::json WarningsJson(const std::vector<RecordWarning>& found, bool* empty) {
  nlohmann::json warnings = nlohmann::json::array();
  for (const RecordWarning& w : found) {
    *empty |= w.empty_recording;
    if (warnings.size() >= kMaxSessionWarnings) continue;
    nlohmann::json names = nlohmann::json::array();
    for (const std::string& f : w.files) names.push_back(SanitizeUtf8(f));
    nlohmann::json j = {{"id", SanitizeUtf8(w.id)}, {"code", SanitizeUtf8(w.id)}, {"severity", w.severity},
                        {"message", SanitizeUtf8(w.message)}, {"files", names}, {"empty_recording", w.empty_recording}};
    // "file": the first file that has it (the field before "files" existed).
    j["file"] = names.empty() ? nlohmann::json(nullptr) : names.front();
    warnings.push_back(std::move(j));
  }
  return warnings;
}

// session.json: what ran, how it ended, and what each process's file says about itself.
// `found` and `totals` are null when the program never ran (there are no files to read).
Status WriteSession(const std::string& out_dir, const std::vector<std::string>& command, const std::string& library,
                    const nlohmann::json& options, const SessionFacts& facts, const std::vector<std::string>& replaced,
                    std::vector<RecordWarning>* found, SessionTotals* totals) {
  nlohmann::json session;
  session["schema"] = kSessionSchema;
  nlohmann::json command_json = nlohmann::json::array();
  for (const std::string& a : command) command_json.push_back(SanitizeUtf8(a));
  session["command"] = command_json;
  session["command_line"] = SanitizeUtf8(JoinCommand(command));
  session["output_dir"] = SanitizeUtf8(out_dir);
  session["injection_library"] = SanitizeUtf8(library);
  nlohmann::json replaced_json = nlohmann::json::array();
  for (const std::string& r : replaced) replaced_json.push_back(SanitizeUtf8(r));
  session["replaced_environment"] = replaced_json;
  session["start_time_unix_s"] = std::chrono::duration<double>(facts.started.time_since_epoch()).count();
  session["duration_s"] = std::chrono::duration<double>(facts.ended - facts.started).count();
  session["exit_code"] = facts.exit_code;
  session["signal"] = facts.signal > 0 ? nlohmann::json(facts.signal) : nlohmann::json(nullptr);
  if (facts.signal > 0) session["signal_name"] = SignalName(facts.signal);
  if (!facts.error.empty()) session["error"] = SanitizeUtf8(facts.error);
  session["options"] = options;

  std::vector<RecordedFile> recorded;
  if (found != nullptr)
    for (const std::string& name : ListAmptraceFiles(out_dir))
      recorded.push_back(RecordedFile{name, ReadAmptraceSummary(out_dir + "/" + name)});
  nlohmann::json files = nlohmann::json::array();
  SessionTotals sums;
  sums.files = recorded.size();
  for (const RecordedFile& rf : recorded) {
    uint64_t dropped = 0;
    files.push_back(FileJson(rf, &dropped));
    sums.dropped = SaturatingAddU(sums.dropped, dropped);
  }
  std::vector<RecordWarning> warnings;
  if (found != nullptr) warnings = CollectRecordWarnings(recorded);
  session["files"] = files;
  session["total_dropped_records"] = sums.dropped;
  session["warnings"] = WarningsJson(warnings, &sums.empty);
  if (warnings.size() > kMaxSessionWarnings) session["warnings_omitted"] = warnings.size() - kMaxSessionWarnings;
  session["empty_recording"] = sums.empty;
  if (found != nullptr) *found = std::move(warnings);
  if (totals != nullptr) *totals = sums;
  // Every string above went through SanitizeUtf8 (arguments and file names need not be UTF-8,
  // JSON must be); `replace` keeps a missed one from aborting the dump.
  return WriteFileAtomically(out_dir + "/session.json",
                             session.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

// Makes DIR (mkdir -p), or empties a reused one (-f: its .amptrace files and session.json).
// An exit code after a one-line error, or nullopt.
std::optional<int> PrepareOutputDir(const std::string& out_dir, bool force, bool* created) {
  struct stat st;
  if (stat(out_dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return UsageError(out_dir + " exists and is not a directory");
    if (!force) {
      std::fprintf(stderr, "ampscope record: output directory %s already exists (use -f to reuse it)\n", out_dir.c_str());
      return 2;
    }
    for (const std::string& f : ListAmptraceFiles(out_dir)) unlink((out_dir + "/" + f).c_str());
    unlink((out_dir + "/session.json").c_str());
    return std::nullopt;
  }
  std::string error;
  if (!MakeDirs(out_dir, &error)) {
    std::fprintf(stderr, "ampscope record: cannot create the output directory: %s\n", error.c_str());
    return 2;
  }
  *created = true;
  return std::nullopt;
}

// A CUDA_INJECTION64_PATH (or NVTX_INJECTION64_PATH) of the user's own is replaced for this run
// (the driver loads one injection library, and recording is what was asked for), never
// silently: one warning each, and "NAME=value" for session.json.
std::vector<std::string> ReplacedInjectionVariables(const std::string& library) {
  std::vector<std::string> replaced;
  for (const char* name : {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"}) {
    const char* own = std::getenv(name);
    if (own == nullptr || *own == '\0' || own == library) continue;
    char real[PATH_MAX];
    if (realpath(own, real) != nullptr && library == real) continue;  // ours, by another name
    std::fprintf(stderr,
                 "ampscope record: warning: %s was set to %s; this run uses ampscope's collector instead (%s), as "
                 "the CUDA driver loads one injection library; unset it to silence this\n",
                 name, own, library.c_str());
    replaced.push_back(std::string(name) + "=" + own);
  }
  return replaced;
}

// Refuses --steps and --capture-range values the collector cannot use (the exit status), and
// makes --nvtx-capture imply --capture-range nvtx.
std::optional<int> CheckRecordWindow(const std::string& steps, std::string& capture_range, const std::string& nvtx_capture) {
  if (!steps.empty()) {
    // The collector parses the same text with the same parser (base/step_range.h); it records
    // from a first step on, so "..M" is not accepted here.
    StatusOr<StepRange> range = ParseStepRange(steps);
    if (!range.ok()) return UsageError("--steps: " + range.status().message());
    if (!range->first) return UsageError("--steps '" + steps + "' needs a first step (N..M, N.. or N)");
  }
  if (!capture_range.empty() && capture_range != "nvtx")
    return UsageError("--capture-range '" + capture_range + "' is not supported (only 'nvtx')");
  if (!nvtx_capture.empty()) capture_range = "nvtx";
  if (capture_range == "nvtx" && nvtx_capture.empty()) return UsageError("--capture-range=nvtx needs --nvtx-capture NAME");
  if (!steps.empty() && !nvtx_capture.empty()) return UsageError("--steps and --capture-range cannot be combined");

  return std::nullopt;
}

// The recording's options as session.json lists them.
nlohmann::json RecordOptionsJson(const std::string& steps, const std::string& step_range_name, const std::string& nvtx_capture,
                                 bool tensor_metrics, bool fail_on_empty) {
  nlohmann::json options;
  options["steps"] = steps.empty() ? nlohmann::json(nullptr) : nlohmann::json(SanitizeUtf8(steps));
  options["step_range_name"] = steps.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json(SanitizeUtf8(step_range_name.empty() ? "step" : step_range_name));
  options["nvtx_capture"] = nvtx_capture.empty() ? nlohmann::json(nullptr) : nlohmann::json(SanitizeUtf8(nvtx_capture));
  options["tensor_metrics"] = tensor_metrics;
  options["fail_on_empty"] = fail_on_empty;

  return options;
}

int RunRecord(int argc, char** argv) {
  std::string out_dir;
  bool force = false;
  std::string steps, step_range_name, capture_range, nvtx_capture;
  bool tensor_metrics = false, fail_on_empty = false;
  std::vector<std::string> command;

  CLI::App app{kDescription};
  StyleApp(app, "record", "-- CMD ARGS...");
  app.footer(kFooter);
  app.add_option("-o,--output", out_dir, "Output directory (default ./ampscope-<YYYYmmdd-HHMMSS>)")->type_name("DIR");
  app.add_flag("-f,--force", force, "Reuse an existing DIR (its .amptrace files and session.json are replaced)");
  app.add_option("--steps", steps,
                 "Record only steps N..M (inclusive) of the NVTX range named by --step-range-name: the number in "
                 "its name (\"step 7\"), else its 0-based occurrence; \"N\" or \"N..\" also work")
      ->type_name("N..M");
  app.add_option("--step-range-name", step_range_name, "The NVTX range that marks a step (default \"step\")")
      ->type_name("NAME");
  app.add_option("--capture-range", capture_range, "Record only inside the first NVTX range named by --nvtx-capture")
      ->type_name("nvtx");
  app.add_option("--nvtx-capture", nvtx_capture, "That range's name")->type_name("NAME");
  app.add_flag("--tensor-metrics", tensor_metrics,
               "Sample Tensor Core activity with CUPTI PM sampling (when the GPU and permissions allow; otherwise a "
               "warning says why and the run goes on)");
  app.add_flag("--fail-on-empty", fail_on_empty,
               "Exit 3 when CMD exited 0 but nothing useful was recorded (no CUDA, CUPTI refused, no kernel, the "
               "--steps window never opened): for CI");
  // CMD starts after the first "--", or at the first word that is not an option (CLI11's prefix
  // command), so that CMD's own options are never taken for record's.
  int option_count = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      option_count = i;
      for (int j = i + 1; j < argc; ++j) command.push_back(argv[j]);
      break;
    }
  }
  if (option_count == argc) app.prefix_command();
  if (std::optional<int> done = ParseArgs(app, "record", option_count, argv)) return *done;
  if (std::optional<int> empty = RefuseEmptyPaths(app, "record", {"-o"})) return *empty;
  if (option_count == argc) {
    command = app.remaining();
    if (!command.empty() && command[0].size() > 1 && command[0][0] == '-') {
      std::vector<std::string> names;
      for (const CLI::Option* opt : app.get_options())
        for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
      const std::string word = command[0].substr(0, command[0].find('='));
      return UsageError("unknown option '" + word + "'" + DidYouMean(word, names));
    }
  }
  if (command.empty()) return UsageError("no command to run (put it after --)");
  if (std::optional<int> refused = CheckRecordWindow(steps, capture_range, nvtx_capture)) return *refused;
  std::string tried;
  const std::string library = FindInjectionLibrary(&tried);
  if (library.empty()) {
    std::fprintf(stderr, "ampscope record: cannot find libampscope_inject.so (looked at %s; set AMPSCOPE_INJECT_PATH)\n",
                 tried.c_str());
    return 2;
  }
  std::string program;
  int find_error = 0;
  if (!FindProgram(command[0], &program, &find_error)) {
    if (find_error == EACCES) {  // as a shell: exists, but is not an executable file
      std::fprintf(stderr, "ampscope record: cannot run '%s': Permission denied\n", program.c_str());
      return 126;
    }
    std::fprintf(stderr, "ampscope record: cannot run '%s': no such executable%s\n", command[0].c_str(),
                 command[0].find('/') == std::string::npos ? " in PATH" : "");
    return 127;
  }

  // The output directory.
  if (out_dir.empty()) out_dir = DefaultDir();
  out_dir = Absolute(out_dir);
  bool created = false;
  if (std::optional<int> failed = PrepareOutputDir(out_dir, force, &created)) return *failed;

  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", library},
      {"NVTX_INJECTION64_PATH", library},
      {"AMPSCOPE_OUTPUT_DIR", out_dir},
      // This command prints every warning afterwards, once per id for all processes; the
      // collector's own one line per process would repeat them.
      {"AMPSCOPE_PRINT_WARNINGS", "0"},
  };
  if (!steps.empty()) {
    env.emplace_back("AMPSCOPE_STEPS", steps);
    env.emplace_back("AMPSCOPE_STEP_RANGE_NAME", step_range_name.empty() ? "step" : step_range_name);
  }
  if (!nvtx_capture.empty()) env.emplace_back("AMPSCOPE_CAPTURE_NVTX", nvtx_capture);
  if (tensor_metrics) env.emplace_back("AMPSCOPE_TENSOR_METRICS", "1");

  const std::vector<std::string> replaced = ReplacedInjectionVariables(library);

  const nlohmann::json options = RecordOptionsJson(steps, step_range_name, nvtx_capture, tensor_metrics, fail_on_empty);
  SessionFacts facts;
  facts.started = std::chrono::system_clock::now();
  LaunchResult run = RunAndWait(command, env);
  facts.ended = std::chrono::system_clock::now();
  facts.exit_code = ShellExitCode(run);
  facts.signal = run.signal;
  const int exit_code = facts.exit_code;
  if (!run.started) {
    std::fprintf(stderr, "ampscope record: cannot run '%s': %s\n", command[0].c_str(), run.error.c_str());
    if (created) {
      rmdir(out_dir.c_str());  // no partial output
    } else {  // a reused directory (-f) says what happened to this run
      facts.error = "cannot run '" + command[0] + "': " + run.error;
      WriteSession(out_dir, command, library, options, facts, replaced, {}, nullptr);
    }
    ReleaseSignals(run);
    return exit_code;
  }
  std::vector<RecordWarning> found;
  SessionTotals totals;
  const Status written = WriteSession(out_dir, command, library, options, facts, replaced, &found, &totals);
  for (size_t i = 0; i < found.size() && i < kMaxWarningLines; ++i)
    std::fprintf(stderr, "%s\n", WarningLine(found[i], totals.files).c_str());
  if (found.size() > kMaxWarningLines)
    std::fprintf(stderr, "ampscope record: ... and %zu more warnings (the first 1000 are in session.json)\n",
                 found.size() - kMaxWarningLines);
  if (!written.ok()) std::fprintf(stderr, "ampscope record: cannot write session.json: %s\n", written.message().c_str());
  std::fprintf(stderr, "ampscope record: %zu trace file(s) in %s (exit code %d%s)\n", totals.files, out_dir.c_str(),
               exit_code, totals.dropped > 0 ? (", " + std::to_string(totals.dropped) + " records dropped").c_str() : "");
  ReleaseSignals(run);  // dies here by the signal that ended the program, when it was sent to us
  if (exit_code != 0) return exit_code;  // the program's own failure says more than ours
  if (!written.ok()) return 2;
  if (fail_on_empty && totals.empty) {
    std::fprintf(stderr, "ampscope record: --fail-on-empty: the recording is empty (see above); exit %d\n",
                 kExitEmptyRecording);
    return kExitEmptyRecording;
  }
  return exit_code;
}

}  // namespace

AMPSCOPE_REGISTER_COMMAND("record", "run a training command under the CUPTI/NVTX collector", RunRecord);

}  // namespace ampscope::cli
