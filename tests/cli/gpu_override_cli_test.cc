// `ampscope analyze --gpu NAME` matches the peak table exactly (issue 17: "--gpu H100-FOO" was
// silently fuzzy-matched). An unknown name is a one-line error with close matches and exit 2;
// a row id works.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "support/test_support.h"

namespace gpu_override_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::MakeTempDir;
using ampscope::testing::WriteFile;

struct RunResult {
  int exit_code;
  std::string out;  // stdout + stderr
};

RunResult RunCli(const std::string& args) {
  const std::string cmd = BinaryPath("cli/ampscope") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

const char* kTrace = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
  "args": {"correlation": 7, "External id": 3}},
 {"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120, "dur": 20,
  "args": {"correlation": 7, "device": 0, "stream": 7, "External id": 3}}
]})";

TEST(GpuOverrideCli, UnknownNameIsAnErrorWithCloseMatches) {
  const std::string dir = MakeTempDir("ampscope-gpu");
  WriteFile(dir + "/t.json", kTrace);
  RunResult r = RunCli("analyze " + dir + "/t.json -q --gpu H100-FOO -o " + dir + "/r.json");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("ampscope analyze: --gpu \"H100-FOO\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("close matches: H100-SXM5-80GB"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
  FILE* f = std::fopen((dir + "/r.json").c_str(), "r");
  EXPECT_EQ(f, nullptr) << "no report written";
  if (f) std::fclose(f);
}

TEST(GpuOverrideCli, RowIdAndDeviceNameWork) {
  const std::string dir = MakeTempDir("ampscope-gpu");
  WriteFile(dir + "/t.json", kTrace);
  EXPECT_EQ(RunCli("analyze " + dir + "/t.json -q --gpu A100-80GB-SXM4").exit_code, 0);
  EXPECT_EQ(RunCli("analyze " + dir + "/t.json -q --gpu 'NVIDIA H100 80GB HBM3'").exit_code, 0);
}

}  // namespace
}  // namespace gpu_override_cli_test
