// Terminal summary (alignment, colour only when asked, NO_COLOR).
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
namespace {

using nlohmann::json;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Display column where `token` starts in `line` (code points before it), or -1.
int Column(const std::string& line, const std::string& token) {
  size_t at = line.find(token);
  return at == std::string::npos ? -1 : static_cast<int>(DisplayWidth(line.substr(0, at)));
}

// The lines of the table under `heading`, up to the next blank line.
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

TEST(TerminalSummary, TablesAreAligned) {
  std::string s = RenderTerminalSummary(testing::MakeReportJson(), false);
  std::vector<std::string> checklist = Section(s, "Optimization checklist");
  ASSERT_EQ(checklist.size(), 8u) << s;  // header + 7 items
  // STATUS, THRESHOLD and EVIDENCE start at the same column on every row (the threshold
  // "≥70%" is multi-byte UTF-8: columns are code points, not bytes).
  int status = Column(checklist[0], "STATUS"), threshold = Column(checklist[0], "THRESHOLD"),
      evidence = Column(checklist[0], "EVIDENCE");
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"FAIL", "≥70%"}, {"FAIL", "≥80%"}, {"N/A", "fp16 only"}, {"WARN", "< 5% of step"},
      {"FAIL", "< 5% of step"}, {"PASS", "< 10%"}, {"UNKNOWN", "no churn"}};
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& line = checklist[i + 1];
    EXPECT_EQ(Column(line, rows[i].first), status) << line;
    EXPECT_EQ(Column(line, rows[i].second), threshold) << line;
    EXPECT_GT(static_cast<int>(DisplayWidth(line)), evidence) << line;
  }
  // Numbers are right-aligned: the VALUE column's cells end at the same column.
  std::vector<std::string> kernels = Section(s, "Top kernels by GPU time");
  ASSERT_GE(kernels.size(), 3u);
  int end = Column(kernels[0], "TIME") + 4;
  EXPECT_EQ(Column(kernels[1], "40.0%") + 5, end);
  EXPECT_EQ(Column(kernels[2], "20.0%") + 5, end);
}

TEST(TerminalSummary, ColourOnlyWhenAsked) {
  json r = testing::MakeReportJson();
  std::string plain = RenderTerminalSummary(r, false);
  std::string colour = RenderTerminalSummary(r, true);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(colour.find("\x1b[31mFAIL\x1b[0m"), std::string::npos);      // red
  EXPECT_NE(colour.find("\x1b[32mPASS\x1b[0m"), std::string::npos);      // green
  EXPECT_NE(colour.find("\x1b[33mWARN\x1b[0m"), std::string::npos);      // yellow
  EXPECT_NE(colour.find("\x1b[31m[critical]\x1b[0m"), std::string::npos);
  // Colour codes never change the layout: strip them and the text is the plain one.
  std::string stripped;
  for (size_t i = 0; i < colour.size(); ++i) {
    if (colour[i] == '\x1b') {
      while (i < colour.size() && colour[i] != 'm') ++i;
      continue;
    }
    stripped.push_back(colour[i]);
  }
  EXPECT_EQ(stripped, plain);
}

TEST(TerminalSummary, ContentAndCaps) {
  json r = testing::MakeReportJson(40, 6);
  r["kernels"]["top"][0]["name"] = std::string(300, 'k');
  std::string s = RenderTerminalSummary(r, false);
  EXPECT_THAT(s, ::testing::HasSubstr("Device    NVIDIA A100-SXM4-80GB (cc 8.0)"));
  EXPECT_THAT(s, ::testing::HasSubstr("Step time mean 108.0 ms   median 105.0 ms   p90 120.0 ms"));
  EXPECT_THAT(s, ::testing::HasSubstr("1. [critical] data_loader_bottleneck  (est. saving 27.5% of step time)"));
  EXPECT_THAT(s, ::testing::HasSubstr("fix: Use DataLoader(num_workers>0, pin_memory=True) and prefetch."));
  EXPECT_THAT(s, ::testing::HasSubstr("Ranks (40)"));
  EXPECT_THAT(s, ::testing::HasSubstr("... 24 more ranks (slowest shown first)"));
  // The long kernel name is cut to 60 columns.
  EXPECT_THAT(s, ::testing::HasSubstr(std::string(59, 'k') + "\xE2\x80\xA6"));
  EXPECT_EQ(s.find(std::string(61, 'k')), std::string::npos);
  // Missing numbers are n/a, not 0.
  r["gpu"]["busy_pct"] = nullptr;
  EXPECT_THAT(RenderTerminalSummary(r, false), ::testing::ContainsRegex("GPU busy +n/a"));
}

TEST(TerminalSummary, NoColorAndNonTerminals) {
  // A regular file is never a terminal.
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(TerminalWantsColor(f));
  std::fclose(f);
  // A pseudo-terminal is, unless NO_COLOR is set (no-color.org) or TERM=dumb.
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) GTEST_SKIP() << "no pseudo-terminals here";
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
}  // namespace ampscope::render
