// `ampscope gate` and `ampscope diff` end to end through the built binary: exit codes, error
// lines, output files (written whole or not at all), GitHub annotations.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "support/report_builder.h"
#include "tests/gate/xml_check.h"

namespace gate_cli_test {
namespace {

using ampscope::testing::BinaryPath;
using ampscope::testing::BuildTestReport;
using ampscope::testing::ReadFile;
using ampscope::testing::RealisticStepTimesUs;
using ampscope::testing::SourcePath;
using ampscope::testing::TestReport;
using ampscope::testing::WriteFile;
using nlohmann::json;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

class GateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    binary_ = BinaryPath("cli/ampscope");
    ASSERT_TRUE(Exists(binary_)) << binary_ << " is not built (build the 'ampscope' target)";
    dir_ = ampscope::testing::MakeTempDir("ampscope_gate_cli");
    base_.step_us = RealisticStepTimesUs(30, 105000, 0.015, 1);
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string WriteReport(const std::string& name, const TestReport& r) {
    WriteFile(Path(name), BuildTestReport(r).dump(2));
    return Path(name);
  }
  // Runs `env ampscope args`, capturing stdout and stderr. GITHUB_ACTIONS is cleared unless env sets it.
  RunResult Run(const std::string& args, const std::string& env = "") {
    const std::string out = Path("stdout.txt"), err = Path("stderr.txt");
    const std::string cmd = "env -u GITHUB_ACTIONS " + env + " '" + binary_ + "' " + args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }
  static int Lines(const std::string& text) {
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
  }

  std::string binary_;
  std::string dir_;
  TestReport base_;
};

TEST_F(GateCliTest, IdenticalReportsPass) {
  const std::string a = WriteReport("a.json", base_);
  RunResult r = Run("gate --baseline " + a + " --current " + a);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ampscope gate: PASS"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(GateCliTest, RegressionExitsOneAndWritesReports) {
  const std::string a = WriteReport("a.json", base_);
  TestReport cur = base_;
  cur.syncs_per_step += 1;
  const std::string b = WriteReport("b.json", cur);
  const std::string junit = Path("junit.xml"), md = Path("summary.md"), js = Path("gate.json");
  RunResult r = Run("gate --baseline " + a + " --current " + b + " --junit " + junit + " --markdown " + md + " --json " + js);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos);
  EXPECT_EQ(r.out.find("::error"), std::string::npos);  // not on GitHub Actions: no annotations

  ampscope::testing::XmlNode root;
  std::string error;
  ASSERT_TRUE(ampscope::testing::XmlChecker::Parse(ReadFile(junit), &root, &error)) << error;
  const auto* suite = root.Children("testsuite").at(0);
  EXPECT_EQ(suite->Attr("failures"), "1");
  int failing = 0;
  for (const auto* c : suite->Children("testcase")) {
    if (c->Children("failure").empty()) continue;
    ++failing;
    EXPECT_EQ(c->Attr("name"), "gate_metrics.syncs_per_step");
  }
  EXPECT_EQ(failing, 1);
  EXPECT_NE(ReadFile(md).find("| `gate_metrics.syncs_per_step` |"), std::string::npos);
  EXPECT_EQ(json::parse(ReadFile(js))["exit_code"], 1);
}

TEST_F(GateCliTest, GithubActionsAnnotations) {
  const std::string a = WriteReport("a.json", base_);
  TestReport cur = base_;
  cur.tensor_core_kernel_pct -= 20;
  cur.kernels_per_step *= 1.07;  // warn tier
  const std::string b = WriteReport("b.json", cur);
  RunResult r = Run("gate --quiet --baseline " + a + " --current " + b, "GITHUB_ACTIONS=true");
  EXPECT_EQ(r.exit_code, 1);
  // One line per non-passing check, in check order (counters: kernels_per_step before tensor_core_kernel_pct).
  const std::string out = "\n" + r.out;
  EXPECT_NE(out.find("\n::warning title=ampscope gate::gate_metrics.kernels_per_step: "), std::string::npos) << r.out;
  EXPECT_NE(out.find("\n::error title=ampscope gate::gate_metrics.tensor_core_kernel_pct: "), std::string::npos) << r.out;
  EXPECT_EQ(Lines(r.out), 2);  // --quiet: annotations only
}

TEST_F(GateCliTest, MalformedJsonIsAnInputError) {
  const std::string a = WriteReport("a.json", base_);
  const std::string bad = Path("bad.json");
  WriteFile(bad, "{\"schema\": \"ampscope.report/1\", \"steps\": [1, 2,, 3]}");
  const std::string junit = Path("junit.xml");
  RunResult r = Run("gate --baseline " + a + " --current " + bad + " --junit " + junit);
  EXPECT_EQ(r.exit_code, 2);
  // One line naming the file and the byte offset: the second comma of ",," is byte 48 (hand count).
  EXPECT_EQ(r.err.rfind("ampscope gate: " + bad + ": invalid JSON at byte 48: ", 0), 0u) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_FALSE(Exists(junit));  // no partial outputs
  EXPECT_FALSE(Exists(junit + ".ampscope-tmp"));
}

