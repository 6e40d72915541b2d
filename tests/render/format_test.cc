// The formatting module: units, key suffixes, display width, wrapping, the fitted table, the
// terminal width, times relative to the steps, diagnostic descriptions. Expected values are
// worked out by hand from the rules in render/format.h (the arithmetic is in the comments).
#include "render/format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "render/report_view.h"
#include "render/terminal.h"
#include "render/text_table.h"
#include "report_json_fixture.h"

namespace ampscope::render {
namespace format_test {
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Sets an environment variable for the scope of a test and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1); else unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(Format, NumbersCarryUnitsAndNeverExponents) {
  EXPECT_EQ(Pct(33.37), "33.4%");
  EXPECT_EQ(Pct(std::nullopt), "n/a");
  EXPECT_EQ(DurationUs(2.5), "2.50 µs");
  EXPECT_EQ(DurationUs(850), "850 µs");
  EXPECT_EQ(DurationUs(59261.833), "59.3 ms");   // 59.261833 ms
  EXPECT_EQ(DurationUs(177592), "177.6 ms");     // tb_plugin's mean step, 177592 µs
  EXPECT_EQ(DurationUs(1.25e6), "1.25 s");
  EXPECT_EQ(Bytes(115607040), "115.6 MB");       // 115607040 / 10^6
  EXPECT_EQ(Bytes(512), "512 B");
  EXPECT_EQ(Bytes(1.2e9), "1.2 GB");
  EXPECT_EQ(Count(1462), "1462");
  EXPECT_EQ(Count(6.41), "6.41");
  EXPECT_EQ(Count(1000000), "1,000,000");
  EXPECT_EQ(Count(0.00001234), "0.0000123");
  EXPECT_EQ(WithUnit(1.62e15, "FLOP"), "1.62 PFLOP");  // 1.62e15 = 1.62 * 1000^5
  EXPECT_EQ(WithUnit(6.41, "calls/step"), "6.41 calls/step");
  EXPECT_EQ(WithUnit(19267840, "bytes/step"), "19.3 MB/step");
  EXPECT_EQ(WithUnit(33.37, "% of step"), "33.4% of step");
  EXPECT_EQ(WithUnit(10.06, "GB/s"), "10.06 GB/s");
  // No exponent for any magnitude.
  static const std::regex kExponent(R"(\d[eE][+-]?\d)");
  for (double v : {1e-9, 3e-7, 1e7, 1.62e15, 1e20, 123456789.0})
    for (const std::string& s : {Count(v), DurationUs(v), Bytes(v), WithUnit(v, "FLOP"), Pct(v)})
      EXPECT_FALSE(std::regex_search(s, kExponent)) << s;
}

TEST(Format, UnitsFromKeySuffixes) {
  // The suffix rules of UnitOfKey (render/format.h).
  EXPECT_EQ(FormatKeyed("exposed_per_step_us", 59261.833), "59.3 ms");  // "per step" is in the label
  EXPECT_EQ(FormatKeyed("exposed_us_per_step", 13186.489), "13.2 ms/step");
  EXPECT_EQ(FormatKeyed("dataloader_pct_of_step", 39.02), "39.0% of step");
  EXPECT_EQ(FormatKeyed("bytes", 115607040), "115.6 MB");
  EXPECT_EQ(FormatKeyed("h2d_bytes_per_step", 19267840), "19.3 MB/step");
  EXPECT_EQ(FormatKeyed("pinned_bandwidth_gbs", 16), "16 GB/s");
  EXPECT_EQ(FormatKeyed("achieved_tflops", 98.5), "98.5 TFLOP/s");
  EXPECT_EQ(FormatKeyed("chains_per_step", 46), "46/step");
  EXPECT_EQ(FormatKeyed("count", 162), "162");
  EXPECT_EQ(FormatKeyed("gpu_busy_pct", 56.64), "56.6%");
  // A report's evidence_units entry wins over the suffix.
  EXPECT_EQ(FormatKeyed("gpu_busy_pct", 56.64, "ms"), "56.6 ms");
  EXPECT_TRUE(UnitOfKey("start_us").time_point);
  EXPECT_TRUE(UnitOfKey("chain_end_us").time_point);
  EXPECT_FALSE(UnitOfKey("time_us").time_point);
  EXPECT_EQ(UnitOfKey("layout_transform_pct_of_conv").of, "conv");
}

TEST(Format, HumanNames) {
  EXPECT_EQ(HumanKey("tensor_core_utilization_pct"), "Tensor Core utilization");
  EXPECT_EQ(HumanKey("kernels_under_10us_pct"), "Kernels under 10 µs");
  EXPECT_EQ(HumanKey("gpu_busy_pct"), "GPU busy");
  EXPECT_EQ(HumanKey("h2d_bytes_per_step"), "H2D bytes per step");
  EXPECT_EQ(HumanKey("memory_bound_kernel_time_pct"), "Memory-bound kernel time");
  EXPECT_EQ(ChecklistTitle("grad_scaler"), "GradScaler");
  EXPECT_EQ(Plural(1, "more finding"), "1 more finding");
  EXPECT_EQ(Plural(2, "more finding"), "2 more findings");
}

// DisplayWidth itself is base/'s (tests/base/strings_test.cc); Truncate cuts by it.
TEST(Format, Truncate) {
  EXPECT_EQ(Truncate("abcdef", 4), "abc\xE2\x80\xA6");
  EXPECT_EQ(Truncate("ab", 4), "ab");
  EXPECT_EQ(Truncate("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 4), "\xE6\x97\xA5\xE2\x80\xA6");  // 日本語 -> 日…
}

TEST(Format, WrapAtWordsAndBreakLongTokens) {
  EXPECT_EQ(Wrap("the quick brown fox jumps", 10), (std::vector<std::string>{"the quick", "brown fox", "jumps"}));
  EXPECT_EQ(Wrap("", 10), (std::vector<std::string>{""}));
  EXPECT_EQ(Wrap("a\nb", 10), (std::vector<std::string>{"a", "b"}));
  // A kernel name wider than the line breaks after "::" / "<" / ",", never inside "::".
  std::vector<std::string> k = Wrap("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", 30);
  for (const std::string& l : k) EXPECT_LE(DisplayWidth(l), 30u) << l;
  // Nothing is lost but the spaces where lines break.
  auto no_spaces = [](std::string s) { s.erase(std::remove(s.begin(), s.end(), ' '), s.end()); return s; };
  std::string joined;
  for (const std::string& l : k) joined += l;
  EXPECT_EQ(no_spaces(joined), no_spaces("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"));
  for (size_t i = 0; i + 1 < k.size(); ++i) EXPECT_FALSE(k[i].back() == ':' && k[i + 1].front() == ':') << k[i];
  // No break point at all: a hard cut at the width.
  EXPECT_EQ(Wrap(std::string(25, 'x'), 10), (std::vector<std::string>{std::string(10, 'x'), std::string(10, 'x'), std::string(5, 'x')}));
  // Leading spaces indent every line of the paragraph.
  EXPECT_EQ(Wrap("  aaa bbb ccc", 9), (std::vector<std::string>{"  aaa bbb", "  ccc"}));
  EXPECT_EQ(WrapParagraph("one two three four", 14, "fix: ", "     "), "fix: one two\n     three\n     four\n");
  // No room for the hanging indent: the prefix wraps with the text.
  EXPECT_EQ(WrapParagraph("one two three four", 12, "fix: ", "     "), "fix: one two\nthree four\n");
}

TEST(TextTable, NaturalWidthsWhenItFits) {
  TextTable t({"name", "value"}, {TextTable::Align::kLeft, TextTable::Align::kRight});
  t.AddRow({"a", "1"});
  t.AddRow({"bbb", "22"});
  TableStyle style;
  style.rule = true;
  EXPECT_EQ(t.Render(style), "name  value\n----  -----\na         1\nbbb      22\n");
}

TEST(TextTable, ShrinksWrapsAndFallsBackToBlocks) {
  using Column = TextTable::Column;
  Column name{"NAME", TextTable::Align::kLeft, TextTable::Overflow::kWrap, 8, true, 1};
  Column status{"STATUS"};
  Column text{"EVIDENCE", TextTable::Align::kLeft, TextTable::Overflow::kWrap, 12};
  TextTable t({name, status, text});
  t.AddRow({"Tensor Core utilization", "FAIL",
            "0.0% of kernel time in Tensor Core kernels; Tensor-Core-eligible work 67.6% of kernel time"});
  t.AddRow({"GradScaler", "N/A", "no fp16 compute"});
  for (size_t width = 20; width <= 160; ++width) {
    TableStyle style;
    style.width = width;
    style.indent = "  ";
    std::string out = t.Render(style);
    for (const std::string& line : Lines(out)) ASSERT_LE(DisplayWidth(line), width) << width << ": " << line;
    // Every word no wider than the narrowest column (8) survives the fitting whole.
    for (const char* word : {"Tensor", "Core", "FAIL", "67.6%", "N/A", "fp16"})
      EXPECT_NE(out.find(word), std::string::npos) << width << " lost " << word << "\n" << out;
  }
  // Lower priority gives first: at 60 columns the evidence wraps and the name is whole.
  TableStyle style;
  style.width = 60;
  std::string at60 = t.Render(style);
  EXPECT_NE(at60.find("Tensor Core utilization"), std::string::npos) << at60;
  EXPECT_NE(at60.find("GradScaler"), std::string::npos) << at60;
  // Too narrow for the columns' minimums: blocks, the head on the first line.
  style.width = 24;
  std::vector<std::string> blocks = Lines(t.Render(style));
  EXPECT_EQ(blocks[0], "Tensor Core utilization");
  EXPECT_EQ(blocks[1], "    STATUS: FAIL");
}

TEST(Terminal, WidthFromTheTtyThenColumnsThenDefault) {
  {
    ScopedEnv columns("COLUMNS", nullptr);
    EXPECT_EQ(TerminalWidth(-1), kDefaultWidth);
  }
  {
    ScopedEnv columns("COLUMNS", "132");
    EXPECT_EQ(TerminalWidth(-1), 132u);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    EXPECT_EQ(TerminalWidth(fds[1]), 132u);  // a pipe is not a terminal
    close(fds[0]);
    close(fds[1]);
  }
  for (const char* bad : {"", "abc", "80x", "-5", "0"}) {
    ScopedEnv columns("COLUMNS", bad);
    EXPECT_EQ(TerminalWidth(-1), kDefaultWidth) << bad;
  }
  {
    ScopedEnv columns("COLUMNS", "5");
    EXPECT_EQ(TerminalWidth(-1), kMinWidth);
  }
  // A pseudo-terminal with its window size set: the size wins over COLUMNS.
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  struct winsize ws {};
  ws.ws_col = 77;
  ws.ws_row = 30;
  ASSERT_EQ(ioctl(master, TIOCSWINSZ, &ws), 0);
  {
    ScopedEnv columns("COLUMNS", "55");
    EXPECT_EQ(TerminalWidth(slave), 77u);
  }
  // A terminal that reports no size (0 columns): COLUMNS, then the default.
  ws.ws_col = 0;
  ASSERT_EQ(ioctl(master, TIOCSWINSZ, &ws), 0);
  {
    ScopedEnv columns("COLUMNS", "55");
    EXPECT_EQ(TerminalWidth(slave), 55u);
  }
  close(slave);
  close(master);
}

TEST(StepClock, TimesRelativeToTheSteps) {
  // report_json_fixture.cc: step 5 = [1000, 101000) µs, step 6 = [101000, 211000) µs (110 ms).
  const StepClock clock(testing::MakeReportJson());
  EXPECT_EQ(clock.At(1000), "step 5 +0 µs");
  EXPECT_EQ(clock.At(13300), "step 5 +12.3 ms");
  EXPECT_EQ(clock.At(101000 + 500), "step 6 +500 µs");
  EXPECT_EQ(clock.At(0), "1.00 ms before step 5");
  EXPECT_EQ(clock.Range(13300, 15000), "step 5 +12.3 ms to +14.0 ms");
  EXPECT_EQ(clock.Range(100000, 101000), "step 5 +99.0 ms to +100.0 ms");  // ends where step 6 starts
  EXPECT_EQ(clock.Range(100000, 102000), "step 5 +99.0 ms to step 6 +1.00 ms");
  EXPECT_EQ(RelativeTimes("the largest is on stream 7 at 0000013.3 ms (3 kernels)", clock),
            "the largest is on stream 7 in step 5 at +12.3 ms (3 kernels)");
  // Far from the steps, or without 7 digits: left alone.
  EXPECT_EQ(RelativeTimes("at 1623142623928.196 ms", clock), "at 1623142623928.196 ms");
  EXPECT_EQ(RelativeTimes("idles 0.5 ms per step", clock), "idles 0.5 ms per step");
  // The tb_plugin trace's own clock: the text of its unfused_elementwise_chains finding and
  // its step 7 window (ProfilerStep#7 starts at 1623142623823273 µs in the trace).
  json r;
  r["steps"]["windows"] = json::array({{{"number", 7}, {"start_us", 1623142623823273.0}, {"end_us", 1623142624003006.0}}});
  EXPECT_EQ(RelativeTimes("164 kernels on stream 7 at 1623142623928.196 ms (aten::fill_)", StepClock(r)),
            "164 kernels on stream 7 in step 7 at +104.9 ms (aten::fill_)");  // 928196 - 823273 = 104923 µs
}

// A job of two ranks on two hosts whose clocks differ by 469 s (hand-built: ranks 3 and 11, one
// ProfilerStep #42 each). A finding whose numbers are rank 11's is said against rank 11's step;
// against the job's steps (rank 3's clock) the same time read "+469 s after step 42".
TEST(StepClock, AJobFindingUsesItsOwnRanksSteps) {
  json r;
  r["job"]["ranks"] = 2;
  r["job"]["definitions"]["gpu"] = "window-weighted mean over ranks";
  r["steps"]["windows"] = json::array({{{"number", 42}, {"start_us", 5000.0}, {"end_us", 25000.0}}});
  r["ranks"] = json::array(
      {{{"rank", 3}, {"steps", {{"windows", json::array({{{"number", 42}, {"start_us", 5000.0}, {"end_us", 25000.0}}})}}}},
       {{"rank", 11},
        {"steps", {{"windows", json::array({{{"number", 42}, {"start_us", 469005000.0}, {"end_us", 469020000.0}}})}}}}});
  const json finding = {{"id", "x"}, {"evidence", {{"numbers_of_rank", 11}}}};
  const StepClock job_clock(r);
  const double at = 469005000.0 + 2000;  // rank 11's step 42 + 2 ms
  EXPECT_EQ(FindingClock(r, reports::ReadFinding(finding), job_clock).At(at), "step 42 +2.00 ms");
  EXPECT_NE(job_clock.At(at).find("after step 42"), std::string::npos) << job_clock.At(at);
  // No rank named, or a rank the report does not hold: the report's steps.
  EXPECT_EQ(FindingClock(r, reports::ReadFinding(json{{"id", "y"}}), job_clock).At(7000), "step 42 +2.00 ms");
  EXPECT_EQ(FindingClock(r, reports::ReadFinding(json{{"evidence", {{"numbers_of_rank", 5}}}}), job_clock).At(7000), "step 42 +2.00 ms");
  // What a job-level number is, from the report's own definitions; nothing for one rank.
  EXPECT_EQ(JobDefinition(r, "gpu"), "window-weighted mean over ranks");
  EXPECT_EQ(JobDefinition(r, "matrix"), "");
  json one = r;
  one["job"]["ranks"] = 1;
  EXPECT_EQ(JobDefinition(one, "gpu"), "");
  EXPECT_EQ(OfRank(finding, "/evidence/numbers_of_rank"), " (rank 11)");
  EXPECT_EQ(OfRank(json::object(), "/evidence/numbers_of_rank"), "");
  // A job's dimension names its rank beside a value; a headline without a value is nobody's.
  const json dim = {{"headline", {{"value", 42.5}, {"unit", "%"}}}, {"metrics", {{"numbers_of_rank", 3}}}};
  auto cell = [](const json& d) { return DimensionValueCell(reports::ReadMatrixView(json{{"matrix", {{"x", d}}}}).at(0)); };
  EXPECT_EQ(cell(dim), "42.5% (rank 3)");
  json no_value = dim;
  no_value["headline"]["value"] = nullptr;
  EXPECT_EQ(cell(no_value), "n/a");
  no_value["headline"].erase("value");
  EXPECT_EQ(cell(no_value), "n/a");
}

TEST(Diagnostics, DescriptionsComeFromTheReport) {
  // The report's messages[] entry says what the code means (reports/json_report.cc copies it
  // from base/'s code table); render only shows it.
  reports::DiagnosticMessage m;
  m.code = "zero_duration";
  m.description = "Events of zero length, read as instants";
  EXPECT_EQ(DiagnosticText("zero_duration", 7, m), "zero_duration: 7 \xE2\x80\x94 Events of zero length, read as instants");
  EXPECT_EQ(DiagnosticText("zero_duration", -1, m), "zero_duration \xE2\x80\x94 Events of zero length, read as instants");
  // A code the table does not know (description null): the first message.
  reports::DiagnosticMessage u;
  u.code = "brand_new";
  u.message = "something odd at byte 12";
  EXPECT_EQ(DiagnosticText("brand_new", 2, u), "brand_new: 2 (first: something odd at byte 12)");
  // Nothing but a counter.
  EXPECT_EQ(DiagnosticText("zero_duration", 1479, reports::DiagnosticMessage{}), "zero_duration: 1479");
  // From a report: one line per code, its count the counters' total, the first message's text.
  const json report = {{"diagnostics",
                        {{"counters", {{"zero_duration", 9}, {"only_counted", 2}}},
                         {"messages",
                          {{{"code", "zero_duration"}, {"severity", "info"}, {"count", 4}, {"description", nullptr},
                            {"message", "first at byte 3"}},
                           {{"code", "zero_duration"}, {"count", 5}},
                           {{"code", 7}}}}}}};
  const std::vector<DiagnosticEntry> entries = Diagnostics(report);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].code, "zero_duration");
  EXPECT_EQ(entries[0].severity, "info");
  EXPECT_EQ(entries[0].count, 9);
  EXPECT_EQ(entries[0].text, "zero_duration: 9 (first: first at byte 3)");
  EXPECT_EQ(entries[1].text, "only_counted: 2");
}

}  // namespace
}  // namespace format_test
}  // namespace ampscope::render
