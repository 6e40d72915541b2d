// The Markdown summary: a checker of the GitHub-flavoured Markdown rules the summary must follow
// (GFM spec 0.29: code spans show their content literally, so nothing may be escaped in them
// except "\|" inside a table row; a table row has as many cells as its header; raw HTML is
// rendered, so only entities may appear), with negative controls, then snapshot tests in the
// style of Google Benchmark's output tests (expected lines as regular expressions, in order).
#include "render/html_report.h"
#include "render/markdown_report.h"
#include "render/terminal_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include "analyzers/analyze.h"
#include "pipeline/job.h"
#include "report_json_fixture.h"
#include "reports/json_report.h"
#include "support/test_support.h"
#include "trace/formats/kineto/kineto_reader.h"

namespace ampscope::render {
namespace markdown_report_test {
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool IsAsciiPunct(char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; }

// Cells of a table row: split at pipes that are not escaped ("\|" stays in the cell, in or out
// of code spans, as GFM's table extension says), outer pipes dropped.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cur += "\\|";
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(cur);
      cur.clear();
    } else {
      cur += row[i];
    }
  }
  cells.push_back(cur);
  if (!cells.empty() && cells.front().find_first_not_of(' ') == std::string::npos) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().find_first_not_of(' ') == std::string::npos) cells.pop_back();
  return cells;
}

// Problems with one line of inline content (`in_table`: it is a table row).
void CheckInline(const std::string& line, bool in_table, std::vector<std::string>& problems) {
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '\\' && i + 1 < line.size() && IsAsciiPunct(line[i + 1])) {
      i += 2;  // a backslash escape outside code spans is fine
      continue;
    }
    if (line[i] == '`') {
      size_t run = 0;
      while (i + run < line.size() && line[i + run] == '`') ++run;
      // The closing run: the next backtick run of the same length (CommonMark 6.1).
      size_t close = std::string::npos;
      for (size_t j = i + run; j < line.size();) {
        if (line[j] != '`') {
          ++j;
          continue;
        }
        size_t r = 0;
        while (j + r < line.size() && line[j + r] == '`') ++r;
        if (r == run) {
          close = j;
          break;
        }
        j += r;
      }
      if (close == std::string::npos) {
        problems.push_back("unclosed code span: " + line);
        return;
      }
      const std::string content = line.substr(i + run, close - i - run);
      for (size_t k = 0; k + 1 < content.size(); ++k) {
        if (content[k] != '\\' || !IsAsciiPunct(content[k + 1])) continue;
        if (in_table && content[k + 1] == '|') {
          ++k;
          continue;  // the table extension removes this backslash
        }
        problems.push_back("escape inside a code span (GitHub shows the backslash): " + content);
      }
      static const std::regex kEntity(R"(&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);)");
      if (std::regex_search(content, kEntity)) problems.push_back("entity inside a code span (shown literally): " + content);
      i = close + run;
      continue;
    }
    if (line[i] == '<' && i + 1 < line.size() &&
        (std::isalpha(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '/' || line[i + 1] == '!' || line[i + 1] == '?'))
      problems.push_back("raw HTML: " + line.substr(i, 40));
    ++i;
  }
}

// Every problem of `md` against the rules above.
std::vector<std::string> GfmProblems(const std::string& md) {
  std::vector<std::string> problems;
  std::vector<std::string> lines = Lines(md);
  static const std::regex kDelimiter(R"(^\|?( *:?-+:? *\|)+( *:?-+:? *)?$)");
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const bool row = !l.empty() && l[0] == '|';
    if (row && i + 1 < lines.size() && std::regex_match(lines[i + 1], kDelimiter) && (i == 0 || lines[i - 1].empty() || lines[i - 1][0] != '|')) {
      // A table: header, delimiter, rows until a line that is not a row.
      const size_t columns = Cells(l).size();
      if (Cells(lines[i + 1]).size() != columns) problems.push_back("delimiter row does not match the header: " + lines[i + 1]);
      CheckInline(l, true, problems);
      size_t j = i + 2;
      for (; j < lines.size() && !lines[j].empty() && lines[j][0] == '|'; ++j) {
        if (Cells(lines[j]).size() != columns)
          problems.push_back("row with " + std::to_string(Cells(lines[j]).size()) + " cells, header has " +
                             std::to_string(columns) + ": " + lines[j]);
        CheckInline(lines[j], true, problems);
      }
      i = j - 1;
      continue;
    }
    if (row) problems.push_back("a table row outside a table (no delimiter row): " + l);
    CheckInline(l, false, problems);
  }
  return problems;
}

