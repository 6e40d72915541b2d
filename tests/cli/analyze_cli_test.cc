// `ampscope analyze` as a user runs it: outputs on good input; on bad input one line naming
// the file and the byte offset, exit code 2, and no output file left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace analyze_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::HaveShared;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;

struct RunResult {
  int exit_code;
  std::string out;  // stdout + stderr
};

RunResult RunAmpscope(const std::string& args) {
  std::string cmd = BinaryPath("cli/ampscope") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

std::string Gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = data.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

const char* kSmallTrace = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
  "args": {"correlation": 7, "External id": 3}},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120, "dur": 20,
  "args": {"correlation": 7, "device": 0, "stream": 7, "External id": 3}}
]})";

void ExpectOneLineError(const RunResult& r, const std::string& file, const std::string& what_regex) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  // Exactly one line, naming the file and a byte offset.
  std::string text = r.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  EXPECT_EQ(text.find('\n'), std::string::npos) << r.out;
  EXPECT_NE(text.find(file), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(text, std::regex(what_regex))) << r.out;
}

class AnalyzeCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  bool NoOutputs() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_))
      if (e.path().filename().string().rfind("out", 0) == 0) return false;
    return true;
  }
  std::string dir_;
};

// --detail-steps (issue 38 point 6): 600 steps of 100 µs from 1000 µs, each with a launch at +5 and
// a 60 µs kernel at +20. With --detail-steps 250, 250 - 200 = 50 are left for the regular sample:
// one in every 12. Kept: 0..99 (the first 50, and the 100 longest: all are equal, ties go to the
// earlier), the multiples of 12 in 108..540 (37), 550..599 (50): 187. The step time is every
// step's; the timeline outputs read every step.
TEST_F(AnalyzeCli, DetailStepsAnalysesSomeStepsOfALongTrace) {
  std::string json = "{\"traceEvents\": [\n";
  for (int i = 0; i < 600; ++i) {
    const int base = 1000 + 100 * i;
    json += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" + std::to_string(i) +
            "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(base) + ", \"dur\": 100},\n";
    json += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": " +
            std::to_string(base + 5) + ", \"dur\": 5, \"args\": {\"correlation\": " + std::to_string(i + 1) + "}},\n";
    json += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_fp16_gemm\", \"pid\": 0, \"tid\": 7, \"ts\": " +
            std::to_string(base + 20) + ", \"dur\": 60, \"args\": {\"correlation\": " + std::to_string(i + 1) +
            ", \"device\": 0, \"stream\": 7}}" + (i + 1 < 600 ? "," : "") + "\n";
  }
  json += "]}\n";
  WriteFile(dir_ + "/t.json", json);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json --detail-steps 250 -o " + dir_ + "/sampled.json --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("of 600 steps in the trace"), std::string::npos) << r.out;
  nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/sampled.json"));
  EXPECT_EQ(rep["steps"]["count"], 187);
  EXPECT_EQ(rep["steps"]["sampled"]["in_trace"], 600);
  EXPECT_EQ(rep["steps"]["sampled"]["analysed"], 187);
  // 600 x 3 events, 187 x 3 kept.
  EXPECT_EQ(rep["steps"]["sampled"]["events_left_out"], 1800 - 561);
  EXPECT_DOUBLE_EQ(rep["steps"]["time_us"]["mean"].get<double>(), 100.0);
  // Each analysed step: 60 µs of kernel in 100 µs.
  EXPECT_NEAR(rep["gpu"]["kernel_busy_pct"].get<double>(), 60.0, 1e-9);

  // Through a rank summary and a merge, and as a job of two such ranks, the note stays.
  r = RunAmpscope("analyze " + dir_ + "/t.json --detail-steps 250 -q -o " + dir_ + "/r.json --summary-out " + dir_ + "/t.summary.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  r = RunAmpscope("merge " + dir_ + "/t.summary.json -q -o " + dir_ + "/merged.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  rep = nlohmann::json::parse(ReadFile(dir_ + "/merged.json"));
  EXPECT_EQ(rep["steps"]["sampled"]["in_trace"], 600);
  EXPECT_EQ(rep["steps"]["count"], 187);
  std::filesystem::copy_file(dir_ + "/t.json", dir_ + "/u.json");
  r = RunAmpscope("analyze " + dir_ + "/t.json " + dir_ + "/u.json --detail-steps 250 -q -o " + dir_ + "/job.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  rep = nlohmann::json::parse(ReadFile(dir_ + "/job.json"));
  EXPECT_EQ(rep["steps"]["sampled"]["in_trace"], 600);
  EXPECT_EQ(rep["ranks"][1]["steps"]["sampled"]["analysed"], 187);

  r = RunAmpscope("analyze " + dir_ + "/t.json -o " + dir_ + "/all.json --no-color -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  rep = nlohmann::json::parse(ReadFile(dir_ + "/all.json"));
  EXPECT_EQ(rep["steps"]["count"], 600);  // the default, 4096, is more
  EXPECT_TRUE(rep["steps"]["sampled"].is_null());

  r = RunAmpscope("analyze " + dir_ + "/t.json --detail-steps 250 -o " + dir_ + "/exported.json --chrome-trace " + dir_ +
                  "/t.trace.json -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  rep = nlohmann::json::parse(ReadFile(dir_ + "/exported.json"));
  EXPECT_EQ(rep["steps"]["count"], 600);
}

TEST_F(AnalyzeCli, WritesReportAndSummary) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json -o " + dir_ + "/report.json --no-color");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/report.json"));
  EXPECT_EQ(rep["schema"], "ampscope.report/1");
  EXPECT_EQ(rep["steps"]["count"], 1);
  // Hand calculation: the step [100, 150) µs holds one 20 µs kernel => 40% busy.
  EXPECT_NEAR(rep["gpu"]["kernel_busy_pct"].get<double>(), 40.0, 1e-9);
  EXPECT_FALSE(r.out.empty());  // the terminal summary
}

