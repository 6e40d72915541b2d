// The Markdown summary: snapshot tests in the style of Google Benchmark's output tests
// (expected lines as regular expressions, in order), so machine- or analyzer-dependent
// numbers are matched by pattern, plus escaping and caps.
#include "render/markdown_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "analyzers/analyze.h"
#include "report_json_fixture.h"
#include "reports/json_report.h"
#include "test_support.h"
#include "trace/kineto_reader.h"

namespace ampscope::render {
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Each pattern must match a whole line, in order (other lines may come between).
// Returns "" on success, else the first pattern not found.
std::string MatchInOrder(const std::string& text, const std::vector<std::string>& patterns) {
  std::vector<std::string> lines = Lines(text);
  size_t at = 0;
  for (const std::string& p : patterns) {
    std::regex re(p);
    while (at < lines.size() && !std::regex_match(lines[at], re)) ++at;
    if (at == lines.size()) return p;
    ++at;
  }
  return "";
}

// Unescaped '|' in a line (table cell separators).
size_t Pipes(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i) n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return n;
}

TEST(MarkdownReport, SnapshotOfTheHandBuiltReport) {
  std::string md = RenderMarkdown(testing::MakeReportJson());
  // The report's values are fixed by hand in report_fixtures.cc; regexes keep the snapshot
  // about content, not about spacing.
  std::vector<std::string> expected = {
      R"(## ampscope: rank0\.pt\.trace\.json\.gz \(kineto\))",
      R"(\*\*NVIDIA A100-SXM4-80GB \(cc 8\.0\)\*\* · 6 steps \(profiler\\_step\) · step time \*\*108\.0 ms\*\* \(median 105\.0 ms, p90 120\.0 ms\))",
      R"(\| GPU busy \| \*\*61\.[23]%\*\* \|)",
      R"(\| &nbsp;&nbsp;kernels \| 55\.5% \|)",
      R"(\| idle: host\\_wait \(waiting for the CPU\) \| 30\.0% \|)",
      R"(\| Tensor Core kernel time \(estimated\) \| 12\.5% \|)",
      R"(\| precision mix \(kernel time\) \| fp32 70\.0%, fp16 25\.0%, unknown 5\.0% \|)",
      R"(### Five-dimension matrix)",
      R"(\| Compute intensity \| 🔴 bad \| Tensor Core kernel share: \*\*12\.5%\*\* \| estimated \|)",
      R"(\| Memory bandwidth \| 🟡 warn \| .*)",
      R"(\| Instruction efficiency \| 🟢 good \| kernels per step: \*\*1462 kernels\*\* \| measured \|)",
      R"(\| Data locality \| ⚪ unknown \| allocation churn: \*\*n/a\*\* \| unavailable: no memory events \|)",
      R"(\| Task parallelism \| 🔴 bad \| .*)",
      R"(### Checklist)",
      R"(\| Tensor Core utilization \| 🔴 fail \| 12\.5 \| ≥70% \| 12\.5% of kernel time in Tensor Core kernels \|)",
      R"(\| GradScaler \| ➖ not\\_applicable \| n/a \| fp16 only \| .* \|)",
      R"(\| Distributed sync \(NCCL\) \| 🟢 pass \| .*)",
      R"(\| Memory fragmentation \| ⚪ unknown \| n/a \| .*)",
      R"(### Top findings \(3 total\))",
      R"(1\. 🔴 \*\*critical\*\* `data\\_loader\\_bottleneck` The GPU waits for the input pipeline 30% of each step — est\. saving \*\*27\.5%\*\* of step time)",
      R"(   - Evidence: dataloader\\_us\\_per\\_step: 32000, host\\_wait\\_pct: 30, top\\_op: enumerate\(DataLoader\))",
      R"(   - Fix: Use DataLoader\(num\\_workers&gt;0, pin\\_memory=True\) and prefetch\.)",
      R"(2\. 🟡 \*\*warning\*\* `fp32\\_gemm\\_no\\_amp` .*est\. saving \*\*18\.[23]%\*\* of step time)",
      R"(3\. 🔵 \*\*info\*\* `small\\_kernels` Many short kernels — est\. saving \*\*1\.5%\*\* of step time)",
      R"(<details><summary>Top kernels by GPU time</summary>)",
      R"(\| 40\.0% \| 50\.0 ms \| 100 \| conv \| fp32 \| no \| volta\\_scudnn\\_128x64\\_relu\\_interior\\_nn\\_v1 \|)",
      R"(</details>)",
      R"(_Input diagnostics: negative\\_duration 1, unsorted\\_events 3_)",
  };
  EXPECT_EQ(MatchInOrder(md, expected), "") << md;
  // One rank: no rank table.
  EXPECT_EQ(md.find("Ranks ("), std::string::npos);
}