// Issue 16: an output path that is an input is refused before anything is read.
TEST_F(GateCliTest, OutputThatIsAnInputIsRefused) {
  const std::string a = WriteReport("a.json", base_);
  const std::string b = WriteReport("b.json", base_);
  const std::string before = ReadFile(a);
  RunResult r = Run("gate --baseline " + a + " --current " + b + " --junit " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ampscope gate: " + a + ": is also an input (" + a + "); refusing to overwrite it\n");
  EXPECT_EQ(ReadFile(a), before);
}

TEST_F(GateCliTest, WrongSchemaAndMissingFieldsAreInputErrors) {
  const std::string a = WriteReport("a.json", base_);
  json wrong = BuildTestReport(base_);
  wrong["schema"] = "hta.report/1";
  WriteFile(Path("wrong.json"), wrong.dump());
  RunResult r = Run("gate --baseline " + a + " --current " + Path("wrong.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ampscope gate: " + Path("wrong.json") + ": /schema: expected \"ampscope.report/1\", got \"hta.report/1\"\n");

  json missing = BuildTestReport(base_);
  missing["steps"].erase("durations_us");
  WriteFile(Path("missing.json"), missing.dump());
  r = Run("gate --baseline " + Path("missing.json") + " --current " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "ampscope gate: " + Path("missing.json") + ": /steps/durations_us: missing required array\n");

  r = Run("gate --baseline " + Path("nope.json") + " --current " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("ampscope gate: " + Path("nope.json") + ": cannot read", 0), 0u) << r.err;
}

TEST_F(GateCliTest, EnvironmentMismatch) {
  const std::string a = WriteReport("a.json", base_);
  TestReport cur = base_;
  cur.cuda = "12.4";
  const std::string b = WriteReport("b.json", cur);
  const std::string junit = Path("junit.xml");
  RunResult r = Run("gate --baseline " + a + " --current " + b + " --junit " + junit);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("environment mismatch"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cuda '12.2' vs '12.4'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--allow-env-mismatch"), std::string::npos);
  EXPECT_EQ(Lines(r.err), 1);
  EXPECT_FALSE(Exists(junit));

  r = Run("gate --allow-env-mismatch --baseline " + a + " --current " + b + " --junit " + junit);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Exists(junit));
  EXPECT_NE(r.out.find("WARN"), std::string::npos);
}

TEST_F(GateCliTest, UsageErrors) {
  const std::string a = WriteReport("a.json", base_);
  EXPECT_EQ(Run("gate").exit_code, 2);
  EXPECT_EQ(Run("gate --baseline " + a).exit_code, 2);
  EXPECT_EQ(Run("gate --baseline " + a + " --current " + a + " --no-such-flag").exit_code, 2);
  RunResult help = Run("gate --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--baseline"), std::string::npos);
  // A config with a typo is an input error, not a silently ignored rule.
  WriteFile(Path("gate.json"), R"({"counters": {"syncs_per_stp": {"fail": 1}}})");
  RunResult r = Run("gate --baseline " + a + " --current " + a + " --config " + Path("gate.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/counters/syncs_per_stp"), std::string::npos) << r.err;
}

TEST_F(GateCliTest, PrintConfigMatchesTheDocumentedExample) {
  RunResult r = Run("gate --print-config");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json printed = json::parse(r.out);
  json example = json::parse(ReadFile(SourcePath("docs/gate.example.json")));
  example.erase("_comment");
  EXPECT_EQ(printed, example);
  // The example is a valid config for the binary.
  const std::string a = WriteReport("a.json", base_);
  EXPECT_EQ(Run("gate --baseline " + a + " --current " + a + " --config " + SourcePath("docs/gate.example.json")).exit_code, 0);
}

TEST_F(GateCliTest, DiffSideBySide) {
  const std::string a = WriteReport("a.json", base_);
  TestReport cur = base_;
  cur.top_kernels.push_back({"ampere_sgemm_128x64_tn", "gemm", "fp32", false, 3000, 390000});
  const std::string b = WriteReport("b.json", cur);
  RunResult r = Run("diff " + a + " " + b);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernels added in B"), std::string::npos);
  EXPECT_NE(r.out.find("ampere_sgemm_128x64_tn"), std::string::npos);
  r = Run("diff --json --top 3 " + a + " " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "ampscope.diff/1");
  EXPECT_EQ(j["kernels"]["added"][0]["name"], "ampere_sgemm_128x64_tn");
}

TEST_F(GateCliTest, DiffInputErrors) {
  const std::string a = WriteReport("a.json", base_);
  WriteFile(Path("bad.json"), "[1, 2");
  RunResult r = Run("diff " + a + " " + Path("bad.json"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("ampscope diff: " + Path("bad.json") + ": invalid JSON at byte 6: ", 0), 0u) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Run("diff " + a).exit_code, 2);
  WriteFile(Path("other.json"), R"({"schema": "something/else"})");
  EXPECT_EQ(Run("diff " + a + " " + Path("other.json")).exit_code, 2);
}

}  // namespace
}  // namespace gate_cli_test
