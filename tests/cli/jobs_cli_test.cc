// Jobs and the CLI as users expect them (issue 36): a directory as the ranks of one job, `-o -`,
// --steps by ProfilerStep number, and clear errors or warnings where options used to be silent
// no-ops (--ranks outside the job or without a timeline output, -j -1, a --step-pattern that
// matches nothing). Expected values are hand counts over the traces written here, and for the
// shared 8-rank DLRM job its README (all 8 ranks, world size 8, one ProfilerStep #10 per rank).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace jobs_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::HaveShared;
using ampscope::testing::MakeTempDir;
using ampscope::testing::ReadFile;
using ampscope::testing::SharedPath;
using ampscope::testing::WriteFile;

struct RunResult {
  int exit_code;
  std::string out;
};

RunResult Shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

// `stream`: "2>&1" for both, "2>/dev/null" for stdout only, "2>&1 >/dev/null" for stderr only.
RunResult Ampscope(const std::string& args, const std::string& stream = "2>&1") {
  return Shell(BinaryPath("cli/ampscope") + " " + args + " " + stream);
}

// ProfilerStep#first..#first+count-1, each launching one 20 µs kernel; `rank` of `world` ranks.
std::string StepsTrace(int first, int count, int rank = 0, int world = 1, const std::string& step_name = "ProfilerStep#") {
  std::string ev;
  for (int i = 0; i < count; ++i) {
    const int ts = 100 + 100 * i;
    const int corr = 10 + i;
    ev += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"" + step_name + std::to_string(first + i) +
          "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": 50},\n";
    ev += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": " +
          std::to_string(ts + 10) + ", \"dur\": 5, \"args\": {\"correlation\": " + std::to_string(corr) + "}},\n";
    ev += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x64_nn\", \"pid\": 0, \"tid\": 7, \"ts\": " +
          std::to_string(ts + 20) + ", \"dur\": 20, \"args\": {\"correlation\": " + std::to_string(corr) +
          ", \"device\": 0, \"stream\": 7}},\n";
  }
  ev.resize(ev.size() - 2);
  return "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank) +
         ", \"world_size\": " + std::to_string(world) + "},\n\"traceEvents\": [\n" + ev + "\n]}";
}

class JobsCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("ampscope_jobs_cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

// ---- a directory is the ranks of one job --------------------------------------------------

TEST_F(JobsCli, DirectoryOfBuiltRanksIsReadInRankOrderAndSaid) {
  // Ranks 2 and 10 of a world of 11 under names that sort wrongly as text, beside files that are
  // no trace (notes, a rank summary, a hidden file): two ranks, rank 2 first.
  const std::string job = dir_ + "/job";
  std::filesystem::create_directories(job);
  WriteFile(job + "/node-rank10.pt.trace.json", StepsTrace(3, 4, 10, 11));
  WriteFile(job + "/node-rank2.pt.trace.json", StepsTrace(3, 4, 2, 11));
  WriteFile(job + "/notes.txt", "not a trace");
  WriteFile(job + "/old.summary.json", "{}");
  WriteFile(job + "/.hidden.json", "{}");
  RunResult r = Ampscope("analyze " + job + " -q -o " + dir_ + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("ampscope analyze: " + job +
                       ": 2 files read as the ranks of one job (node-rank2.pt.trace.json .. node-rank10.pt.trace.json)\n"),
            std::string::npos)
      << r.out;
  const nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
  ASSERT_EQ(rep["inputs"].size(), 2u) << rep["inputs"].dump();
  EXPECT_NE(rep["inputs"][0].dump().find("node-rank2.pt.trace.json"), std::string::npos) << rep["inputs"].dump();
  EXPECT_EQ(rep["job"]["world_size"], 11);
  EXPECT_EQ(rep["job"]["missing_ranks"], 9);
}

TEST_F(JobsCli, DirectoryWithoutTracesIsAnError) {
  const std::string empty = dir_ + "/empty";
  std::filesystem::create_directories(empty);
  WriteFile(empty + "/notes.txt", "x");
  RunResult r = Ampscope("analyze " + empty + " -q -o " + dir_ + "/r.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "ampscope analyze: " + empty +
                       ": a directory with no *.pt.trace.json(.gz), *.json(.gz), *.sqlite or *.amptrace in it\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/r.json"));
}

