// Terminal summary: it fits the width it is given, tables stay aligned, every value has its
// unit, colour only when asked (NO_COLOR), thresholds only with --verbose.
#include "render/terminal_summary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fcntl.h>
#include <sstream>
#include <unistd.h>

#include "render/format.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace terminal_summary_test {
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Display column where `token` starts in `line`, or -1.
int Column(const std::string& line, const std::string& token) {
  size_t at = line.find(token);
  return at == std::string::npos ? -1 : static_cast<int>(DisplayWidth(line.substr(0, at)));
}

// The lines under `heading`, up to the next blank line.
std::vector<std::string> Section(const std::string& text, const std::string& heading) {
  std::vector<std::string> lines = Lines(text), out;
  bool in = false;
  for (const std::string& l : lines) {
    if (l == heading) {
      in = true;
      continue;
    }
    if (in && l.empty()) break;
    if (in) out.push_back(l);
  }
  return out;
}

std::string Plain(const json& r, size_t width = 100, bool verbose = false) {
  TerminalOptions o;
  o.width = width;
  o.verbose = verbose;
  return RenderTerminalSummary(r, o);
}

std::string Strip(const std::string& coloured) {
  std::string out;
  for (size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\x1b') {
      while (i < coloured.size() && coloured[i] != 'm') ++i;
      continue;
    }
    out.push_back(coloured[i]);
  }
  return out;
}

TEST(TerminalSummary, NoLineWiderThanTheWidth) {
  json r = testing::MakeReportJson(40, 6);
  r["kernels"]["top"][0]["name"] = std::string(300, 'k');  // one token wider than any terminal
  r["findings"][0]["recommendation"] = std::string(200, 'x') + " and then some words that wrap";
  for (size_t width : {20, 40, 60, 80, 100, 120, 200}) {
    for (bool verbose : {false, true}) {
      std::string s = Plain(r, width, verbose);
      for (const std::string& line : Lines(s)) EXPECT_LE(DisplayWidth(line), width) << "width " << width << ": " << line;
      // The same with colour: colour codes add bytes, never columns.
      TerminalOptions o;
      o.width = width;
      o.verbose = verbose;
      o.color = true;
      for (const std::string& line : Lines(RenderTerminalSummary(r, o))) EXPECT_LE(DisplayWidth(line), width) << line;
    }
  }
}

