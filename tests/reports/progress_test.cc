// The progress bar `ampscope analyze` draws on stderr for long inputs.
#include "reports/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace ampscope {
namespace progress_test {
namespace {

// Columns of a UTF-8 string (code points): the bar uses no wide characters.
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class FakeClock {
 public:
  ProgressBar::Clock::time_point Now() const { return now_; }
  void Advance(int ms) { now_ += std::chrono::milliseconds(ms); }

 private:
  ProgressBar::Clock::time_point now_{};
};

std::string Contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  return s;
}

TEST(ProgressBar, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  FakeClock clock;
  {
    ProgressBar bar("reading", 100, f, /*is_tty=*/false, [&] { return clock.Now(); });
    clock.Advance(5000);
    bar.Update(50);
    bar.Finish();
    EXPECT_FALSE(bar.drawn());
  }
  EXPECT_EQ(Contents(f), "");
  std::fclose(f);
}

TEST(ProgressBar, SilentForTheFirstSecond) {
  std::FILE* f = std::tmpfile();
  FakeClock clock;
  ProgressBar bar("reading", 100, f, true, [&] { return clock.Now(); });
  clock.Advance(900);
  bar.Update(90);
  bar.Finish();
  EXPECT_EQ(Contents(f), "");
  std::fclose(f);
}

TEST(ProgressBar, DrawsThrottlesAndClears) {
  std::FILE* f = std::tmpfile();
  FakeClock clock;
  ProgressBar bar("reading trace.json", 200, f, true, [&] { return clock.Now(); }, 120);
  clock.Advance(1500);
  bar.Update(50);  // 25% after 1.5 s: eta 4.5 s
  EXPECT_TRUE(bar.drawn());
  std::string first = Contents(f);
  EXPECT_EQ(first.rfind("\rreading trace.json [", 0), 0u) << first;
  EXPECT_THAT(first, ::testing::HasSubstr("]  25%  1.5s  eta 4.5s\x1b[K"));
  EXPECT_THAT(first, ::testing::HasSubstr("[##########..............................]"));  // 10 of 40 cells
  clock.Advance(50);
  bar.Update(60);  // within 100 ms of the last draw: skipped
  EXPECT_EQ(Contents(f), first);
  clock.Advance(150);
  bar.Update(200);
  std::string second = Contents(f);
  EXPECT_THAT(second, ::testing::HasSubstr("########] 100%  1.7s\x1b[K"));
  bar.Finish();
  EXPECT_THAT(Contents(f), ::testing::EndsWith("\r\x1b[K"));
  bar.Finish();  // idempotent
  EXPECT_LE(Columns(first) - 4, 119u);  // minus \r and the erase code
  std::fclose(f);
}

}  // namespace
}  // namespace progress_test
}  // namespace ampscope