TEST_F(JobsCli, MergeTakesADirectoryOfSummaries) {
  const std::string sums = dir_ + "/sums";
  std::filesystem::create_directories(sums);
  for (int r : {0, 1}) {
    const std::string t = dir_ + "/t" + std::to_string(r) + ".json";
    WriteFile(t, StepsTrace(0, 3, r, 2));
    ASSERT_EQ(Ampscope("analyze " + t + " -q --summary-out " + sums + "/rank" + std::to_string(r) + ".summary.json").exit_code, 0);
  }
  RunResult m = Ampscope("merge " + sums + " -q -o " + dir_ + "/m.json");
  ASSERT_EQ(m.exit_code, 0) << m.out;
  EXPECT_NE(m.out.find(": 2 files read as the ranks of one job (rank0.summary.json .. rank1.summary.json)"),
            std::string::npos)
      << m.out;
  const nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/m.json"));
  EXPECT_EQ(rep["job"]["ranks"], 2);
  EXPECT_EQ(rep["job"]["missing_ranks"], 0);
}

TEST_F(JobsCli, SharedEightRankDirectoryIsTheJob) {
  const std::string job = SharedPath("traces/kineto/param_dlrm_8ranks");
  AMPSCOPE_REQUIRE_INPUT(HaveShared() && std::filesystem::is_directory(job), "shared traces: " + job);
  RunResult r = Ampscope("analyze " + job + " -q -o " + dir_ + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(": 8 files read as the ranks of one job"), std::string::npos) << r.out;
  const nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
  // The shared README: all 8 ranks of one DLRM job, distributedInfo world_size 8.
  EXPECT_EQ(rep["job"]["ranks"], 8);
  EXPECT_EQ(rep["job"]["world_size"], 8);
  EXPECT_EQ(rep["job"]["missing_ranks"], 0);
  // --ranks 9 on this 8-rank job: an error naming the ranks it has, nothing written.
  RunResult nine = Ampscope("analyze " + job + " -q --ranks 9 --chrome-trace " + dir_ + "/c.json", "2>&1 >/dev/null");
  EXPECT_EQ(nine.exit_code, 2);
  EXPECT_NE(nine.out.find("ampscope analyze: --ranks 9: the job has no rank 9 (its ranks: 0,1,2,3,4,5,6,7)\n"),
            std::string::npos)
      << nine.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c.json"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c.rank7.json"));
}

TEST_F(JobsCli, ThreeRanksOfTheSharedEightRankJobAreAPartialJob) {
  const std::string job = SharedPath("traces/kineto/param_dlrm_8ranks");
  AMPSCOPE_REQUIRE_INPUT(HaveShared() && std::filesystem::is_directory(job), "shared traces: " + job);
  std::string inputs;
  for (const auto& e : std::filesystem::directory_iterator(job)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("worker0_", 0) == 0 || name.rfind("worker3_", 0) == 0 || name.rfind("worker5_", 0) == 0)
      inputs += " " + e.path().string();
  }
  RunResult r = Ampscope("analyze" + inputs + " -q -o " + dir_ + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: 3 of the 8 ranks of the job were given (world size 8; missing ranks 1-2, 4, 6-7)"),
            std::string::npos)
      << r.out;
  const nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
  EXPECT_EQ(rep["job"]["missing_ranks"], 5);
  EXPECT_EQ(rep["job"]["world_size"], 8);
}

// ---- options that used to be silent no-ops -------------------------------------------------