TEST_F(AnalyzeCli, MissingFile) {
  RunResult r = RunAmpscope("analyze " + dir_ + "/nope.json -o " + dir_ + "/out.json");
  ExpectOneLineError(r, "nope.json", "cannot open|No such file");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, NotJson) {
  WriteFile(dir_ + "/bad.json", "this is not json at all");
  RunResult r = RunAmpscope("analyze " + dir_ + "/bad.json -o " + dir_ + "/out.json --html " + dir_ + "/out.html");
  ExpectOneLineError(r, "bad.json", "byte [0-9]+");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, TruncatedJson) {
  std::string t = kSmallTrace;
  WriteFile(dir_ + "/trunc.json", t.substr(0, t.size() / 2));
  RunResult r = RunAmpscope("analyze " + dir_ + "/trunc.json -o " + dir_ + "/out.json");
  ExpectOneLineError(r, "trunc.json", "byte [0-9]+.*(truncated|unexpected end)");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, TruncatedGzip) {
  std::string gz = Gzip(kSmallTrace);
  WriteFile(dir_ + "/trunc.json.gz", gz.substr(0, gz.size() - 20));
  RunResult r = RunAmpscope("analyze " + dir_ + "/trunc.json.gz -o " + dir_ + "/out.json");
  ExpectOneLineError(r, "trunc.json.gz", "byte [0-9]+.*truncated");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, WrongTypes) {
  WriteFile(dir_ + "/types.json",
            R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": "soon", "dur": 3}]})");
  RunResult r = RunAmpscope("analyze " + dir_ + "/types.json -o " + dir_ + "/out.json");
  ExpectOneLineError(r, "types.json", "byte [0-9]+");
  EXPECT_TRUE(NoOutputs());
  WriteFile(dir_ + "/top.json", "[1, 2, 3]");
  ExpectOneLineError(RunAmpscope("analyze " + dir_ + "/top.json -o " + dir_ + "/out.json"), "top.json", "byte [0-9]+");
}

