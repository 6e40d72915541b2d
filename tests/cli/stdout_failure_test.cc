// A command whose output cannot be written has failed: with stdout on /dev/full (every write
// fails with ENOSPC, see full(4)) analyze, kernels, gate and diff exit 2 with one line on
// stderr, instead of 0 with nothing written. The same commands with stdout on /dev/null are the
// control: they succeed, so the exit 2 comes from the failed write alone.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace ampscope {
namespace stdout_failure_test {
namespace {

using testing::BinaryPath;
using testing::SourcePath;

struct Result {
  int exit_code = -1;
  std::string err;
};

// Runs argv with stdout on `stdout_path`, stderr captured.
Result RunWithStdout(const std::vector<std::string>& argv, const char* stdout_path) {
  int err_pipe[2];
  if (pipe(err_pipe) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(stdout_path, O_WRONLY);
    if (fd < 0) _exit(120);
    dup2(fd, 1);
    dup2(err_pipe[1], 2);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(121);
  }
  close(err_pipe[1]);
  Result r;
  char buf[4096];
  ssize_t n;
  while ((n = read(err_pipe[0], buf, sizeof(buf))) > 0) r.err.append(buf, static_cast<size_t>(n));
  close(err_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class StdoutFailureTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::MakeTempDir("stdout"));
    const std::string ampscope = BinaryPath("cli/ampscope");
    for (const char* name : {"healthy_amp", "sync_bound"}) {
      const std::string trace = SourcePath(std::string("sample_traces/scenario_") + name + ".json.gz");
      Result r = RunWithStdout({ampscope, "analyze", trace, "-q", "-o", *dir_ + "/" + name + ".json"}, "/dev/null");
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  static std::vector<std::vector<std::string>> Commands() {
    const std::string ampscope = BinaryPath("cli/ampscope");
    const std::string a = *dir_ + "/healthy_amp.json", b = *dir_ + "/sync_bound.json";
    const std::string trace = SourcePath("sample_traces/scenario_sync_bound.json.gz");
    return {{ampscope, "analyze", trace},
            {ampscope, "kernels", trace},
            {ampscope, "kernels", trace, "--json"},
            {ampscope, "gate", "--baseline", a, "--current", a},
            {ampscope, "gate", "--print-config"},
            {ampscope, "diff", a, b},
            {ampscope, "diff", a, b, "--json"}};
  }
  static std::string* dir_;
};
std::string* StdoutFailureTest::dir_ = nullptr;

TEST_F(StdoutFailureTest, EveryCommandSucceedsWithAWritableStdout) {
  for (const auto& argv : Commands()) {
    Result r = RunWithStdout(argv, "/dev/null");
    EXPECT_EQ(r.exit_code, 0) << argv[1] << " " << argv[2] << ": " << r.err;
  }
}

TEST_F(StdoutFailureTest, AFullStdoutIsExit2WithOneLine) {
  ASSERT_EQ(access("/dev/full", W_OK), 0) << "/dev/full is needed for this test (Linux full(4))";
  for (const auto& argv : Commands()) {
    Result r = RunWithStdout(argv, "/dev/full");
    EXPECT_EQ(r.exit_code, 2) << argv[1] << " " << argv[2] << ": " << r.err;
    // The reason is known only when the last flush itself failed (stdio keeps no errno).
    EXPECT_EQ(r.err.rfind("ampscope " + argv[1] + ": cannot write to standard output: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace stdout_failure_test
}  // namespace ampscope
