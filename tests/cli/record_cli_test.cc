// `ampscope record` as a launcher: exit codes, argument passing, missing programs, -f, and
// signal forwarding. The commands are /bin/sh and printf, whose behaviour is the reference:
// `record` must change nothing about them. They use neither CUDA nor NVTX, so the injection
// library is never loaded by them (AMPSCOPE_INJECT_PATH names it when it was built, and any
// existing file otherwise, which is all `record` checks).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "../collector/test_subprocess.h"
#include "support/test_support.h"

namespace ampscope {
namespace {

using testing::BinaryPath;
using testing::RunProcess;

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::vector<std::pair<std::string, std::string>> Env() {
  std::string lib = BinaryPath("collector/libampscope_inject.so");
  if (!Exists(lib)) lib = BinaryPath("cli/ampscope");
  return {{"AMPSCOPE_INJECT_PATH", lib}};
}

testing::ProcessResult Record(const std::string& dir, const std::vector<std::string>& cmd,
                              const std::vector<std::string>& options = {},
                              const std::function<void(pid_t)>& on_started = nullptr) {
  std::vector<std::string> argv = {BinaryPath("cli/ampscope"), "record", "-o", dir};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  return RunProcess(argv, Env(), {}, on_started);
}

nlohmann::json Session(const std::string& dir) { return nlohmann::json::parse(testing::ReadFile(dir + "/session.json")); }

TEST(RecordCliTest, ReturnsTheCommandsExitCode) {
  std::string base = testing::MakeTempDir("record");
  auto ok = Record(base + "/a", {"/bin/sh", "-c", "exit 0"});
  EXPECT_EQ(ok.exit_code(), 0) << ok.err;
  EXPECT_EQ(Session(base + "/a")["exit_code"], 0);
  auto three = Record(base + "/b", {"/bin/sh", "-c", "exit 3"});
  EXPECT_EQ(three.exit_code(), 3);
  EXPECT_EQ(Session(base + "/b")["exit_code"], 3);
  // No CUDA, no NVTX: no trace file, and session.json says so.
  EXPECT_EQ(Session(base + "/b")["files"].size(), 0u);
  EXPECT_EQ(Session(base + "/b")["warnings"][0]["code"], "no_files");
}

TEST(RecordCliTest, KilledBySignalGives128PlusSignal) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir, {"/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(r.exit_code(), 128 + SIGKILL);
  auto s = Session(dir);
  EXPECT_EQ(s["exit_code"], 137);
  EXPECT_EQ(s["signal"], SIGKILL);
  EXPECT_EQ(s["signal_name"], "SIGKILL");
}

TEST(RecordCliTest, ArgumentsArePassedExactlyWithoutAShell) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  std::vector<std::string> cmd = {"printf", "%s|\\n", "a b", "c'd", "e\"f", "", "$HOME", "*"};
  auto r = Record(dir, cmd);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  // What printf prints for exactly these arguments: no splitting, no quote removal, no
  // expansion of $HOME or *.
  EXPECT_EQ(r.out, "a b|\nc'd|\ne\"f|\n|\n$HOME|\n*|\n");
  EXPECT_EQ(Session(dir)["command"], nlohmann::json(cmd));
}

// Issue 16: `record -- prog $'\xff'` aborted writing session.json (nlohmann type_error 316,
// exit 134, a 0-byte session.json.tmp left behind). The argument reaches the program as it
// was; session.json shows each bad byte as U+FFFD.
TEST(RecordCliTest, NonUtf8ArgumentsGiveAValidSessionJson) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir, {"printf", "%s", "a\xff\xfe"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "a\xff\xfe");  // untouched for the program itself
  nlohmann::json s = Session(dir);
  EXPECT_EQ(s["command"][2], "a\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(s["exit_code"], 0);
  EXPECT_FALSE(Exists(dir + "/session.json.tmp"));
}

// Issue 16: "--steps 1..99999999999999999999999" aborted with std::out_of_range (exit 134).
TEST(RecordCliTest, HugeStepNumberIsAUsageError) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir, {"/bin/true"}, {"--steps", "1..99999999999999999999999"});
  EXPECT_EQ(r.exit_code(), 2);
  EXPECT_EQ(r.err.rfind("ampscope record: --steps: step 99999999999999999999999 is out of range", 0), 0u) << r.err;
  EXPECT_FALSE(Exists(dir));
}

TEST(RecordCliTest, MissingProgramIsAClearErrorAndLeavesNothing) {
  std::string base = testing::MakeTempDir("record");
  auto r = Record(base + "/out", {"/nonexistent/train"});
  EXPECT_EQ(r.exit_code(), 127);
  EXPECT_NE(r.err.find("ampscope record: cannot run '/nonexistent/train'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(Exists(base + "/out"));
  auto r2 = Record(base + "/out", {"ampscope_no_such_program_anywhere"});
  EXPECT_EQ(r2.exit_code(), 127);
  EXPECT_NE(r2.err.find("in PATH"), std::string::npos);
  EXPECT_FALSE(Exists(base + "/out"));
}

TEST(RecordCliTest, ExistingDirectoryNeedsForce) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  ASSERT_EQ(Record(dir, {"/bin/sh", "-c", "exit 0"}).exit_code(), 0);
  auto again = Record(dir, {"/bin/sh", "-c", "echo ran"});
  EXPECT_EQ(again.exit_code(), 2);
  EXPECT_EQ(again.out, "");  // nothing was run
  EXPECT_NE(again.err.find("-f"), std::string::npos);
  testing::WriteFile(dir + "/stale.amptrace", "old");
  auto forced = Record(dir, {"/bin/sh", "-c", "echo ran"}, {"-f"});
  EXPECT_EQ(forced.exit_code(), 0);
  EXPECT_EQ(forced.out, "ran\n");
  EXPECT_FALSE(Exists(dir + "/stale.amptrace"));  // -f replaces the old run's traces
  EXPECT_EQ(Session(dir)["files"].size(), 0u);
}

TEST(RecordCliTest, SignalsAreForwardedToTheCommand) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir, {"/bin/sh", "-c", "trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done"},
                  {}, [](pid_t record_pid) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(500));
                    kill(record_pid, SIGTERM);
                  });
  EXPECT_EQ(r.exit_code(), 7) << r.err;
  EXPECT_EQ(r.out, "ready\ngot-term\n");
  EXPECT_EQ(Session(dir)["exit_code"], 7);
}

TEST(RecordCliTest, UsageErrors) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto none = RunProcess({BinaryPath("cli/ampscope"), "record", "-o", dir}, Env());
  EXPECT_EQ(none.exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--steps", "5..2"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--steps", "1..2", "--capture-range=nvtx", "--nvtx-capture=x"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--capture-range=cuda"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--bogus"}).exit_code(), 2);
  EXPECT_FALSE(Exists(dir));
  auto help = RunProcess({BinaryPath("cli/ampscope"), "record", "--help"});
  EXPECT_EQ(help.exit_code(), 0);
  EXPECT_NE(help.out.find("--nvtx-capture"), std::string::npos);
  // The same CLI11 layout as every other command, with where CMD goes.
  EXPECT_NE(help.out.find("Usage: ampscope record [OPTIONS] -- CMD ARGS...\n"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace ampscope