TEST(GfmChecker, CatchesWhatGitHubGetsWrong) {
  // Negative controls: each of these renders wrongly on GitHub.
  EXPECT_FALSE(GfmProblems("a `dataloader\\_bottleneck` b\n").empty());             // backslashes shown
  EXPECT_FALSE(GfmProblems("see `a &lt; b`\n").empty());                              // entity shown literally
  EXPECT_FALSE(GfmProblems("<details><summary>x</summary>\n").empty());               // raw HTML
  EXPECT_FALSE(GfmProblems("| a | b |\n|---|---|\n| 1 | 2 | 3 |\n").empty());         // too many cells
  EXPECT_FALSE(GfmProblems("| a | b |\n|---|---|\n| `x|y` | 2 |\n").empty());        // a pipe in a code span splits the cell
  EXPECT_FALSE(GfmProblems("an `unclosed span\n").empty());
  // Positive controls.
  EXPECT_THAT(GfmProblems("a `dataloader_bottleneck` b\\_c &amp; &lt;x&gt;\n"), ::testing::IsEmpty());
  EXPECT_THAT(GfmProblems("| a | b |\n|---|---:|\n| `x\\|y` | 2 |\n"), ::testing::IsEmpty());
  EXPECT_THAT(GfmProblems("``a`b``\n"), ::testing::IsEmpty());
}