TEST(MarkdownReport, TablesSurviveNastyNames) {
  json r = testing::MakeReportJson();
  r["kernels"]["top"][0]["name"] = "void k<a|b>(x*, y_z) `tick` [link](http://x) <script>";
  r["checklist"][0]["evidence"] = "a | b\nc";
  std::string md = RenderMarkdown(r);
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("void k&lt;a\\|b&gt;(x\\*, y\\_z) \\`tick\\` \\[link\\]"), std::string::npos);
  for (const std::string& line : Lines(md)) {
    if (line.rfind("| 40.0% |", 0) == 0) {
      EXPECT_EQ(Pipes(line), 8u) << line;  // 7 columns
    }
    if (line.rfind("| Tensor Core utilization |", 0) == 0) {
      EXPECT_EQ(Pipes(line), 6u) << line;  // 5 columns
    }
  }
}

TEST(MarkdownReport, ManyRanksAreCapped) {
  std::string md = RenderMarkdown(testing::MakeReportJson(100, 6));
  EXPECT_EQ(MatchInOrder(md, {R"(## ampscope: 100 ranks: rank0\.pt\.trace\.json\.gz, rank1\.pt\.trace\.json\.gz, .*)",
                              R"(<details><summary>Ranks \(100\), slowest first</summary>)",
                              R"(\| Rank \| Step mean \| GPU busy \| host_wait \| Tensor Core \|)",
                              R"(_90 more ranks in the HTML report\._)"}),
            "")
      << md;
  size_t rank_rows = 0;
  bool in_ranks = false;
  for (const std::string& line : Lines(md)) {
    if (line.find("Ranks (100)") != std::string::npos) in_ranks = true;
    if (in_ranks && std::regex_match(line, std::regex(R"(\| [0-9]+ \| [0-9.]+ ms \| .*)"))) ++rank_rows;
  }
  EXPECT_EQ(rank_rows, 10u);
}

TEST(MarkdownReport, SnapshotOfTheResNet50Trace) {
  if (!testing::HaveShared()) GTEST_SKIP() << "shared/ traces not available";
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  traces.push_back(std::move(t).value());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  std::string md = RenderMarkdown(BuildJsonReport(job, traces, AnalysisOptions{}));
  // Numbers the TensorBoard plugin computed on this trace (shared/traces/README.md): 6 steps
  // #5..#10, mean step 177592 us, GPU utilization (kernel busy) 55.51%, FP32 only, V100.
  std::vector<std::string> expected = {
      R"(## ampscope: worker0\.1623143089861\.pt\.trace\.json\.gz \(kineto\))",
      R"(\*\*Tesla V100-DGXS-32GB \(cc 7\.0\)\*\* · 6 steps \(profiler\\_step\) · step time \*\*177\.[56] ms\*\* .*)",
      R"(\| GPU busy \| \*\*[0-9]+\.[0-9]%\*\* \|)",
      R"(\| &nbsp;&nbsp;kernels \| 55\.[45]% \|)",
      R"(\| precision mix \(kernel time\) \| fp32 [0-9.]+%.*)",
      R"(### Five-dimension matrix)",
      R"(\| Compute intensity \| .* \|)",
      R"(### Checklist)",
      R"(\| Tensor Core utilization \| 🔴 fail \| 0 \| .*)",
      R"(### Top findings \([0-9]+ total\))",
      R"(<details><summary>Top kernels by GPU time</summary>)",
  };
  EXPECT_EQ(MatchInOrder(md, expected), "") << md;
}

}  // namespace
}  // namespace ampscope::render
