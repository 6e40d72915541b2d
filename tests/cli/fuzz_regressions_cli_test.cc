// Every committed fuzz regression input (fuzz/regressions/<target>/) through the real
// `ampscope` binary, as a user would feed it: each command must end with one of its
// documented exit codes (0 accepted, 1 a gate regression, 2 bad input), never a signal.
// fuzz_regressions.<target> (fuzz/CMakeLists.txt) replays the same files in process through
// the fuzzers' own pipelines.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "../collector/test_subprocess.h"
#include "support/test_support.h"

namespace ampscope {
namespace fuzz_regressions_cli_test {
namespace {

using testing::BinaryPath;
using testing::RunProcess;
using testing::SourcePath;

std::vector<std::string> Inputs(const std::string& target) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(SourcePath("fuzz/regressions/" + target), ec))
    if (e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Exit code of a run that must not die of a signal.
int RunCommand(const std::vector<std::string>& argv) {
  auto r = RunProcess(argv);
  EXPECT_EQ(r.term_signal(), 0) << argv[1] << " " << argv[2] << " died of signal " << r.term_signal() << "\n"
                                << r.err.substr(0, 2000);
  return r.exit_code();
}

void ExpectOneOf(int code, std::initializer_list<int> allowed, const std::string& what) {
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), code), allowed.end()) << what << ": exit " << code;
}

void TraceThroughEveryCommand(const std::string& file) {
  const std::string ampscope = BinaryPath("cli/ampscope");
  const std::string out = testing::MakeTempDir("fuzzcli");
  const std::string report = out + "/r.json";
  int rc = RunCommand({ampscope, "analyze", file, "-q", "-o", report, "--html", out + "/r.html", "--markdown",
                out + "/r.md", "--chrome-trace", out + "/t.json", "--perfetto", out + "/t.pftrace"});
  ExpectOneOf(rc, {0, 2}, "analyze " + file);
  ExpectOneOf(RunCommand({ampscope, "analyze", file}), {0, 2}, "analyze (terminal) " + file);
  ExpectOneOf(RunCommand({ampscope, "kernels", file, "--json"}), {0, 2}, "kernels " + file);
  if (rc != 0) return;
  ExpectOneOf(RunCommand({ampscope, "gate", "--baseline", report, "--current", report}), {0, 1, 2}, "gate " + file);
  ExpectOneOf(RunCommand({ampscope, "diff", report, report}), {0}, "diff " + file);
}

TEST(FuzzRegressionsCliTest, KinetoInputs) {
  auto files = Inputs("kineto");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) TraceThroughEveryCommand(f);
}

TEST(FuzzRegressionsCliTest, AmptraceInputs) {
  auto files = Inputs("amptrace");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) TraceThroughEveryCommand(f);
}

TEST(FuzzRegressionsCliTest, ReportInputs) {
  const std::string ampscope = BinaryPath("cli/ampscope");
  auto files = Inputs("report");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) {
    ExpectOneOf(RunCommand({ampscope, "diff", f, f}), {0, 2}, "diff " + f);
    ExpectOneOf(RunCommand({ampscope, "diff", f, f, "--json"}), {0, 2}, "diff --json " + f);
    ExpectOneOf(RunCommand({ampscope, "gate", "--baseline", f, "--current", f}), {0, 1, 2}, "gate " + f);
  }
}

TEST(FuzzRegressionsCliTest, GateConfigInputs) {
  const std::string ampscope = BinaryPath("cli/ampscope");
  auto files = Inputs("gate_config");
  ASSERT_FALSE(files.empty());
  for (const std::string& f : files) ExpectOneOf(RunCommand({ampscope, "gate", "--config", f, "--print-config"}), {0, 2}, f);
}

}  // namespace
}  // namespace fuzz_regressions_cli_test
}  // namespace ampscope