TEST_F(AnalyzeCli, NonsenseTimes) {
  WriteFile(dir_ + "/times.json",
            R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1e300, "dur": 3}]})");
  RunResult r = RunAmpscope("analyze " + dir_ + "/times.json -o " + dir_ + "/out.json");
  ExpectOneLineError(r, "times.json", "byte [0-9]+");
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, SurvivableOdditiesAreCounted) {
  // A negative duration and a kernel whose correlation has no runtime call are counted in
  // diagnostics, not fatal.
  WriteFile(dir_ + "/odd.json", R"({"traceEvents": [
   {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
   {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 130, "dur": -4, "args": {"correlation": 99, "stream": 7, "device": 0}},
   {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 120, "dur": 5, "args": {"correlation": 98, "stream": 7, "device": 0}}
  ]})");
  RunResult r = RunAmpscope("analyze " + dir_ + "/odd.json -q -o " + dir_ + "/report.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/report.json"));
  const nlohmann::json& c = rep["diagnostics"]["counters"];
  EXPECT_GE(c.value("negative_duration", 0), 1) << c.dump();
  EXPECT_GE(c.value("unmatched_correlation", 0), 1) << c.dump();
  EXPECT_GE(c.value("unsorted_events", 0), 1) << c.dump();
}

TEST_F(AnalyzeCli, UsageErrors) {
  EXPECT_EQ(RunAmpscope("").exit_code, 2);
  EXPECT_EQ(RunAmpscope("analyze").exit_code, 2);
  WriteFile(dir_ + "/t.json", kSmallTrace);
  EXPECT_EQ(RunAmpscope("analyze " + dir_ + "/t.json --steps 5..2").exit_code, 2);
  EXPECT_EQ(RunAmpscope("analyze " + dir_ + "/t.json --step-pattern '(['").exit_code, 2);
}

// Issue 16: outputs that would clobber an input or each other are refused (exit 2) before
// anything is read or written.
TEST_F(AnalyzeCli, OutputThatIsAnInputOrSharedIsRefused) {
  const std::string trace = dir_ + "/t.json";
  WriteFile(trace, kSmallTrace);
  RunResult r = RunAmpscope("analyze " + trace + " -o " + trace + " -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "ampscope analyze: " + trace + ": is also an input (" + trace + "); refusing to overwrite it\n");
  EXPECT_EQ(ReadFile(trace), kSmallTrace);  // the trace is intact
  r = RunAmpscope("analyze " + trace + " --html " + dir_ + "/out.html --markdown " + dir_ + "/out.html -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "ampscope analyze: " + dir_ + "/out.html: is given for two outputs\n");
  EXPECT_TRUE(NoOutputs());
}

// A symlink at an output path is refused and left alone; no other output of the set appears.
TEST_F(AnalyzeCli, SymlinkOutputIsRefused) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  WriteFile(dir_ + "/target.json", "keep me");
  ASSERT_EQ(symlink((dir_ + "/target.json").c_str(), (dir_ + "/outlink.json").c_str()), 0);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json -o " + dir_ + "/outlink.json --html " + dir_ +
                            "/out.html -q");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("outlink.json: is a symbolic link"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(dir_ + "/target.json"), "keep me");
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/outlink.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out.html"));
}

// A FIFO (as /dev/null or a pipe would be) is written in place, not replaced by a file.
TEST_F(AnalyzeCli, FifoOutputIsWrittenInPlace) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  const std::string fifo = dir_ + "/trace.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = ReadFile(fifo); });
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json --chrome-trace " + fifo + " -q");
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(received).contains("traceEvents"));
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// A failing output (here /dev/full: every write is ENOSPC) leaves no other output behind.
TEST_F(AnalyzeCli, FullDiskLeavesNoPartialSet) {
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists("/dev/full"), "no /dev/full on this system");
  WriteFile(dir_ + "/t.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json -o " + dir_ + "/out.json --html " + dir_ +
                            "/out.html --chrome-trace /dev/full -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "ampscope analyze: /dev/full: write failed: No space left on device\n");
  EXPECT_TRUE(NoOutputs());
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find("ampscope-tmp"), std::string::npos) << e.path();
}

TEST_F(AnalyzeCli, HugeStepNumberIsAUsageError) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json --steps 1..99999999999999999999999 -q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "ampscope analyze: --steps: step 99999999999999999999999 is out of range (at most 9223372036854775807)\n");
}

// ---- many ranks: -j, --keep-going, --ranks, summaries and merge (docs/scale.md) ----------