TEST_F(JobsCli, RanksOutsideTheJobOrWithoutATimelineOutputAreErrors) {
  for (int r : {0, 1}) WriteFile(dir_ + "/t" + std::to_string(r) + ".json", StepsTrace(0, 3, r, 2));
  const std::string two = dir_ + "/t0.json " + dir_ + "/t1.json";
  RunResult none = Ampscope("analyze " + two + " -q --ranks 1 -o " + dir_ + "/r.json");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "ampscope analyze: --ranks 1 selects the ranks drawn by --chrome-trace, --perfetto, --sqlite or "
                      "--csv; give one of them (the JSON, HTML and Markdown reports cover every rank)\n");
  RunResult three = Ampscope("analyze " + two + " -q --ranks 1,3,4 --sqlite " + dir_ + "/t.sqlite");
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_EQ(three.out, "ampscope analyze: --ranks 1,3,4: the job has no rank 3,4 (its ranks: 0,1)\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/t.sqlite"));
  EXPECT_EQ(Ampscope("analyze " + two + " -q --ranks 1 --sqlite " + dir_ + "/t.sqlite").exit_code, 0);
}

TEST_F(JobsCli, NegativeJobsIsOneShortLine) {
  WriteFile(dir_ + "/t.json", StepsTrace(0, 3));
  for (const char* cmd : {"analyze", "merge"}) {
    RunResult r = Ampscope(std::string(cmd) + " " + dir_ + "/t.json -q -j -1");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "ampscope " + std::string(cmd) + ": -j/--jobs: -1 is out of range (0..4096)\n");
  }
}

TEST_F(JobsCli, DashOutputWritesTheJsonToStdout) {
  WriteFile(dir_ + "/t.json", StepsTrace(0, 3));
  RunResult out = Ampscope("analyze " + dir_ + "/t.json -o -", "2>/dev/null");
  ASSERT_EQ(out.exit_code, 0);
  ASSERT_EQ(Ampscope("analyze " + dir_ + "/t.json -q -o " + dir_ + "/r.json").exit_code, 0);
  // Only the report on stdout (no terminal summary), and the same report as -o FILE.
  const nlohmann::json piped = nlohmann::json::parse(out.out);
  const nlohmann::json file = nlohmann::json::parse(ReadFile(dir_ + "/r.json"));
  EXPECT_EQ(piped["steps"], file["steps"]);
  EXPECT_EQ(piped["findings"], file["findings"]);
  EXPECT_EQ(piped["steps"]["count"], 3);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/-"));
  // merge too.
  ASSERT_EQ(Ampscope("analyze " + dir_ + "/t.json -q --summary-out " + dir_ + "/t.summary.json").exit_code, 0);
  RunResult merged = Ampscope("merge " + dir_ + "/t.summary.json -o -", "2>/dev/null");
  ASSERT_EQ(merged.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(merged.out)["steps"]["count"], 3);
}

// ---- --steps by ProfilerStep number --------------------------------------------------------

TEST_F(JobsCli, StepsAreProfilerStepNumbers) {
  // ProfilerStep#5..#10: six steps.
  const std::string t = dir_ + "/t.json";
  WriteFile(t, StepsTrace(5, 6));
  RunResult all = Ampscope("analyze " + t + " -q --steps 5..10 -o " + dir_ + "/a.json");
  ASSERT_EQ(all.exit_code, 0) << all.out;
  EXPECT_EQ(all.out, "");
  nlohmann::json rep = nlohmann::json::parse(ReadFile(dir_ + "/a.json"));
  EXPECT_EQ(rep["steps"]["count"], 6);
  // #7..#8: two steps, the numbers users see.
  ASSERT_EQ(Ampscope("analyze " + t + " -q --steps 7..8 -o " + dir_ + "/b.json").exit_code, 0);
  rep = nlohmann::json::parse(ReadFile(dir_ + "/b.json"));
  EXPECT_EQ(rep["steps"]["count"], 2);
  EXPECT_EQ(rep["steps"]["per_step"][0]["number"], 7);
  // 3..6 asks for #3 and #4 too: cut, with a warning saying what is left.
  RunResult cut = Ampscope("analyze " + t + " -q --steps 3..6");
  EXPECT_EQ(cut.exit_code, 0);
  EXPECT_EQ(cut.out, "ampscope analyze: warning: --steps 3..6 cut to 5..6 (2 steps): " + t + " has 6 steps (5..10)\n");
  // 0..4: none of its steps.
  RunResult none = Ampscope("analyze " + t + " -q --steps 0..4 -o " + dir_ + "/c.json");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.out, "ampscope analyze: --steps 0..4 selects no step: " + t + " has 6 steps (5..10)\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/c.json"));
}

