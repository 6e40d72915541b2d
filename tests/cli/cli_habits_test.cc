// One CLI style across subcommands (issue 17): `ampscope help CMD`, "did you mean" for commands
// and options, one-line errors prefixed "ampscope <cmd>: ", exit 2 for every usage error, range
// checks on numeric options, and warnings/errors when --steps runs past the detected steps.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "support/test_support.h"

namespace cli_habits_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::MakeTempDir;
using ampscope::testing::WriteFile;

struct RunResult {
  int exit_code;
  std::string out;
};

// `stream`: "2>&1" for both, "2>/dev/null" for stdout only, "2>&1 >/dev/null" for stderr only.
RunResult Shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

RunResult Ampscope(const std::string& args, const std::string& stream = "2>&1") {
  return Shell(BinaryPath("cli/ampscope") + " " + args + " " + stream);
}

// One line on stderr, exit 2, the command's prefix.
void ExpectUsageError(const RunResult& r, const std::string& expected_line) {
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(r.out, expected_line + "\n");
}

// Six ProfilerStep ranges (steps 0..5 by position), each launching one kernel, so that the step
// detector keeps all six (it drops trailing steps without GPU work).
std::string SixStepTrace() {
  std::string events;
  for (int i = 0; i < 6; ++i) {
    const int ts = 100 + 100 * i;
    const int corr = 10 + i;
    if (!events.empty()) events += ",\n";
    events += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" + std::to_string(i) +
              "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": 50},\n";
    events += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
              "\"ts\": " + std::to_string(ts + 10) + ", \"dur\": 5, \"args\": {\"correlation\": " +
              std::to_string(corr) + "}},\n";
    events += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x64_nn\", \"pid\": 0, \"tid\": 7, "
              "\"ts\": " + std::to_string(ts + 20) + ", \"dur\": 20, \"args\": {\"correlation\": " +
              std::to_string(corr) + ", \"device\": 0, \"stream\": 7}}";
  }
  return "{\"traceEvents\": [\n" + events + "\n]}";
}

class CliHabits : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("ampscope_cli_habits");
    trace_ = dir_ + "/six.json";
    WriteFile(trace_, SixStepTrace());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, trace_;
};

TEST_F(CliHabits, HelpCommandShowsThatCommandsHelp) {
  for (const char* cmd : {"analyze", "kernels", "diff", "gate", "record"}) {
    RunResult help = Ampscope(std::string("help ") + cmd, "2>/dev/null");
    RunResult direct = Ampscope(std::string(cmd) + " --help", "2>/dev/null");
    EXPECT_EQ(help.exit_code, 0) << cmd;
    EXPECT_EQ(help.out, direct.out) << cmd;
    EXPECT_NE(help.out.find(std::string("Usage: ampscope ") + cmd + " [OPTIONS]"), std::string::npos) << help.out;
  }
}