TEST(TerminalSummary, ChecklistIsAlignedAndValuesHaveUnits) {
  std::string s = Plain(testing::MakeReportJson(), 120);
  std::vector<std::string> checklist = Section(s, "Optimization checklist");
  ASSERT_GE(checklist.size(), 8u) << s;  // header + 7 items (+ the thresholds hint)
  int status = Column(checklist[0], "STATUS"), evidence = Column(checklist[0], "EVIDENCE");
  // Values of report_json_fixture.cc with the units the analyzers put in each item
  // (ChecklistUnit): 12.5 % of kernel time, 0 % in fp32/TF32, grad_scaler not applicable, 8.1 and
  // 30 % of step, distributed_sync 0 % of step, memory_fragmentation not measured.
  const std::vector<std::tuple<std::string, std::string, std::string>> rows = {
      {"Tensor Core utilization", "FAIL", "12.5% of kernel time"},
      {"Autocast coverage", "FAIL", "0.0% in fp32/TF32"},
      {"GradScaler", "N/A", "-"},
      {"Kernel fusion", "WARN", "8.1% of step"},
      {"Data pipeline", "FAIL", "30.0% of step"},
      {"Distributed sync", "PASS", "0.0% of step"},
      {"Memory fragmentation", "UNKNOWN", "not measured"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& line = checklist[i + 1];
    EXPECT_EQ(line.rfind("  " + std::get<0>(rows[i]), 0), 0u) << line;
    EXPECT_EQ(Column(line, std::get<1>(rows[i])), status) << line;
    // VALUE is right-aligned: it ends two columns before EVIDENCE starts.
    EXPECT_EQ(Column(line, std::get<2>(rows[i])) + static_cast<int>(DisplayWidth(std::get<2>(rows[i]))), evidence - 2) << line;
  }
  // An unknown item says how to know.
  EXPECT_THAT(s, ::testing::HasSubstr("the trace has no memory events; to know: record with"));
  // Thresholds are not in the table; --verbose lists them.
  EXPECT_EQ(checklist[0].find("THRESHOLD"), std::string::npos);
  EXPECT_THAT(s, ::testing::HasSubstr("Thresholds and sources: ampscope analyze --verbose"));
  std::string v = Plain(testing::MakeReportJson(), 120, true);
  EXPECT_THAT(v, ::testing::HasSubstr("    Tensor Core utilization: \xE2\x89\xA5" "70%"));
  EXPECT_THAT(v, ::testing::HasSubstr("    GradScaler: fp16 only"));
}

TEST(TerminalSummary, NumbersAreRightAlignedInTheKernelTable) {
  std::string s = Plain(testing::MakeReportJson(), 120);
  std::vector<std::string> kernels = Section(s, "Top kernels by GPU time");
  ASSERT_GE(kernels.size(), 3u);
  int end = Column(kernels[0], "TIME") + 4;
  EXPECT_EQ(Column(kernels[1], "40.0%") + 5, end);  // 40 / 1 (fixture)
  EXPECT_EQ(Column(kernels[2], "20.0%") + 5, end);  // 40 / 2
  // Short names: the fixture's second kernel is vectorized_elementwise_kernel<4,
  // CUDAFunctor_add<float>, Array<char*, 3>>(...).
  EXPECT_THAT(s, ::testing::HasSubstr("vectorized_elementwise_kernel<CUDAFunctor_add<float>>"));
  EXPECT_THAT(s, ::testing::HasSubstr("elementwise fp32"));
}

TEST(TerminalSummary, ColourOnlyWhenAsked) {
  json r = testing::MakeReportJson();
  TerminalOptions o;
  o.width = 120;
  std::string plain = RenderTerminalSummary(r, o);
  o.color = true;
  std::string colour = RenderTerminalSummary(r, o);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(colour.find("\x1b[31mFAIL\x1b[0m"), std::string::npos);  // red
  EXPECT_NE(colour.find("\x1b[32mPASS\x1b[0m"), std::string::npos);  // green
  EXPECT_NE(colour.find("\x1b[33mWARN\x1b[0m"), std::string::npos);  // yellow
  EXPECT_NE(colour.find("\x1b[31m[critical]\x1b[0m"), std::string::npos);
  // Colour codes never change the layout: strip them and the text is the plain one.
  EXPECT_EQ(Strip(colour), plain);
}

TEST(TerminalSummary, ContentAndCaps) {
  json r = testing::MakeReportJson(40, 6);
  std::string s = Plain(r, 120);
  EXPECT_THAT(s, ::testing::HasSubstr("  Device     NVIDIA A100-SXM4-80GB (cc 8.0)"));
  EXPECT_THAT(s, ::testing::HasSubstr("  Step time  mean 108.0 ms, median 105.0 ms, p90 120.0 ms"));
  EXPECT_THAT(s, ::testing::HasSubstr("1. [critical] data_loader_bottleneck (est. saving 27.5% of step time)"));
  EXPECT_THAT(s, ::testing::HasSubstr("fix: Use DataLoader(num_workers>0, pin_memory=True) and prefetch."));
  // Evidence with units from the key suffixes: host_wait_pct 30 -> 30.0%, dataloader_us_per_step
  // 32000 (no unit suffix at the end: "_us_per_step" is a unit then per step) -> 32.0 ms/step.
  EXPECT_THAT(s, ::testing::HasSubstr("Host wait: 30.0%"));
  EXPECT_THAT(s, ::testing::HasSubstr("DataLoader: 32.0 ms/step"));
  // A "pct_" prefix is a unit too: pct_kernels_under_10us 41 -> 41.0%.
  EXPECT_THAT(s, ::testing::HasSubstr("Kernels under 10 µs: 41.0%"));
  EXPECT_THAT(s, ::testing::HasSubstr("Ranks (40)"));
  EXPECT_THAT(s, ::testing::HasSubstr("24 more ranks (slowest shown first)"));
  // Matrix headlines by their human names, values with units.
  EXPECT_THAT(s, ::testing::ContainsRegex("Compute intensity +BAD +12.5% +Tensor Core kernel share, estimated"));
  EXPECT_THAT(s, ::testing::ContainsRegex("Instruction efficiency +GOOD +1462 kernels"));
  // Missing numbers are n/a, not 0.
  r["gpu"]["busy_pct"] = nullptr;
  EXPECT_THAT(Plain(r), ::testing::ContainsRegex("GPU busy +n/a"));
}

TEST(TerminalSummary, DiagnosticsSayWhatTheyMean) {
  json r = testing::MakeReportJson();
  r["diagnostics"]["counters"]["zero_duration"] = 1479;
  r["diagnostics"]["messages"].push_back({{"code", "zero_duration"}, {"severity", "info"},
                                          {"description", "events of zero duration"}, {"count", 1479}});
  std::string s = Plain(r, 100);
  std::vector<std::string> d = Section(s, "Input diagnostics");
  // Messages of report_json_fixture.cc plus the one above, each with the report's description.
  EXPECT_THAT(d, ::testing::Contains("  negative_duration: 1 \xE2\x80\x94 end before start; read as zero-length [data_loss]"));
  EXPECT_THAT(d, ::testing::Contains("  unsorted_events: 3 \xE2\x80\x94 events out of time order; sorted"));
  EXPECT_THAT(d, ::testing::Contains("  zero_duration: 1479 \xE2\x80\x94 events of zero duration"));
}

TEST(TerminalSummary, TimesAreRelativeToTheSteps) {
  json r = testing::MakeReportJson();
  // Fixture windows: step 5 starts at 1000 µs and lasts 100 ms, step 6 starts at 101000 µs.
  r["findings"][0]["recommendation"] = "the largest is 12 kernels on stream 7 at 113.3 ms here";
  r["findings"][0]["time_ranges_us"] = json::array({json::array({101000.0 + 12300, 101000.0 + 14000})});
  std::string s = Plain(r, 120);
  EXPECT_THAT(s, ::testing::HasSubstr("when: step 6 +12.3 ms to +14.0 ms"));
  // An epoch-like time in the analyzers' text becomes step-relative (here 7+ digits are needed:
  // "113.3 ms" is a duration and stays).
  EXPECT_THAT(s, ::testing::HasSubstr("at 113.3 ms here"));
  r["findings"][0]["recommendation"] = "on stream 7 at 0000113.3 ms";
  EXPECT_THAT(Plain(r, 120), ::testing::HasSubstr("on stream 7 in step 6 at +12.3 ms"));
}

TEST(TerminalSummary, RooflineShowsMfuAndTheTopOpsAgainstThePeak) {
  // The fixture's numbers (report_json_fixture.h): MFU 5%, peak 1000 TFLOP/s bf16.
  const json r = testing::WithHandRoofline(testing::MakeReportJson());
  for (size_t width : {80u, 120u}) {
    const std::string s = Plain(r, width);
    EXPECT_NE(s.find("MFU 5.0%: 50.0 TFLOP/s achieved of 1000 TFLOP/s bf16 dense peak (TEST)"), std::string::npos) << s;
    // mm: 100 TFLOP/s, 50% of attainable; the memory-only add in TB/s.
    EXPECT_THAT(s, ::testing::ContainsRegex("aten::mm +forward +bf16 +100 TFLOP/s +memory +50.0%"));
    EXPECT_THAT(s, ::testing::ContainsRegex("aten::add +forward +bf16 +1.50 TB/s +memory +75.0%"));
    for (const std::string& line : Lines(s)) EXPECT_LE(DisplayWidth(line), width) << line;
  }
  json none = testing::MakeReportJson();
  none["roofline"] = {{"available", false}, {"reason", "no op recorded its input shapes"}};
  EXPECT_NE(Plain(none, 100).find("No roofline: no op recorded its input shapes"), std::string::npos);
}

TEST(TerminalSummary, CriticalPathBreakdownAndReplay) {
  // The fixture's critical_path section (report_json_fixture.cc).
  for (size_t width : {80u, 120u}) {
    const std::string s = Plain(testing::MakeReportJson(), width);
    EXPECT_THAT(s, ::testing::ContainsRegex("55\\.0% +356\\.4 ms +GPU compute"));
    EXPECT_THAT(s, ::testing::ContainsRegex("30\\.0% +194\\.4 ms +Host-bound \\(recorded ops\\)"));
    EXPECT_NE(s.find("within 0.40%"), std::string::npos) << s;
    for (const std::string& line : Lines(s)) EXPECT_LE(DisplayWidth(line), width) << line;
  }
}

// What the path's shares hide is said under them: stream idle nothing recorded explains (from
// 10% of the path: the fixture's 1.5% says nothing, the 16-rank recsys trace's 80.3% does), and
// host waits for the GPU that no sync call records (critical_path.graph.hidden_waits).
TEST(TerminalSummary, CriticalPathSaysWhatItsSharesHide) {
  json r = testing::MakeReportJson();  // 1000 columns: each sentence on one line
  std::string s = Plain(r, 1000);
  EXPECT_EQ(s.find("no recorded launch"), std::string::npos) << s;
  EXPECT_EQ(s.find("no sync call records"), std::string::npos) << s;
  r["critical_path"]["gpu_gap_pct"] = 80.35;
  r["critical_path"]["graph"] = {{"nodes", 10}, {"edges", 12}, {"launch_latency_us", 5.0}, {"hidden_waits", 4}};
  s = Plain(r, 1000);
  EXPECT_NE(s.find("80.3% of the path is GPU idle before an activity that no recorded launch"), std::string::npos) << s;
  EXPECT_NE(s.find("4 host waits for GPU work that no sync call records"), std::string::npos) << s;
  r["critical_path"]["graph"]["hidden_waits"] = 1;
  EXPECT_NE(Plain(r, 1000).find("1 host wait for GPU work that no sync call records (a thread polling memory a kernel writes) is taken"),
            std::string::npos);
}

TEST(TerminalSummary, NoColorAndNonTerminals) {
  // A regular file is never a terminal.
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(TerminalWantsColor(f));
  std::fclose(f);
  // A pseudo-terminal is, unless NO_COLOR is set (no-color.org) or TERM=dumb.
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0) << "no pseudo-terminals here";
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  std::FILE* tty = std::fopen(ptsname(master), "w");
  ASSERT_NE(tty, nullptr);
  const char* old_no_color = std::getenv("NO_COLOR");
  const char* old_term = std::getenv("TERM");
  std::string saved_no_color = old_no_color ? old_no_color : "", saved_term = old_term ? old_term : "";
  unsetenv("NO_COLOR");
  setenv("TERM", "xterm-256color", 1);
  EXPECT_TRUE(TerminalWantsColor(tty));
  setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(TerminalWantsColor(tty));
  setenv("NO_COLOR", "", 1);  // empty means not set
  EXPECT_TRUE(TerminalWantsColor(tty));
  setenv("TERM", "dumb", 1);
  EXPECT_FALSE(TerminalWantsColor(tty));
  if (old_no_color) setenv("NO_COLOR", saved_no_color.c_str(), 1); else unsetenv("NO_COLOR");
  if (old_term) setenv("TERM", saved_term.c_str(), 1); else unsetenv("TERM");
  std::fclose(tty);
  close(master);
}

}  // namespace
}  // namespace terminal_summary_test
}  // namespace ampscope::render
