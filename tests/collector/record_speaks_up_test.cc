// `ampscope record` never fails silently: on this machine (no GPU, no driver) the real CUPTI
// refuses, the NVTX test program initializes no CUDA, and windows can miss the steps; each of
// these must be one stderr line, an entry in session.json, and with --fail-on-empty exit 3.
// What the programs do is in their header comments (tests/collector_programs/); the expected
// step numbers follow from nvtx_steps.cc's five "step" ranges (0..4).
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "test_subprocess.h"
#include "support/test_support.h"

namespace ampscope {
namespace record_speaks_up_test {
namespace {

using testing::BinaryPath;
using testing::RunProcess;

const std::string kAmpscope = BinaryPath("cli/ampscope");
const std::string kNvtxSteps = BinaryPath("tests/collector_programs/ampscope_nvtx_steps");
const std::string kNoDriverHost = BinaryPath("tests/collector_programs/ampscope_no_driver_host");
const std::string kInjectLib = BinaryPath("collector/libampscope_inject.so");
const std::vector<std::string> kClean = {"AMPSCOPE_OUTPUT_DIR", "AMPSCOPE_STEPS", "AMPSCOPE_CAPTURE_NVTX",
                                         "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "RANK",
                                         "LOCAL_RANK", "WORLD_SIZE", "AMPSCOPE_INJECT_PATH",
                                         "AMPSCOPE_PRINT_WARNINGS"};

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// stderr lines of `record` that carry warning `id`.
size_t LinesFor(const std::string& err, const std::string& id) {
  size_t n = 0;
  for (const std::string& l : Lines(err)) n += l.rfind("ampscope record: " + id + ": ", 0) == 0;
  return n;
}

struct Recorded {
  testing::ProcessResult run;
  nlohmann::json session;
  std::string dir;
};

Recorded Record(const std::vector<std::string>& options, const std::vector<std::string>& command) {
  Recorded r;
  r.dir = testing::MakeTempDir("speaks") + "/out";
  std::vector<std::string> argv = {kAmpscope, "record", "-o", r.dir};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  r.run = RunProcess(argv, {}, kClean);
  r.session = nlohmann::json::parse(testing::ReadFile(r.dir + "/session.json"));
  return r;
}

bool SessionHas(const nlohmann::json& session, const std::string& id) {
  for (const auto& w : session["warnings"])
    if (w["id"] == id) return true;
  return false;
}

TEST(RecordSpeaksUpTest, AProgramWithoutCudaIsOneLine) {
  Recorded r = Record({}, {kNvtxSteps});
  EXPECT_EQ(r.run.exit_code(), 0) << r.run.err;
  EXPECT_EQ(LinesFor(r.run.err, "no_cuda_activity"), 1u) << r.run.err;
  EXPECT_TRUE(SessionHas(r.session, "no_cuda_activity"));
  EXPECT_EQ(r.session["empty_recording"], true);
  // The collector's own "ampscope:" line is left to `record`, which prints each id once.
  for (const std::string& l : Lines(r.run.err)) EXPECT_NE(l.rfind("ampscope: ", 0), 0u) << l;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Its analysis, on the recording's directory: the GPU shares are unknown (not "busy 0.0%, idle
// 100.0%"), and the matrix and checklist say their one reason once each instead of on each of the
// 5 dimensions and 7 items (12 times before). Terminal, Markdown and HTML alike.
TEST(RecordSpeaksUpTest, ItsAnalysisSaysNoGpuActivityOncePerSection) {
  Recorded r = Record({}, {kNvtxSteps});
  ASSERT_EQ(r.run.exit_code(), 0) << r.run.err;
  auto analyzed = RunProcess({kAmpscope, "analyze", r.dir, "--no-color", "--markdown", r.dir + "/../r.md", "--html",
                              r.dir + "/../r.html", "-o", r.dir + "/../r.json"},
                             {{"COLUMNS", "100"}}, kClean);
  ASSERT_EQ(analyzed.exit_code(), 0) << analyzed.err;
  const nlohmann::json report = nlohmann::json::parse(testing::ReadFile(r.dir + "/../r.json"));
  EXPECT_EQ(report["gpu"]["activity_recorded"], false);
  const std::string md = testing::ReadFile(r.dir + "/../r.md"), html = testing::ReadFile(r.dir + "/../r.html");
  for (const std::string* text : std::initializer_list<const std::string*>{&analyzed.out, &md, &html}) {
    EXPECT_LE(Count(*text, "no GPU activity was recorded"), 4u) << *text;  // GPU time, matrix, checklist, finding
  }
  // No "GPU busy 0.0%" / "GPU idle 100.0%" rows: the section is one "unknown" line.
  EXPECT_EQ(analyzed.out.find("GPU idle"), std::string::npos) << analyzed.out;
  EXPECT_NE(analyzed.out.find("GPU time (share of the analysed steps)\n  unknown: no GPU activity was recorded"),
            std::string::npos)
      << analyzed.out;
  EXPECT_EQ(md.find("idle: other"), std::string::npos) << md;
  EXPECT_NE(md.find("GPU time: unknown: no GPU activity was recorded"), std::string::npos) << md;
  EXPECT_NE(html.find("GPU busy</div><div class=\"v\">unknown</div>"), std::string::npos);
  EXPECT_NE(analyzed.out.find("every dimension unknown: no GPU activity was recorded"), std::string::npos) << analyzed.out;
  EXPECT_NE(analyzed.out.find("every item unknown: no GPU activity was recorded"), std::string::npos) << analyzed.out;
  EXPECT_NE(md.find("Every dimension unknown: no GPU activity was recorded"), std::string::npos) << md;
  EXPECT_NE(html.find("Every item unknown: no GPU activity was recorded"), std::string::npos);
}

TEST(RecordSpeaksUpTest, FailOnEmptyTurnsItIntoExit3) {
  Recorded r = Record({"--fail-on-empty"}, {kNvtxSteps});
  EXPECT_EQ(r.run.exit_code(), 3) << r.run.err;
  EXPECT_NE(r.run.err.find("--fail-on-empty"), std::string::npos);
  // The program's own failure wins over ours.
  Recorded failed = Record({"--fail-on-empty"}, {kNvtxSteps, "5"});
  EXPECT_EQ(failed.run.exit_code(), 5);
}

TEST(RecordSpeaksUpTest, NoFileAtAllIsOneLine) {
  Recorded r = Record({"--fail-on-empty"}, {"/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(r.run.exit_code(), 3);
  EXPECT_EQ(LinesFor(r.run.err, "no_files"), 1u) << r.run.err;
  EXPECT_TRUE(SessionHas(r.session, "no_files"));
}

TEST(RecordSpeaksUpTest, CuptiWithoutADriverSaysWhyAndHowToFix) {
  // The host program calls InitializeInjection itself (cuInit would, given a driver); the real
  // libcupti then refuses, as it does on every machine without a driver.
  Recorded r = Record({"--fail-on-empty"}, {kNoDriverHost, kInjectLib});
  EXPECT_EQ(r.run.exit_code(), 7) << r.run.err;  // the program's own code
  const size_t lines = LinesFor(r.run.err, "cupti_unavailable") + LinesFor(r.run.err, "cupti_load_failed");
  EXPECT_EQ(lines, 1u) << r.run.err;
  EXPECT_TRUE(SessionHas(r.session, "cupti_unavailable") || SessionHas(r.session, "cupti_load_failed"));
  if (SessionHas(r.session, "cupti_unavailable")) {
    EXPECT_NE(r.run.err.find("nvidia-smi"), std::string::npos) << r.run.err;
  }
}

TEST(RecordSpeaksUpTest, AWindowThatNeverOpensIsOneLine) {
  Recorded r = Record({"--steps", "7..9"}, {kNvtxSteps});
  EXPECT_EQ(r.run.exit_code(), 0);
  EXPECT_EQ(LinesFor(r.run.err, "capture_range_not_reached"), 1u) << r.run.err;
  EXPECT_TRUE(SessionHas(r.session, "capture_range_not_reached"));
  Recorded strict = Record({"--steps", "7..9", "--fail-on-empty"}, {kNvtxSteps});
  EXPECT_EQ(strict.run.exit_code(), 3);
}

TEST(RecordSpeaksUpTest, AWindowCutShortWarnsAndStepsKeepTheirNumbers) {
  Recorded r = Record({"--steps", "2..9"}, {kNvtxSteps});
  EXPECT_EQ(r.run.exit_code(), 0);
  ASSERT_EQ(LinesFor(r.run.err, "steps_window_cut"), 1u) << r.run.err;
  EXPECT_NE(r.run.err.find("only steps 2..4 (3 of 8)"), std::string::npos) << r.run.err;
  ASSERT_EQ(r.session["files"].size(), 1u);
  const std::string trace = r.dir + "/" + r.session["files"][0]["file"].get<std::string>();
  const std::string report = r.dir + "/report.json";
  // --include-warmup: under load the first recorded step can run 1.5x the others and be left out
  // as warm-up (as NvtxEndToEndTest saw); the numbers the window kept are what is tested here.
  auto analyze = RunProcess({kAmpscope, "analyze", trace, "-o", report, "--quiet", "--include-warmup"});
  ASSERT_EQ(analyze.exit_code(), 0) << analyze.err;
  auto json = nlohmann::json::parse(testing::ReadFile(report));
  std::vector<int64_t> numbers;
  for (const auto& w : json["steps"]["windows"]) numbers.push_back(w["number"].get<int64_t>());
  EXPECT_EQ(numbers, (std::vector<int64_t>{2, 3, 4}));
}

}  // namespace
}  // namespace record_speaks_up_test
}  // namespace ampscope