TEST_F(CliHabits, EveryHelpHasTheSameLayout) {
  // CLI11's layout: description, "Usage:", an "Options:" section, the exit codes as footer.
  for (const char* cmd : {"analyze", "kernels", "diff", "gate", "record"}) {
    RunResult r = Ampscope(std::string(cmd) + " --help", "2>/dev/null");
    EXPECT_NE(r.out.find("\nOptions:\n  -h,--help "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nExit codes: "), std::string::npos) << r.out;
  }
}

TEST_F(CliHabits, HelpFitsTheTerminal) {
  for (const char* cmd : {"analyze", "kernels", "diff", "gate", "record"}) {
    RunResult r = Shell("COLUMNS=80 " + BinaryPath("cli/ampscope") + " " + cmd + " --help | cat");
    size_t start = 0;
    while (start < r.out.size()) {
      size_t end = r.out.find('\n', start);
      if (end == std::string::npos) end = r.out.size();
      EXPECT_LE(end - start, 80u) << cmd << ": " << r.out.substr(start, end - start);
      start = end + 1;
    }
  }
}

TEST_F(CliHabits, GateHelpMarksRequiredOptions) {
  RunResult r = Ampscope("gate --help", "2>/dev/null");
  const size_t group = r.out.find("Required (except with --print-config):\n");
  ASSERT_NE(group, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--baseline", group), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--current", group), std::string::npos) << r.out;
  RunResult diff = Ampscope("diff --help", "2>/dev/null");
  EXPECT_NE(diff.out.find("A TEXT (required)"), std::string::npos) << diff.out;
}

TEST_F(CliHabits, UnknownCommandSuggestsTheClosest) {
  ExpectUsageError(Ampscope("analyse x"), "ampscope: unknown command 'analyse' (did you mean 'analyze'?) (try 'ampscope --help')");
  ExpectUsageError(Ampscope("help kernel"),
                   "ampscope help: unknown command 'kernel' (did you mean 'kernels'?) (try 'ampscope --help')");
  ExpectUsageError(Ampscope("frobnicate"), "ampscope: unknown command 'frobnicate' (try 'ampscope --help')");
}

TEST_F(CliHabits, UnknownOptionSuggestsTheClosest) {
  ExpectUsageError(Ampscope("analyze " + trace_ + " --htm out.html"),
                   "ampscope analyze: unknown option '--htm' (did you mean '--html'?) (try 'ampscope analyze --help')");
  // Named first even when the missing positional would also be an error.
  ExpectUsageError(Ampscope("analyze --htm"),
                   "ampscope analyze: unknown option '--htm' (did you mean '--html'?) (try 'ampscope analyze --help')");
  // Two neighbours swapped is one edit.
  ExpectUsageError(Ampscope("kernels " + trace_ + " --tpo 3"),
                   "ampscope kernels: unknown option '--tpo' (did you mean '--top'?) (try 'ampscope kernels --help')");
  ExpectUsageError(Ampscope("gate --baseline=a --curent=b"),
                   "ampscope gate: unknown option '--curent' (did you mean '--current'?) (try 'ampscope gate --help')");
  // record: before "--", and without "--" (CMD starts at the first word that is not an option).
  ExpectUsageError(Ampscope("record --forse -- /bin/true"),
                   "ampscope record: unknown option '--forse' (did you mean '--force'?) (try 'ampscope record --help')");
  ExpectUsageError(Ampscope("record --tensor-metric /bin/true"),
                   "ampscope record: unknown option '--tensor-metric' (did you mean '--tensor-metrics'?) (try 'ampscope "
                   "record --help')");
  // A one-letter option is one edit from every other: no guess.
  ExpectUsageError(Ampscope("analyze " + trace_ + " -z"), "ampscope analyze: unknown option '-z' (try 'ampscope analyze --help')");
}

TEST_F(CliHabits, MissingArgumentsArePrefixedOneLiners) {
  ExpectUsageError(Ampscope("analyze"), "ampscope analyze: traces is required (try 'ampscope analyze --help')");
  ExpectUsageError(Ampscope("kernels"), "ampscope kernels: trace is required (try 'ampscope kernels --help')");
  ExpectUsageError(Ampscope("diff a.json"), "ampscope diff: B is required (try 'ampscope diff --help')");
}

TEST_F(CliHabits, NumericOptionsAreRangeChecked) {
  // Ranges from base/numeric_option.h: --top of diff is 0..INT_MAX (2147483647), of kernels 1..INT64_MAX.
  ExpectUsageError(Ampscope("diff --top -1 a.json b.json"), "ampscope diff: --top: -1 is out of range (0..2147483647)");
  ExpectUsageError(Ampscope("diff --top 99999999999999999999 a.json b.json"),
                   "ampscope diff: --top: 99999999999999999999 is out of range (0..2147483647)");
  ExpectUsageError(Ampscope("diff --top ten a.json b.json"), "ampscope diff: --top: expected an integer, got 'ten'");
  ExpectUsageError(Ampscope("kernels --top 0 " + trace_), "ampscope kernels: --top: 0 is out of range (1..9223372036854775807)");
}

TEST_F(CliHabits, BadStepPatternIsNamed) {
  RunResult r = Ampscope("analyze " + trace_ + " -q --step-pattern '('");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.rfind("ampscope analyze: --step-pattern '(' is not a valid ECMAScript regex: ", 0), 0u) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out;
}

TEST_F(CliHabits, StepRangePastTheLastStepIsCutWithAWarning) {
  const std::string report = dir_ + "/r.json";
  RunResult r = Ampscope("analyze " + trace_ + " -q -o " + report + " --steps 5..9");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "ampscope analyze: warning: --steps 5..9 cut to 5..5 (1 step): " + trace_ + " has 6 steps (0..5)\n");
  EXPECT_TRUE(std::filesystem::exists(report));
  // Inside the range, or open-ended: no warning.
  EXPECT_EQ(Ampscope("analyze " + trace_ + " -q --steps 1..4").out, "");
  EXPECT_EQ(Ampscope("analyze " + trace_ + " -q --steps 2..").out, "");
}

TEST_F(CliHabits, EmptyStepRangeIsAnErrorNamingTheStepCount) {
  const std::string report = dir_ + "/r.json";
  ExpectUsageError(Ampscope("analyze " + trace_ + " -q -o " + report + " --steps 6..9"),
                   "ampscope analyze: --steps 6..9 selects no step: " + trace_ + " has 6 steps (0..5)");
  EXPECT_FALSE(std::filesystem::exists(report));
  const std::string no_steps = dir_ + "/none.json";
  WriteFile(no_steps, R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]})");
  ExpectUsageError(Ampscope("analyze " + no_steps + " -q --steps 0..1"),
                   "ampscope analyze: --steps 0..1: " + no_steps +
                       " has no detected steps (no ProfilerStep#N and no range matching --step-pattern)");
  // ".." selects every step, however many: nothing to warn about.
  RunResult all = Ampscope("analyze " + no_steps + " -q --steps ..");
  EXPECT_EQ(all.exit_code, 0) << all.out;
  EXPECT_EQ(all.out, "");
}

}  // namespace
}  // namespace cli_habits_test
