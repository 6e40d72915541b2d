// Gate outputs: JUnit XML (structure and counts), Markdown, GitHub annotations, terminal table.
// Writers are checked by reading their output back (STYLE.md), not against byte-exact goldens.
#include "gate/gate_output.h"
#include "render/format.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/report_builder.h"
#include "tests/gate/xml_check.h"
#include "support/test_support.h"

namespace ampscope::gate {
namespace gate_output_test {
namespace {

using ampscope::testing::BuildTestReport;
using ampscope::testing::RealisticStepTimesUs;
using ampscope::testing::Scaled;
using ampscope::testing::TestReport;
using ampscope::testing::XmlChecker;
using ampscope::testing::XmlNode;

// A result with every verdict: step time (+10%, significant) and a checklist item fail, an
// extra 0.2 syncs per step warns, a null counter is skipped, the rest pass.
GateResult MixedResult() {
  TestReport base;
  base.step_us = RealisticStepTimesUs(30, 105000, 0.015, 1);
  TestReport cur = base;
  cur.step_us = Scaled(RealisticStepTimesUs(30, 105000, 0.015, 2), 1.10);
  cur.syncs_per_step += 0.2;
  cur.checklist[2].second = "fail";
  cur.null_fp32_gemm_share = true;
  GateOptions options;
  options.baseline_name = "runs/base <main>.json";  // characters that need escaping in XML
  options.current_name = "runs/pr&1.json";
  return RunGate(BuildTestReport(base), BuildTestReport(cur), DefaultGateConfig(), options);
}

TEST(XmlCheckerTest, RejectsMalformedDocuments) {
  // The checker itself must be able to fail, or the JUnit test proves nothing.
  XmlNode root;
  std::string error;
  EXPECT_TRUE(XmlChecker::Parse("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t&amp;</a>\n", &root, &error)) << error;
  EXPECT_EQ(root.name, "a");
  EXPECT_EQ(root.text, "t&");
  const char* bad[] = {"<a><b></a></b>", "<a x=1/>",          "<a>&nbsp;</a>", "<a x=\"<\"/>", "<a></a><b/>",
                       "<a>",            "<a x=\"1\" x=\"2\"/>", "<a>\x01</a>",   "text"};
  for (const char* doc : bad) EXPECT_FALSE(XmlChecker::Parse(doc, &root, &error)) << doc;
}

TEST(GateOutputTest, JUnitIsWellFormedAndCountsMatch) {
  const GateResult result = MixedResult();
  ASSERT_EQ(result.failures(), 2);  // step_time, checklist.grad_scaler
  ASSERT_EQ(result.warnings(), 1);  // syncs_per_step
  ASSERT_EQ(result.skipped(), 1);   // fp32_gemm_share_pct (null)
  const std::string xml = FormatGateJUnit(result);
  XmlNode root;
  std::string error;
  ASSERT_TRUE(XmlChecker::Parse(xml, &root, &error)) << error << "\n" << xml;
  ASSERT_EQ(root.name, "testsuites");
  auto suites = root.Children("testsuite");
  ASSERT_EQ(suites.size(), 1u);
  const XmlNode& suite = *suites[0];
  EXPECT_EQ(suite.Attr("name"), "ampscope.gate");
  auto cases = suite.Children("testcase");
  int failures = 0, skipped = 0;
  std::vector<std::string> failed_names;
  for (const XmlNode* c : cases) {
    EXPECT_EQ(c->Attr("classname"), "ampscope.gate");
    EXPECT_FALSE(c->Attr("name").empty());
    if (!c->Children("failure").empty()) {
      ++failures;
      failed_names.push_back(c->Attr("name"));
      EXPECT_FALSE(c->Children("failure")[0]->Attr("message").empty());
    }
    skipped += static_cast<int>(c->Children("skipped").size());
  }
  EXPECT_EQ(cases.size(), result.checks.size());
  EXPECT_EQ(suite.Attr("tests"), std::to_string(cases.size()));
  EXPECT_EQ(suite.Attr("failures"), std::to_string(failures));
  EXPECT_EQ(suite.Attr("skipped"), std::to_string(skipped));
  EXPECT_EQ(suite.Attr("errors"), "0");
  EXPECT_EQ(root.Attr("tests"), suite.Attr("tests"));
  EXPECT_EQ(root.Attr("failures"), suite.Attr("failures"));
  EXPECT_EQ(failures, 2);
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(failed_names, (std::vector<std::string>{"step_time", "checklist.grad_scaler"}));
  // The warning is visible in the testcase's properties and system-out.
  for (const XmlNode* c : cases) {
    if (c->Attr("name") != "gate_metrics.syncs_per_step") continue;
    bool verdict_warn = false;
    for (const XmlNode* props : c->Children("properties"))
      for (const XmlNode* p : props->Children("property"))
        verdict_warn |= p->Attr("name") == "verdict" && p->Attr("value") == "warn";
    EXPECT_TRUE(verdict_warn);
    ASSERT_EQ(c->Children("system-out").size(), 1u);
    EXPECT_EQ(c->Children("system-out")[0]->text.rfind("WARNING: ", 0), 0u);
  }
  // Suite properties keep the file names, escaped and decoded back intact.
  bool found_baseline = false;
  for (const XmlNode* props : suite.Children("properties"))
    for (const XmlNode* p : props->Children("property"))
      found_baseline |= p->Attr("name") == "baseline" && p->Attr("value") == "runs/base <main>.json";
  EXPECT_TRUE(found_baseline);

  // Cross-check with xmllint when the machine has it (libxml2-utils).
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    const std::string dir = ampscope::testing::MakeTempDir("ampscope_junit");
    const std::string path = dir + "/junit.xml";
    ampscope::testing::WriteFile(path, xml);
    EXPECT_EQ(std::system(("xmllint --noout " + path).c_str()), 0);
    std::remove(path.c_str());
    std::remove(dir.c_str());
  }
}

TEST(GateOutputTest, XmlEscapeHandlesHostileText) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'\x01\n"), "a&lt;b&gt;&amp;&quot;c&apos;&#10;");
  // A kernel name with template brackets and a control character still gives a well-formed file.
  GateResult result;
  GateCheck check;
  check.name = "kernels.new_fp32_gemm";
  check.verdict = Verdict::kFail;
  check.message = "void gemm<float, 128>(T*)\x07 & more";
  result.checks.push_back(check);
  result.overall = Verdict::kFail;
  XmlNode root;
  std::string error;
  EXPECT_TRUE(XmlChecker::Parse(FormatGateJUnit(result), &root, &error)) << error;
}

TEST(GateOutputTest, MarkdownTableHasOneRowPerCheck) {
  const GateResult result = MixedResult();
  const std::string md = FormatGateMarkdown(result);
  EXPECT_EQ(md.rfind("### ampscope gate: FAIL", 0), 0u) << md;
  EXPECT_NE(md.find("| metric | baseline | current | change | threshold | verdict |"), std::string::npos);
  size_t rows = 0;
  size_t pos = 0;
  while ((pos = md.find("\n| `", pos)) != std::string::npos) {
    ++rows;
    ++pos;
  }
  EXPECT_EQ(rows, result.checks.size());
  EXPECT_NE(md.find("| `step_time` |"), std::string::npos);
  EXPECT_NE(md.find("❌ fail"), std::string::npos);
  EXPECT_NE(md.find("⚠️ warn"), std::string::npos);
  // Every table row has the 7 pipes of 6 cells (no unescaped '|' from the content).
  std::istringstream lines(md);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    size_t pipes = 0;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
    EXPECT_EQ(pipes, 7u) << line;
  }
}