std::string DlrmFiles() {
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(SharedPath("traces/kineto/param_dlrm_8ranks")))
    paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::string all;
  for (const std::string& p : paths) all += " " + p;
  return all;
}

// Reading ranks in parallel changes nothing in the report (the shared 8-rank DLRM job).
TEST_F(AnalyzeCli, ParallelRanksGiveTheSameReport) {
  AMPSCOPE_REQUIRE_INPUT(HaveShared(), "shared traces (../shared/traces/kineto/param_dlrm_8ranks)");
  const std::string files = DlrmFiles();
  ASSERT_EQ(RunAmpscope("analyze" + files + " -q -j 1 -o " + dir_ + "/j1.json").exit_code, 0);
  ASSERT_EQ(RunAmpscope("analyze" + files + " -q -j 3 -o " + dir_ + "/j3.json").exit_code, 0);
  const nlohmann::json j1 = nlohmann::json::parse(ReadFile(dir_ + "/j1.json"));
  EXPECT_EQ(j1, nlohmann::json::parse(ReadFile(dir_ + "/j3.json")));
  EXPECT_EQ(j1["ranks"].size(), 8u);
  EXPECT_EQ(j1["job"]["per_rank"].size(), 8u);
  EXPECT_TRUE(j1["job"]["warnings"].empty()) << j1["job"]["warnings"];
}

TEST_F(AnalyzeCli, SameFileTwiceIsRefused) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/t.json " + dir_ + "/../" +
                            std::filesystem::path(dir_).filename().string() + "/t.json -q -o " + dir_ + "/out.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("t.json: is given twice"), std::string::npos) << r.out;
  EXPECT_TRUE(NoOutputs());
}

TEST_F(AnalyzeCli, KeepGoingNamesTheBadRankAndAnalysesTheRest) {
  WriteFile(dir_ + "/a.json", kSmallTrace);
  WriteFile(dir_ + "/b.json", kSmallTrace);
  WriteFile(dir_ + "/bad.json", "this is not json at all");
  const std::string inputs = " " + dir_ + "/a.json " + dir_ + "/bad.json " + dir_ + "/b.json";
  // Without --keep-going: exit 2, one line, nothing written.
  RunResult stopped = RunAmpscope("analyze" + inputs + " -q -o " + dir_ + "/out.json");
  ExpectOneLineError(stopped, "bad.json", "byte [0-9]+");
  EXPECT_TRUE(NoOutputs());
  RunResult r = RunAmpscope("analyze" + inputs + " -q --keep-going -o " + dir_ + "/out.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("left out: .*bad.json.*byte [0-9]+"))) << r.out;
  const nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/out.json"));
  EXPECT_EQ(rep["ranks"].size(), 2u);
  ASSERT_EQ(rep["missing_inputs"].size(), 1u);
  EXPECT_EQ(rep["missing_inputs"][0]["path"], dir_ + "/bad.json");
  EXPECT_EQ(rep["job"]["missing_ranks"], 1);
}

// out.json for two ranks is out.rank0.json and out.rank1.json: an input of that name is never
// overwritten (exit 2 before anything is written).
TEST_F(AnalyzeCli, PerRankTimelinesNeverOverwriteAnInput) {
  WriteFile(dir_ + "/a.json", kSmallTrace);
  WriteFile(dir_ + "/out.rank1.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/a.json " + dir_ + "/out.rank1.json -q -o " + dir_ +
                            "/r.json --chrome-trace " + dir_ + "/out.json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("out.rank1.json"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(dir_ + "/out.rank1.json"), kSmallTrace);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out.rank0.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.json"));
}

TEST_F(AnalyzeCli, TimelinesOfSeveralRanksAreOneFilePerSelectedRank) {
  WriteFile(dir_ + "/a.json", kSmallTrace);
  WriteFile(dir_ + "/b.json", kSmallTrace);
  RunResult r = RunAmpscope("analyze " + dir_ + "/a.json " + dir_ + "/b.json -q --ranks 1 --chrome-trace " + dir_ +
                            "/out.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/out.rank1.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out.rank0.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out.json"));
  EXPECT_TRUE(nlohmann::json::parse(ReadFile(dir_ + "/out.rank1.json"))["traceEvents"].is_array());
  EXPECT_EQ(RunAmpscope("analyze " + dir_ + "/a.json --ranks 0,x -q").exit_code, 2);
}