TEST_F(JobsCli, AStepPatternThatMatchesNothingIsSaid) {
  // Steps named "iter_N" by the user's NVTX ranges: a pattern for them works silently.
  const std::string nvtx = dir_ + "/nvtx.json";
  WriteFile(nvtx, StepsTrace(0, 4, 0, 1, "iter_"));
  RunResult ok = Ampscope("analyze " + nvtx + " -q --step-pattern '^iter_[0-9]+$' -o " + dir_ + "/ok.json");
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "");
  EXPECT_EQ(nlohmann::json::parse(ReadFile(dir_ + "/ok.json"))["steps"]["source"], "nvtx");
  // A pattern that matches none of them: said, not a silent fallback.
  RunResult miss = Ampscope("analyze " + nvtx + " -q --step-pattern '^train_step$'");
  EXPECT_EQ(miss.exit_code, 0);
  EXPECT_EQ(miss.out.rfind("ampscope analyze: warning: --step-pattern '^train_step$' matches no range in " + nvtx + ": ", 0),
            0u)
      << miss.out;
  // A trace with ProfilerStep#N does not use the pattern at all: said too.
  const std::string prof = dir_ + "/prof.json";
  WriteFile(prof, StepsTrace(0, 4));
  RunResult unused = Ampscope("analyze " + prof + " -q --step-pattern '^iter_'");
  EXPECT_EQ(unused.out, "ampscope analyze: warning: --step-pattern '^iter_' is not used for " + prof +
                            ": its steps are its ProfilerStep#N ranges\n");
}

}  // namespace

namespace {

// Progress after the read (issue 36: seconds passed with no sign of life on a big trace): on a
// terminal (util-linux `script` gives the command one), the analysis and the writing of the
// outputs show their own lines, each cleared when it ends; in a pipe nothing is drawn. The delay
// before a bar appears (1 s) is set to 0 so that a small trace shows them.
TEST_F(JobsCli, AnalysisAndOutputsShowProgressOnATerminal) {
  AMPSCOPE_REQUIRE_INPUT(Shell("command -v script >/dev/null 2>&1").exit_code == 0,
                         "script (util-linux) is not installed");
  const std::string t = dir_ + "/t.json";
  WriteFile(t, StepsTrace(0, 5));
  const std::string cmd = BinaryPath("cli/ampscope") + " analyze " + t + " -q -o " + dir_ + "/r.json --html " + dir_ + "/r.html";
  RunResult tty = Shell("AMPSCOPE_PROGRESS_DELAY_MS=0 script -qec '" + cmd + "' /dev/null 2>&1");
  EXPECT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("analysing t.json ["), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("writing the report and outputs ["), std::string::npos) << tty.out;
  EXPECT_LT(tty.out.find("analysing t.json"), tty.out.find("writing the report and outputs"));
  // Each line is cleared: the output ends with the erase-line sequence, not a bar.
  EXPECT_EQ(tty.out.substr(tty.out.size() - 3), "\x1b[K") << tty.out;
  RunResult pipe = Shell("AMPSCOPE_PROGRESS_DELAY_MS=0 " + cmd + " 2>&1");
  EXPECT_EQ(pipe.exit_code, 0);
  EXPECT_EQ(pipe.out, "");
}

}  // namespace
}  // namespace jobs_cli_test
