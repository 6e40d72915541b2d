// `ampscope record` as a launcher: exit codes, argument passing, missing programs, -f, and
// signal forwarding. The commands are /bin/sh and printf, whose behaviour is the reference:
// `record` must change nothing about them. They use neither CUDA nor NVTX, so the injection
// library is never loaded by them (AMPSCOPE_INJECT_PATH names it when it was built, and any
// existing file otherwise, which is all `record` checks).
#include <gtest/gtest.h>

#include <signal.h>
#include <limits.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "../collector/test_subprocess.h"
#include "support/test_support.h"

namespace ampscope {
namespace record_cli_test {
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

// Waits (up to 10 s) until process `pid` catches `sig` (its SigCgt mask in /proc): record has
// installed its forwarding handlers, so the signal a test sends next is forwarded, however slow
// the build (sanitizers) made the start.
void WaitUntilCaught(pid_t pid, int sig) {
  for (int i = 0; i < 1000; ++i) {
    const std::string status = testing::ReadFile("/proc/" + std::to_string(pid) + "/status");
    const size_t at = status.find("SigCgt:");
    if (at != std::string::npos) {
      const unsigned long long mask = std::strtoull(status.c_str() + at + 7, nullptr, 16);
      if ((mask >> (sig - 1)) & 1) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The first child of `pid` (bash's `record`), or -1 after 10 s.
pid_t ChildOf(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    const std::string children =
        testing::ReadFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    if (!children.empty()) return static_cast<pid_t>(std::atoi(children.c_str()));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

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
  // analyze on that directory: the recording's reason, once, exit 2; session.json is not read as a
  // rank's Kineto trace (it was: "expected a traceEvents array").
  auto analyzed = RunProcess({BinaryPath("cli/ampscope"), "analyze", base + "/b", "-q", "-o", base + "/r.json"});
  EXPECT_EQ(analyzed.exit_code(), 2);
  EXPECT_EQ(analyzed.err, "ampscope analyze: " + base + "/b: a recording with no trace file: " +
                              Session(base + "/b")["warnings"][0]["message"].get<std::string>() + "\n");
  EXPECT_FALSE(Exists(base + "/r.json"));
  // With trace files beside it, only they are the ranks: a rank's file that is no trace fails by
  // its own name, never by session.json's.
  testing::WriteFile(base + "/b/rank0.amptrace", "not an amptrace");
  auto one = RunProcess({BinaryPath("cli/ampscope"), "analyze", base + "/b", "-q", "-o", base + "/r.json"});
  EXPECT_EQ(one.exit_code(), 2);
  EXPECT_NE(one.err.find(": 1 file read as the ranks of one job (rank0.amptrace .. rank0.amptrace)"), std::string::npos) << one.err;
  EXPECT_NE(one.err.find("rank0.amptrace: "), std::string::npos) << one.err;
  EXPECT_EQ(one.err.find("session.json:"), std::string::npos) << one.err;
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

// Issue 38: a wrapper that forwards SIGINT must, once the program has died of it, die by SIGINT
// itself: otherwise `for ...; do ampscope record -- sleep 3; done` goes on after Ctrl-C. Here
// bash runs that loop in a process group of its own and the whole group gets SIGINT, as a
// terminal's Ctrl-C does. bash stops the loop only when record died by SIGINT.
TEST(RecordCliTest, CtrlCStopsAShellLoopAroundRecord) {
  AMPSCOPE_REQUIRE_INPUT(Exists("/bin/bash") && Exists("/usr/bin/setsid"), "bash and setsid (util-linux)");
  const std::string base = testing::MakeTempDir("record");
  const std::string script = "for i in 1 2; do \"$AMPSCOPE\" record -o '" + base +
                             "'/run$i -- sleep 3; echo \"after $i: $?\"; done; echo loop-ended";
  std::vector<std::pair<std::string, std::string>> env = Env();
  env.emplace_back("AMPSCOPE", BinaryPath("cli/ampscope"));
  const auto start = std::chrono::steady_clock::now();
  auto r = RunProcess({"/usr/bin/setsid", "/bin/bash", "-c", script}, env, {}, [&](pid_t pid) {
    const pid_t record = ChildOf(pid);
    if (record > 0) WaitUntilCaught(record, SIGINT);
    if (record > 0) ChildOf(record);  // sleep is running under record
    kill(-pid, SIGINT);  // setsid made bash the leader of its own group
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.term_signal(), SIGINT) << "exit " << r.exit_code() << "\n" << r.out << r.err;
  EXPECT_EQ(r.out.find("after 1"), std::string::npos) << r.out;  // the loop stopped at Ctrl-C
  EXPECT_FALSE(Exists(base + "/run2"));
  EXPECT_LT(seconds, 3.0);
  // record still wrote what it knows about the run it was in.
  EXPECT_EQ(Session(base + "/run1")["signal"], SIGINT);
  EXPECT_EQ(Session(base + "/run1")["exit_code"], 130);
}

TEST(RecordCliTest, SigintToRecordAloneIsForwardedThenRaised) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir, {"/bin/sh", "-c", "echo ready; exec sleep 3"}, {}, [&](pid_t record_pid) {
    WaitUntilCaught(record_pid, SIGINT);
    ChildOf(record_pid);
    kill(record_pid, SIGINT);
  });
  EXPECT_EQ(r.term_signal(), SIGINT) << "exit " << r.exit_code() << ": " << r.err;
  EXPECT_EQ(Session(dir)["exit_code"], 130);  // written before record died
}

// Slurm's --signal=USR1@60 (and SIGUSR2, SIGALRM) are for the program: forwarded, and record
// lives on (before: SIGUSR1's default action killed record and orphaned the program).
TEST(RecordCliTest, Usr1Usr2AndAlrmAreForwardedAndNotFatal) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto r = Record(dir,
                  {"/bin/sh", "-c",
                   "trap 'echo usr1' USR1; trap 'echo usr2' USR2; trap 'echo alrm; exit 5' ALRM; echo ready; "
                   "while :; do sleep 0.05; done"},
                  {}, [](pid_t record_pid) {
                    WaitUntilCaught(record_pid, SIGALRM);
                    const pid_t program = ChildOf(record_pid);
                    // The program (exec'd: its name is sh now) has set its traps.
                    for (int i = 0; i < 1000 && testing::ReadFile("/proc/" + std::to_string(program) + "/comm") != "sh\n"; ++i)
                      std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    if (program > 0) WaitUntilCaught(program, SIGALRM);
                    for (int sig : {SIGUSR1, SIGUSR2, SIGALRM}) {
                      kill(record_pid, sig);
                      std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    }
                  });
  EXPECT_EQ(r.exit_code(), 5) << r.err;
  EXPECT_EQ(r.out, "ready\nusr1\nusr2\nalrm\n");
  EXPECT_EQ(Session(dir)["exit_code"], 5);
}

// If record itself is killed (SIGKILL: no chance to forward), the program gets SIGTERM instead
// of running on as an orphan.
TEST(RecordCliTest, KillingRecordDoesNotOrphanTheProgram) {
  const std::string base = testing::MakeTempDir("record");
  const std::string pid_file = base + "/child.pid";
  pid_t child = -1;
  const auto start = std::chrono::steady_clock::now();
  auto r = Record(base + "/out", {"/bin/sh", "-c", "echo $$ > '" + pid_file + "'; exec sleep 30"}, {},
                  [&](pid_t record_pid) {
                    for (int i = 0; i < 1000 && !Exists(pid_file); ++i)
                      std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // sleep has been exec'd
                    if (Exists(pid_file)) child = static_cast<pid_t>(std::atoi(testing::ReadFile(pid_file).c_str()));
                    kill(record_pid, SIGKILL);
                  });
  EXPECT_EQ(r.term_signal(), SIGKILL);
  ASSERT_GT(child, 0);
  // The program is gone (or a zombie nobody reaps) within a moment, not after its 30 s.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    const std::string stat = testing::ReadFile("/proc/" + std::to_string(child) + "/stat");
    gone = stat.empty() || stat.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the program outlived record";
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

// Issue 38: session.json is written on every path that can write it. A program that exists but
// cannot be executed (a script whose interpreter is missing: execve fails after record checked
// the file) in a reused directory (-f) gets a session.json that says so; a directory record
// made itself is removed instead (no partial output).
TEST(RecordCliTest, AProgramThatCannotRunInAReusedDirectoryStillGetsSessionJson) {
  const std::string base = testing::MakeTempDir("record");
  const std::string script = base + "/train.sh";
  testing::WriteFile(script, "#!/nonexistent/interpreter\n");
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  ASSERT_EQ(mkdir((base + "/reused").c_str(), 0755), 0);
  auto reused = Record(base + "/reused", {script}, {"-f"});
  EXPECT_EQ(reused.exit_code(), 127) << reused.err;
  nlohmann::json s = Session(base + "/reused");
  EXPECT_EQ(s["exit_code"], 127);
  EXPECT_NE(s["error"].get<std::string>().find("cannot run '" + script + "'"), std::string::npos) << s.dump();
  auto fresh = Record(base + "/fresh", {script});
  EXPECT_EQ(fresh.exit_code(), 127);
  EXPECT_FALSE(Exists(base + "/fresh"));
}

// Issue 38: the user's own CUDA_INJECTION64_PATH was replaced without a word.
TEST(RecordCliTest, AUsersOwnInjectionPathIsReplacedWithAWarning) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  std::vector<std::string> argv = {BinaryPath("cli/ampscope"), "record", "-o", dir, "--", "printenv",
                                   "CUDA_INJECTION64_PATH"};
  std::vector<std::pair<std::string, std::string>> env = Env();
  env.emplace_back("CUDA_INJECTION64_PATH", "/opt/other-profiler/libinject.so");
  auto r = RunProcess(argv, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  char real[PATH_MAX];
  ASSERT_NE(realpath(Env()[0].second.c_str(), real), nullptr);
  EXPECT_EQ(r.out, std::string(real) + "\n");  // the collector is what the program gets
  EXPECT_NE(r.err.find("ampscope record: warning: CUDA_INJECTION64_PATH was set to /opt/other-profiler/libinject.so; "
                       "this run uses ampscope's collector instead"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Session(dir)["replaced_environment"],
            nlohmann::json::array({"CUDA_INJECTION64_PATH=/opt/other-profiler/libinject.so"}));
  // Ours already (a second record inside the first, or a wrapper script): no warning.
  std::vector<std::pair<std::string, std::string>> same = Env();
  same.emplace_back("CUDA_INJECTION64_PATH", real);
  auto quiet = RunProcess({BinaryPath("cli/ampscope"), "record", "-o", dir + "2", "--", "/bin/true"}, same);
  EXPECT_EQ(quiet.err.find("warning: CUDA_INJECTION64_PATH"), std::string::npos) << quiet.err;
}

TEST(RecordCliTest, UsageErrors) {
  std::string dir = testing::MakeTempDir("record") + "/out";
  auto none = RunProcess({BinaryPath("cli/ampscope"), "record", "-o", dir}, Env());
  EXPECT_EQ(none.exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--steps", "5..2"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--steps", "1..2", "--capture-range=nvtx", "--nvtx-capture=x"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--capture-range=cuda"}).exit_code(), 2);
  EXPECT_EQ(Record(dir, {"/bin/true"}, {"--bogus"}).exit_code(), 2);
  auto empty = RunProcess({BinaryPath("cli/ampscope"), "record", "-o", "", "--", "/bin/true"}, Env());
  EXPECT_EQ(empty.exit_code(), 2);  // issue 38: an empty path
  EXPECT_EQ(empty.err, "ampscope record: -o: an empty path (name a file, or leave the option out)\n");
  EXPECT_FALSE(Exists(dir));
  auto help = RunProcess({BinaryPath("cli/ampscope"), "record", "--help"});
  EXPECT_EQ(help.exit_code(), 0);
  EXPECT_NE(help.out.find("--nvtx-capture"), std::string::npos);
  // The same CLI11 layout as every other command, with where CMD goes.
  EXPECT_NE(help.out.find("Usage: ampscope record [OPTIONS] -- CMD ARGS...\n"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace record_cli_test
}  // namespace ampscope