// analyze --summary-out per rank, then merge: the report of analysing the files together.
// Without a timeline to write, analyze leaves the launch flows and python_function events out
// of the trace it reads (the analysis never reads them): the report is the same, and a Chrome
// timeline, when asked for, still draws them.
TEST_F(AnalyzeCli, TimelineEventsAreKeptOnlyForATimeline) {
  const std::string trace = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "python_function", "name": "train.py(7): step", "pid": 1, "tid": 1, "ts": 101, "dur": 40},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
  "args": {"correlation": 7, "External id": 3}},
 {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 110, "cat": "ac2g", "name": "ac2g"},
 {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 120, "cat": "ac2g", "name": "ac2g", "bp": "e"},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120, "dur": 20,
  "args": {"correlation": 7, "device": 0, "stream": 7, "External id": 3}}
]})";
  WriteFile(dir_ + "/t.json", trace);
  RunResult plain = RunAmpscope("analyze " + dir_ + "/t.json -q -o " + dir_ + "/plain.json");
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  RunResult timeline =
      RunAmpscope("analyze " + dir_ + "/t.json -q -o " + dir_ + "/with.json --chrome-trace " + dir_ + "/c.json");
  ASSERT_EQ(timeline.exit_code, 0) << timeline.out;
  EXPECT_EQ(ReadFile(dir_ + "/plain.json"), ReadFile(dir_ + "/with.json"));
  const nlohmann::json c = nlohmann::json::parse(ReadFile(dir_ + "/c.json"));
  int flow_ends = 0, python = 0;
  for (const nlohmann::json& e : c["traceEvents"]) {
    if (e.value("cat", "") == "ac2g" && (e.value("ph", "") == "s" || e.value("ph", "") == "f")) ++flow_ends;
    if (e.value("name", "") == "train.py(7): step") ++python;
  }
  EXPECT_EQ(flow_ends, 2);
  EXPECT_EQ(python, 1);
}

TEST_F(AnalyzeCli, MergeOfSummariesEqualsAnalyzeTogether) {
  WriteFile(dir_ + "/a.json", kSmallTrace);
  std::string second = kSmallTrace;
  second.replace(second.find("\"dur\": 20"), 9, "\"dur\": 30");  // a slower kernel on rank 1
  WriteFile(dir_ + "/b.json", second);
  for (const char* rank : {"a", "b"})
    ASSERT_EQ(RunAmpscope("analyze " + dir_ + "/" + rank + ".json -q --summary-out " + dir_ + "/" + rank + ".sum").exit_code, 0);
  RunResult merged = RunAmpscope("merge " + dir_ + "/a.sum " + dir_ + "/b.sum -q -o " + dir_ + "/merged.json");
  ASSERT_EQ(merged.exit_code, 0) << merged.out;
  ASSERT_EQ(RunAmpscope("analyze " + dir_ + "/a.json " + dir_ + "/b.json -q -o " + dir_ + "/together.json").exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/merged.json")), nlohmann::json::parse(ReadFile(dir_ + "/together.json")));
  // Gzip'd summaries (a path ending in .gz) merge into the same bytes.
  for (const char* rank : {"a", "b"})
    ASSERT_EQ(RunAmpscope("analyze " + dir_ + "/" + rank + ".json -q --summary-out " + dir_ + "/" + rank + ".sum.gz").exit_code, 0);
  EXPECT_EQ(ReadFile(dir_ + "/a.sum.gz").substr(0, 2), "\x1f\x8b");
  ASSERT_EQ(RunAmpscope("merge " + dir_ + "/a.sum.gz " + dir_ + "/b.sum.gz -q -o " + dir_ + "/merged_gz.json").exit_code, 0);
  EXPECT_EQ(ReadFile(dir_ + "/merged_gz.json"), ReadFile(dir_ + "/merged.json"));
  // A cut one is named with its byte, exit 2, and no report is written.
  const std::string gz = ReadFile(dir_ + "/b.sum.gz");
  WriteFile(dir_ + "/cut.sum.gz", gz.substr(0, gz.size() - 9));
  RunResult cut = RunAmpscope("merge " + dir_ + "/a.sum.gz " + dir_ + "/cut.sum.gz -q -o " + dir_ + "/cut.json");
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.out.find("cut.sum.gz: byte " + std::to_string(gz.size() - 9)), std::string::npos) << cut.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/cut.json"));
  // A summary of several inputs does not exist; a report is not a summary.
  EXPECT_EQ(RunAmpscope("analyze " + dir_ + "/a.json " + dir_ + "/b.json -q --summary-out " + dir_ + "/x.sum").exit_code, 2);
  RunResult not_summary = RunAmpscope("merge " + dir_ + "/merged.json -q");
  EXPECT_EQ(not_summary.exit_code, 2);
  EXPECT_NE(not_summary.out.find("merged.json: byte 0: not an ampscope rank summary"), std::string::npos) << not_summary.out;
}

