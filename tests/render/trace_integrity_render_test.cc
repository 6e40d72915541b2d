// The trace-integrity section and low-confidence findings in the terminal summary, Markdown and
// HTML, from the report JSON alone (a hand-built report, docs/report_schema.md).
#include <gtest/gtest.h>

#include <string>

#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace {

using nlohmann::json;

json WithIntegrity() {
  json r = testing::MakeReportJson();
  r["trace_integrity"] = json::array(
      {{{"id", "warmup"}, {"status", "fail"},
        {"evidence", "the analysed window is a cold start: 52% of it is one-time CUDA work"},
        {"affects", {"gpu.idle_pct", "launch_bound"}}},
       {{"id", "sampling"}, {"status", "warn"}, {"evidence", "1 runtime call per 31 correlation ids"}, {"affects", {"gpu.busy_pct"}}},
       {{"id", "empty_steps"}, {"status", "ok"}, {"evidence", "every analysed step has GPU work"}, {"affects", json::array()}},
       {{"id", "missing_ranks"}, {"status", "ok"}, {"evidence", "all 8 ranks of the job are given"}, {"affects", json::array()}}});
  r["findings"][0]["confidence"] = "low";
  r["findings"][0]["confidence_reason"] = "sampling: 1 runtime call per 31 correlation ids";
  r["steps"]["flagged"] = json::array({{{"number", 1}, {"kind", "warmup"}, {"excluded", true}, {"reason", "2.45 s"}}});
  return r;
}

TEST(TraceIntegrityRender, TerminalNamesWhatIsNotOkAndListsTheRest) {
  TerminalOptions o;
  o.width = 120;
  const std::string t = RenderTerminalSummary(WithIntegrity(), o);
  EXPECT_NE(t.find("Trace integrity"), std::string::npos);
  EXPECT_NE(t.find("[FAIL] Warm-up and cold start: the analysed window is a cold start"), std::string::npos) << t;
  EXPECT_NE(t.find("[WARN] Sampled or thinned trace"), std::string::npos) << t;
  EXPECT_NE(t.find("unreliable: gpu.idle_pct, launch_bound"), std::string::npos) << t;
  EXPECT_NE(t.find("[OK] empty_steps, missing_ranks"), std::string::npos) << t;
  EXPECT_NE(t.find("confidence: low, sampling: 1 runtime call per 31 correlation ids"), std::string::npos) << t;
  EXPECT_NE(t.find("1 warm-up step left out"), std::string::npos) << t;
  // Verbose: the ok checks with their evidence too.
  o.verbose = true;
  EXPECT_NE(RenderTerminalSummary(WithIntegrity(), o).find("[OK] Missing ranks: all 8 ranks of the job are given"),
            std::string::npos);
}

TEST(TraceIntegrityRender, MarkdownAndHtmlHaveTheTable) {
  const std::string md = RenderMarkdown(WithIntegrity());
  EXPECT_NE(md.find("### Trace integrity"), std::string::npos);
  EXPECT_NE(md.find("| Warm-up and cold start | "), std::string::npos) << md;
  EXPECT_NE(md.find("gpu.idle\\_pct, launch\\_bound"), std::string::npos) << md;
  EXPECT_NE(md.find("Confidence: **low**"), std::string::npos) << md;
  const std::string html = RenderHtml(WithIntegrity());
  EXPECT_NE(html.find("<section id=\"trace-integrity\">"), std::string::npos);
  EXPECT_NE(html.find("Sampled or thinned trace"), std::string::npos);
  EXPECT_NE(html.find("low confidence</span> sampling: 1 runtime call per 31 correlation ids"), std::string::npos);
}

TEST(TraceIntegrityRender, AReportWithoutTheSectionRendersAsBefore) {
  const json r = testing::MakeReportJson();
  TerminalOptions o;
  EXPECT_EQ(RenderTerminalSummary(r, o).find("Trace integrity"), std::string::npos);
  EXPECT_EQ(RenderMarkdown(r).find("Trace integrity"), std::string::npos);
}

TEST(TraceIntegrityRender, WithoutStepsNothingIsPerStep) {
  // A report without steps: its one unit is the window (docs/findings.md, "Window").
  json r = testing::MakeReportJson();
  r["steps"]["count"] = 0;
  r["matrix"]["data_locality"]["headline"]["name"] = "alloc_calls_per_step_after_warmup";
  TerminalOptions o;
  o.width = 140;
  const std::string t = RenderTerminalSummary(r, o);
  EXPECT_NE(t.find("GPU time (share of the analysed window: no steps)"), std::string::npos) << t;
  EXPECT_NE(t.find("window after warm-up"), std::string::npos) << t;  // the label wraps at "in the"
  EXPECT_EQ(t.find("per step after warm-up"), std::string::npos) << t;
  EXPECT_NE(RenderMarkdown(r).find("in the window after warm-up"), std::string::npos);
  EXPECT_NE(RenderHtml(r).find("in the window after warm-up"), std::string::npos);
}

}  // namespace
}  // namespace ampscope::render