TEST(GateOutputTest, GithubAnnotations) {
  const GateResult result = MixedResult();
  const std::string text = FormatGithubAnnotations(result);
  std::istringstream lines(text);
  std::string line;
  int errors = 0, warnings = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("::error title=ampscope gate::", 0) == 0) ++errors;
    else if (line.rfind("::warning title=ampscope gate::", 0) == 0) ++warnings;
    else ADD_FAILURE() << "unexpected line: " << line;
  }
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(warnings, 1);
  EXPECT_NE(text.find("::error title=ampscope gate::step_time: "), std::string::npos);

  // Newlines and '%' in a message are escaped, so one annotation stays one line.
  GateResult r;
  GateCheck c;
  c.name = "x";
  c.verdict = Verdict::kWarn;
  c.message = "50% worse\nsecond line";
  r.checks.push_back(c);
  EXPECT_EQ(FormatGithubAnnotations(r), "::warning title=ampscope gate::x: 50%25 worse%0Asecond line (baseline , current , change )\n");
  EXPECT_EQ(FormatGithubAnnotations(GateResult{}), "");
}

TEST(GateOutputTest, TerminalTableFitsTheWidth) {
  const GateResult result = MixedResult();
  for (size_t width = 20; width <= 200; width += 4) {
    const std::string table = FormatGateTable(result, width);
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(DisplayWidth(line), width) << line;
    for (const GateCheck& c : result.checks) EXPECT_NE(table.find(c.name.substr(0, 4)), std::string::npos) << width;
  }
}

TEST(GateOutputTest, TerminalTableIsAligned) {
  const GateResult result = MixedResult();
  // Wide enough for one line per check (narrower, the text columns wrap: see above).
  const std::string table = FormatGateTable(result, 240);
  std::istringstream lines(table);
  std::string line;
  // Header, rule, then one row per check; every verdict label starts in the header's verdict column.
  size_t verdict_column = std::string::npos;
  size_t rows = 0;
  while (std::getline(lines, line)) {
    if (verdict_column == std::string::npos) {
      if (line.rfind("metric", 0) == 0) verdict_column = line.find("verdict");
      continue;
    }
    if (line.empty()) break;
    if (line[0] == '-') continue;
    ++rows;
    const std::string label = line.substr(std::min(verdict_column, line.size()));
    EXPECT_TRUE(label == "PASS" || label == "WARN" || label == "FAIL" || label == "SKIP") << "'" << line << "'";
  }
  EXPECT_EQ(rows, result.checks.size());
  EXPECT_NE(table.find("ampscope gate: FAIL (2 failed, 1 warning"), std::string::npos) << table;
}

TEST(GateOutputTest, JsonCountsMatch) {
  const GateResult result = MixedResult();
  const nlohmann::json j = GateResultToJson(result);
  EXPECT_EQ(j["schema"], "ampscope.gate/1");
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["checks"].size(), result.checks.size());
  EXPECT_EQ(j["counts"]["failures"], 2);
}

}  // namespace
}  // namespace gate_output_test
}  // namespace ampscope::gate