// Rank `rank` of a world of `world`: 8 ProfilerSteps of 100 ms, the first 2 s longer with a 60 ms
// first launch of its GEMM (lazy module loading); each step launches a GEMM and a softmax.
std::string WarmupTrace(int rank, int world) {
  std::string ev;
  int64_t t = 1000, corr = 1;
  for (int s = 0; s < 8; ++s) {
    const int64_t len = s == 0 ? 2'100'000 : 100'000;  // µs
    ev += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" + std::to_string(s) +
          "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(t) + ", \"dur\": " + std::to_string(len) + "},\n";
    for (int k = 0; k < 2; ++k) {
      const int64_t launch = t + len - 50'000 + k * 20'000;
      const int64_t launch_dur = s == 0 && k == 0 ? 60'000 : 5;
      const int64_t at = launch - (s == 0 && k == 0 ? 60'000 : 0);
      const char* name = k == 0 ? "ampere_sgemm_128x64_nn" : "cunn_SoftMaxForward";
      ev += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": " +
            std::to_string(at) + ", \"dur\": " + std::to_string(launch_dur) + ", \"args\": {\"correlation\": " +
            std::to_string(corr) + "}},\n";
      ev += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + std::string(name) + "\", \"pid\": 0, \"tid\": 7, \"ts\": " +
            std::to_string(at + launch_dur + 10) + ", \"dur\": 15000, \"args\": {\"correlation\": " + std::to_string(corr) +
            ", \"device\": 0, \"stream\": 7}},\n";
      ++corr;
    }
    t += len;
  }
  ev.resize(ev.size() - 2);
  return "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank) + ", \"world_size\": " +
         std::to_string(world) + "},\n\"traceEvents\": [\n" + ev + "\n]}";
}

// Warm-up steps are left out by default and kept with --include-warmup, the same way through
// --summary-out and merge; summaries analysed with and without it do not merge.
TEST_F(AnalyzeCli, IncludeWarmupKeepsTheWarmupStepAndMergeAgrees) {
  for (int r : {0, 1, 2}) WriteFile(dir_ + "/r" + std::to_string(r) + ".json", WarmupTrace(r, 4));
  const std::string inputs = " " + dir_ + "/r0.json " + dir_ + "/r1.json " + dir_ + "/r2.json";
  ASSERT_EQ(RunAmpscope("analyze" + inputs + " -q -o " + dir_ + "/default.json").exit_code, 0);
  RunResult kept = RunAmpscope("analyze" + inputs + " -q --include-warmup -o " + dir_ + "/kept.json");
  ASSERT_EQ(kept.exit_code, 0) << kept.out;
  const nlohmann::json d = nlohmann::json::parse(ReadFile(dir_ + "/default.json"));
  const nlohmann::json k = nlohmann::json::parse(ReadFile(dir_ + "/kept.json"));
  // 8 steps; step 0 (2.2 s against 100 ms) is warm-up: 7 analysed by default, 8 with the flag.
  EXPECT_EQ(d["ranks"][0]["steps"]["count"], 7);
  EXPECT_EQ(k["ranks"][0]["steps"]["count"], 8);
  ASSERT_EQ(d["ranks"][0]["steps"]["flagged"].size(), 1u);
  EXPECT_EQ(d["ranks"][0]["steps"]["flagged"][0]["kind"], "warmup");
  EXPECT_EQ(d["ranks"][0]["steps"]["flagged"][0]["excluded"], true);
  EXPECT_EQ(k["ranks"][0]["steps"]["flagged"][0]["excluded"], false);
  EXPECT_EQ(d["trace_integrity"][0]["id"], "warmup");
  EXPECT_EQ(d["trace_integrity"][0]["status"], "warn");
  EXPECT_EQ(k["trace_integrity"][0]["status"], "fail");
  EXPECT_EQ(k["analysis_options"]["include_warmup"], true);
  // Three ranks of a world of 4: rank 3 is missing, with a warning.
  EXPECT_EQ(d["job"]["missing_ranks"], 1);
  EXPECT_NE(kept.out.find("3 of the 4 ranks"), std::string::npos) << kept.out;
  // The same through summaries.
  for (int r : {0, 1, 2}) {
    const std::string n = dir_ + "/r" + std::to_string(r);
    ASSERT_EQ(RunAmpscope("analyze " + n + ".json -q --include-warmup --summary-out " + n + ".kept.sum").exit_code, 0);
    ASSERT_EQ(RunAmpscope("analyze " + n + ".json -q --summary-out " + n + ".sum").exit_code, 0);
  }
  ASSERT_EQ(RunAmpscope("merge " + dir_ + "/r0.kept.sum " + dir_ + "/r1.kept.sum " + dir_ + "/r2.kept.sum -q -o " + dir_ +
                        "/merged_kept.json").exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/merged_kept.json")), k);
  ASSERT_EQ(RunAmpscope("merge " + dir_ + "/r0.sum " + dir_ + "/r1.sum " + dir_ + "/r2.sum -q -o " + dir_ + "/merged.json").exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/merged.json")), d);
  RunResult mixed = RunAmpscope("merge " + dir_ + "/r0.sum " + dir_ + "/r1.kept.sum -q -o " + dir_ + "/mixed.json");
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.out.find("--include-warmup"), std::string::npos) << mixed.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/mixed.json"));
}

TEST_F(AnalyzeCli, GpuPeaksTableIsUsedAndCheckedFirst) {
  WriteFile(dir_ + "/t.json", kSmallTrace);
  WriteFile(dir_ + "/bad.tsv", "not a table\n");
  RunResult bad = RunAmpscope("analyze " + dir_ + "/t.json -q --gpu-peaks " + dir_ + "/bad.tsv -o " + dir_ + "/out.json");
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--gpu-peaks"), std::string::npos) << bad.out;
  EXPECT_TRUE(NoOutputs());
}

// --gpu-peaks reaches the diagnosis too (issue 35: its fallback ratio came from the built-in table).
// ResNet50 on a Tesla V100-DGXS-32GB (shared/traces/README.md) with a table of two lab GPUs: the
// V100 is not in it, so the AMP estimate takes the table's most conservative fp32/fp16 ratio, by
// hand LAB-B's 50 / 200 = 0.250 (LAB-A's is 20 / 100 = 0.200).
TEST_F(AnalyzeCli, GpuPeaksTableReachesTheDiagnosisOnASharedTrace) {
  const std::string trace = SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  AMPSCOPE_REQUIRE_INPUT(std::filesystem::exists(trace), "shared input not available: " + trace);
  WriteFile(dir_ + "/lab.tsv",
            "gpu\tfp16\ttf32\tfp32\thbm\tnvlink\tpcie\nLAB-A\t100\t50\t20\t1000\t0\t64\nLAB-B\t200\t100\t50\t2000\t0\t64\n");
  RunResult r = RunAmpscope("analyze " + trace + " -q --gpu-peaks " + dir_ + "/lab.tsv -o " + dir_ + "/out.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string report = ReadFile(dir_ + "/out.json");
  EXPECT_NE(report.find("SIMT 0.250"), std::string::npos);
  EXPECT_NE(report.find("the most conservative ratio in it (LAB-B)"), std::string::npos);
  EXPECT_EQ(report.find("RTX-3090"), std::string::npos);
}

}  // namespace
}  // namespace analyze_cli_test
