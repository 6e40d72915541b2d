// The trace-integrity section and low-confidence findings in the terminal summary, Markdown and
// HTML, from the report JSON alone (a hand-built report, docs/report_schema.md).
#include <gtest/gtest.h>

#include <string>

#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace trace_integrity_render_test {
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

// A report without steps whose window is a cold start, as the analyzers rank it (py4ai's shape):
// cold_start_profiled first (a warning without a saving), then a finding with a saving whose
// evidence keys speak per step and whose units the report already says per window.
json ColdWindowWithoutSteps() {
  json r = testing::MakeReportJson();
  r["steps"]["count"] = 0;
  r["findings"] = json::array(
      {{{"id", "cold_start_profiled"}, {"severity", "warning"}, {"dimension", ""}, {"checklist", nullptr},
        {"title", "The profile is a cold start: 52% of the analysed window is one-time CUDA work"},
        {"evidence", {{"one_time_work_pct_of_window", 51.7}}},
        {"recommendation", "Profile after warm-up: torch.profiler.schedule(wait=1, warmup=1, active=3)."},
        {"est_saving_pct", 0.0}},
       {{"id", "host_device_sync"}, {"severity", "warning"}, {"dimension", "task_parallelism"}, {"checklist", nullptr},
        {"title", "Syncs stall the GPU"},
        {"evidence", {{"kernel_time_per_step_us", 1700.0}, {"syncs_per_step_beyond_scaler", 4}, {"fills_per_step_count", 12}}},
        {"evidence_units",
         {{"kernel_time_per_step_us", "us/window"}, {"syncs_per_step_beyond_scaler", "/window"}, {"fills_per_step_count", "count"}}},
        {"recommendation", "Remove the .item() calls."},
        {"est_saving_pct", 4.9}}});
  return r;
}

TEST(TraceIntegrityRender, WithoutStepsFindingsSpeakOfTheWindowInEveryOutput) {
  // By hand: no steps (count 0), so the saving is "of the window", never "of step time"; a value
  // already per window (1.70 ms/window, 4/window) drops "per step" from its label; a plain count
  // (fills_per_step_count) says "in the window". (The fixture's other sections keep their steps:
  // only the findings are checked for step words.)
  const json r = ColdWindowWithoutSteps();
  TerminalOptions o;
  o.width = 200;
  const std::string t = RenderTerminalSummary(r, o);
  EXPECT_NE(t.find("[warning] host_device_sync (est. saving 4.9% of the window)"), std::string::npos) << t;
  EXPECT_NE(t.find("Findings (2, ranked by estimated saving of the window)"), std::string::npos) << t;
  EXPECT_NE(t.find("Kernel time: 1.70 ms/window"), std::string::npos) << t;
  EXPECT_NE(t.find("Syncs beyond scaler: 4/window"), std::string::npos) << t;
  EXPECT_NE(t.find("Fills in the window: 12"), std::string::npos) << t;
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("est. saving **4.9%** of the window"), std::string::npos) << md;
  EXPECT_NE(md.find("Kernel time: 1.70 ms/window"), std::string::npos) << md;
  EXPECT_NE(md.find("Syncs beyond scaler: 4/window"), std::string::npos) << md;
  const std::string html = RenderHtml(r);
  EXPECT_NE(html.find(">Kernel time</th>"), std::string::npos);
  EXPECT_NE(html.find(">Syncs beyond scaler</th>"), std::string::npos);
  EXPECT_NE(html.find("ranked by estimated saving of the window"), std::string::npos);
  auto part = [](const std::string& out, const std::string& from, const std::string& to) {
    const size_t a = out.find(from);
    EXPECT_NE(a, std::string::npos) << from;
    return a == std::string::npos ? std::string() : out.substr(a, out.find(to, a) - a);
  };
  for (const std::string& findings : {part(t, "Findings (", "Critical path"), part(md, "### Top findings", "\n### "),
                                      part(html, "<section id=\"findings\">", "</section>")}) {
    EXPECT_EQ(findings.find("of step time"), std::string::npos) << findings;
    EXPECT_EQ(findings.find("per step"), std::string::npos) << findings;
    EXPECT_EQ(findings.find("Per step"), std::string::npos) << findings;
    EXPECT_EQ(findings.find("/step"), std::string::npos) << findings;
  }
  // With steps the same evidence keeps its words.
  json with_steps = r;
  with_steps["steps"]["count"] = 4;
  with_steps["findings"][1]["evidence_units"] = {{"kernel_time_per_step_us", "us/step"}};
  EXPECT_NE(RenderTerminalSummary(with_steps, o).find("Kernel time per step: 1.70 ms/step"), std::string::npos);
}

TEST(TraceIntegrityRender, FindingsKeepTheReportsRankSoTheColdStartLeads) {
  // The report ranks cold_start_profiled (saving 0) before host_device_sync (4.9%); re-sorting by
  // saving put it last. Every output keeps the report's order.
  const json r = ColdWindowWithoutSteps();
  TerminalOptions o;
  o.width = 200;
  const std::string t = RenderTerminalSummary(r, o);
  EXPECT_NE(t.find("1. [warning] cold_start_profiled"), std::string::npos) << t;
  EXPECT_NE(t.find("2. [warning] host_device_sync"), std::string::npos) << t;
  const std::string md = RenderMarkdown(r);
  EXPECT_NE(md.find("1. 🟡 **warning** `cold_start_profiled`"), std::string::npos) << md;
  EXPECT_NE(md.find("2. 🟡 **warning** `host_device_sync`"), std::string::npos) << md;
  const std::string html = RenderHtml(r);
  const size_t cold = html.find("id=\"finding-cold_start_profiled\""), sync = html.find("id=\"finding-host_device_sync\"");
  ASSERT_NE(cold, std::string::npos);
  ASSERT_NE(sync, std::string::npos);
  EXPECT_LT(cold, sync);
  EXPECT_NE(html.find("Top finding"), std::string::npos);
}

}  // namespace
}  // namespace trace_integrity_render_test
}  // namespace ampscope::render