TEST(MarkdownReport, CodeSpans) {
  EXPECT_EQ(MarkdownCode("dataloader_bottleneck"), "`dataloader_bottleneck`");
  EXPECT_EQ(MarkdownCode("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCode("`tick`"), "`` `tick` ``");
  EXPECT_EQ(MarkdownCode("k<a|b>", true), "`k<a\\|b>`");
  EXPECT_EQ(MarkdownCode("k<a|b>", false), "`k<a|b>`");
}

// `text` as a regex that matches it literally.
std::string RegexEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

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

TEST(MarkdownReport, SnapshotOfTheHandBuiltReport) {
  std::string md = RenderMarkdown(testing::MakeReportJson());
  EXPECT_THAT(GfmProblems(md), ::testing::IsEmpty()) << md;
  // The report's values are fixed by hand in report_json_fixture.cc; units of the checklist
  // values are what the analyzers put there (render::ChecklistUnit).
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
      R"(\| Instruction efficiency \| 🟢 good \| Kernels per step: \*\*1462 kernels\*\* \| measured \|)",
      R"(\| Data locality \| ⚪ unknown \| Allocation churn: \*\*n/a\*\* \| unavailable: no memory events \|)",
      R"(\| Task parallelism \| 🔴 bad \| .*)",
      R"(### Checklist)",
      R"(\| Tensor Core utilization \| 🔴 fail \| 12\.5% of kernel time \| ≥70% \| 12\.5% of kernel time in Tensor Core kernels \|)",
      R"(\| GradScaler \| ➖ not applicable \| - \| fp16 only \| .* \|)",
      R"(\| Distributed sync \| 🟢 pass \| 0\.0% of step \| .*)",
      R"(\| Memory fragmentation \| ⚪ unknown \| not measured \| .*)",
      R"(### Top findings \(3 total\))",
      R"(1\. 🔴 \*\*critical\*\* `data_loader_bottleneck` The GPU waits for the input pipeline 30% of each step — est\. saving \*\*27\.5%\*\* of step time)",
      R"(   - Evidence: DataLoader: 32\.0 ms/step; Host wait: 30\.0%; Top op: enumerate\(DataLoader\))",
      R"(   - Fix: Use DataLoader\(num\\_workers&gt;0, pin\\_memory=True\) and prefetch\.)",
      R"(2\. 🟡 \*\*warning\*\* `fp32_gemm_no_amp` .*est\. saving \*\*18\.[23]%\*\* of step time)",
      R"(3\. 🔵 \*\*info\*\* `small_kernels` Many short kernels — est\. saving \*\*1\.5%\*\* of step time)",
      R"(### Critical path)",
      R"(Critical path of the 6 steps \(mean 108\.0 ms per step\): GPU compute 55\.0%, Host-bound \(recorded ops\) 30\.0%, Unrecorded host time 10\.0%, Kernel-launch delay 2\.0%\.)",
      R"(\| 55\.0% \| 356\.4 ms \| GPU compute \|)",
      R"(\| 2\.0% \| 13\.0 ms \| Sync wait \|)",  // 12,960 µs at three significant digits
      R"(\| 1\.0% \| 6\.48 ms \| GPU memory ops \|)",
      R"(_Replaying the run's dependency graph reproduces every step within 0\.40% \(worst: step 7\); every saving in this report is a replay of its fix on this graph\._)",
      R"(### Top kernels by GPU time)",
      R"(\| 40\.0% \| 50\.0 ms \| 100 \| conv \| fp32 \| no \| `volta_scudnn_128x64_relu_interior_nn_v1` \|)",
      R"(\| 20\.0% \| 25\.0 ms \| 200 \| elementwise \| fp32 \| no \| `vectorized_elementwise_kernel<CUDAFunctor_add<float>>` \|)",
      R"(### Input diagnostics)",
      // The fixture's descriptions; the code is a code span, the rest plain text.
      R"(- `negative_duration`: 1 — end before start; read as zero-length)",
      R"(- `unsorted_events`: 3 — events out of time order; sorted)",
  };
  EXPECT_EQ(MatchInOrder(md, expected), "") << md;
  EXPECT_EQ(md.find("Ranks ("), std::string::npos);  // one rank: no rank table
}

TEST(MarkdownReport, PluralsAreRight) {
  json r = testing::MakeReportJson();
  json f = r["findings"][2];
  for (int i = 0; i < 3; ++i) r["findings"].push_back(f);  // 6 findings, 5 shown
  EXPECT_THAT(RenderMarkdown(r), ::testing::HasSubstr("_1 more finding in the JSON and HTML reports._"));
  r["findings"].push_back(f);
  EXPECT_THAT(RenderMarkdown(r), ::testing::HasSubstr("_2 more findings in the JSON and HTML reports._"));
}

TEST(MarkdownReport, TablesSurviveNastyNames) {
  json r = testing::MakeReportJson();
  r["kernels"]["top"][0]["name"] = "void k<a|b>(x*, y_z) `tick` [link](http://x) <script>";
  r["checklist"][0]["evidence"] = "a | b\nc <b>bold</b>";
  r["findings"][0]["id"] = "odd`id|x";
  std::string md = RenderMarkdown(r);
  EXPECT_THAT(GfmProblems(md), ::testing::IsEmpty()) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("a \\| b c &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(md.find("``odd`id|x``"), std::string::npos) << md;  // outside a table: no \|
}

// The measured-kernel section (the report's `ncu` block) with names that break tables and HTML.
TEST(MarkdownReport, MeasuredKernelsTableSurvivesNastyNames) {
  json r = testing::MakeReportJson();
  r["ncu"] = {{"source", "Nsight Compute"}, {"mode", "joined"}, {"file", "run.csv"}, {"shape", "long"},
              {"weighting", "trace kernel time"},
              {"join", {{"trace_kernels", 10}, {"trace_kernels_matched", 8}, {"kernel_time_covered_pct", 91.5}}},
              {"kernels", json::array({{{"name", "void k<a|b>(x*) `tick` <script>"}, {"weight_us", 120.0}, {"bound", "latency"},
                                        {"sm_throughput_pct", 20.0}, {"memory_throughput_pct", nullptr},
                                        {"dram_throughput_pct", 12.5}, {"l2_hit_rate_pct", nullptr},
                                        {"achieved_occupancy_pct", 30.0},
                                        {"stall_reasons", json::array({{{"reason", "long_scoreboard"}, {"share_pct", 61.0}}})}}})}};
  const std::string md = RenderMarkdown(r);
  EXPECT_THAT(GfmProblems(md), ::testing::IsEmpty()) << md;
  EXPECT_THAT(md, ::testing::HasSubstr("### Measured kernels (Nsight Compute)"));
  EXPECT_THAT(md, ::testing::HasSubstr("Joined to 8 of 10 trace kernels: 91.5% of kernel time covered."));
  EXPECT_THAT(md, ::testing::HasSubstr("| 120 µs | latency | 20.0% | n/a | 12.5% | n/a | 30.0% | long\\_scoreboard 61% |"));
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  const std::string html = RenderHtml(r);
  EXPECT_THAT(html, ::testing::HasSubstr("<section id=\"ncu\">"));
  EXPECT_EQ(html.find("<script>\""), std::string::npos);
  EXPECT_THAT(html, ::testing::HasSubstr("&lt;script&gt;"));
  TerminalOptions t;
  t.width = 100;
  EXPECT_THAT(RenderTerminalSummary(r, t), ::testing::HasSubstr("Measured kernels (Nsight Compute)"));
}

TEST(MarkdownReport, ManyRanksAreCapped) {
  std::string md = RenderMarkdown(testing::MakeReportJson(100, 6));
  EXPECT_THAT(GfmProblems(md), ::testing::IsEmpty());
  EXPECT_EQ(MatchInOrder(md, {R"(## ampscope: 100 ranks: rank0\.pt\.trace\.json\.gz, rank1\.pt\.trace\.json\.gz, .*)",
                              R"(### Ranks \(100\), slowest first)",
                              R"(\| Rank \| Step mean \| GPU busy \| host\\_wait \| Tensor Core \| Device \| File \|)",
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

json ReportOf(const std::string& shared_trace) {
  std::vector<Trace> traces;
  StatusOr<Trace> t = ReadKinetoTrace(testing::SharedPath(shared_trace));
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!t.ok()) return json();
  traces.push_back(std::move(t).value());
  JobAnalysis job = AnalyzeJob(traces, AnalysisOptions{});
  return BuildJsonReport(job, AnalysisOptions{});
}

TEST(MarkdownReport, RealTracesFollowTheRules) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  for (const char* trace : {"traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz", "traces/kineto/hta/nccl_data.json.gz",
                            "traces/kineto/hta/a100_16rank_recsys_rank0.json.gz"}) {
    std::string md = RenderMarkdown(ReportOf(trace));
    EXPECT_THAT(GfmProblems(md), ::testing::IsEmpty()) << trace << "\n" << md;
    // No absolute trace time reaches the reader (10+ digits with a time unit; the trace's file
    // name may well have an epoch in it).
    std::smatch m;
    EXPECT_FALSE(std::regex_search(md, m, std::regex(R"(\d{10,}(\.\d+)? ?(ms|us|µs)\b)"))) << trace << ": " << m.str();
  }
}

TEST(MarkdownReport, SnapshotOfTheResNet50Trace) {
  AMPSCOPE_REQUIRE_INPUT(testing::HaveShared(), "shared/ not available (configure with -DAMPSCOPE_SHARED_DIR=... or put shared/ next to the checkout)");
  json report = ReportOf("traces/kineto/tb_plugin/worker0.1623143089861.pt.trace.json.gz");
  std::string md = RenderMarkdown(report);
  // The count is the reader's (no other tool counts zero-length events); the line must say
  // what the code means.
  ASSERT_TRUE(report["diagnostics"]["counters"].contains("zero_duration"));
  const std::string zero = std::to_string(report["diagnostics"]["counters"]["zero_duration"].get<int64_t>());
  // What the line says the code means is the report's description (the code table's text,
  // copied by reports/json_report.cc).
  std::string description;
  for (const json& m : report["diagnostics"]["messages"])
    if (m.value("code", "") == "zero_duration" && m["description"].is_string()) description = m["description"];
  ASSERT_FALSE(description.empty());
  // Numbers the TensorBoard plugin computed on this trace (shared/traces/README.md): 6 steps
  // #5..#10, mean step 177592 us, GPU utilization (kernel busy) 55.51%, FP32 only, V100;
  // DataLoader 33.37% of the step (the data_pipeline value, "% of step").
  std::vector<std::string> expected = {
      R"(## ampscope: worker0\.1623143089861\.pt\.trace\.json\.gz \(kineto\))",
      R"(\*\*Tesla V100-DGXS-32GB \(cc 7\.0\)\*\* · 6 steps \(profiler\\_step\) · step time \*\*177\.[56] ms\*\* .*)",
      R"(\| GPU busy \| \*\*[0-9]+\.[0-9]%\*\* \|)",
      R"(\| &nbsp;&nbsp;kernels \| 55\.[45]% \|)",
      R"(\| precision mix \(kernel time\) \| fp32 [0-9.]+%.*)",
      R"(### Five-dimension matrix)",
      R"(\| Compute intensity \| .* \| Tensor Core utilization: .*)",
      R"(### Checklist)",
      // A failing item shows the measure that failed, never "fail 0.0%": AMP is not in use, so the
      // Tensor-Core-eligible work is all fp32 (issue 32; the evidence keeps the 0.0% share).
      R"(\| Tensor Core utilization \| 🔴 fail \| 100\.0% in fp32/TF32 \| .*0\.0% of kernel time in Tensor Core kernels.*)",
      R"(\| Data pipeline \| 🔴 fail \| 33\.4% of step \| .*)",
      R"(### Top findings \([0-9]+ total\))",
      R"(.*`dataloader_bottleneck`.*)",
      R"(### Top kernels by GPU time)",
      R"(### Input diagnostics)",
      "- `zero_duration`: " + zero + " \xE2\x80\x94 " + RegexEscape(description),
  };
  EXPECT_EQ(MatchInOrder(md, expected), "") << md;
}

}  // namespace
}  // namespace markdown_report_test
}  // namespace ampscope::render
