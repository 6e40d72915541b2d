#include "reports/progress.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace ampscope {

namespace {

bool StderrIsTerminal() {
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(fileno(stderr)) == 1;
}

int TerminalWidth() {
  struct winsize ws;
  if (ioctl(fileno(stderr), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  if (const char* cols = std::getenv("COLUMNS")) {
    int n = std::atoi(cols);
    if (n >= 20) return n;
  }
  return 80;
}

std::string Seconds(double s) {
  if (s < 60) return fmt::format("{:.1f}s", s);
  return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::string label, uint64_t total)
    : ProgressBar(std::move(label), total, stderr, StderrIsTerminal(), [] { return Clock::now(); },
                  StderrIsTerminal() ? TerminalWidth() : 80) {
  if (const char* ms = std::getenv("AMPSCOPE_PROGRESS_DELAY_MS"); ms != nullptr && *ms != '\0')
    delay_ = std::chrono::milliseconds(std::max(0L, std::strtol(ms, nullptr, 10)));
}

ProgressBar::ProgressBar(std::string label, uint64_t total, std::FILE* out, bool is_tty,
                         std::function<Clock::time_point()> now, int width)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      enabled_(is_tty && out != nullptr),
      now_(std::move(now)),
      width_(std::max(width, 20)),
      start_(now_()) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(uint64_t done) {
  if (!enabled_ || finished_) return;
  Clock::time_point now = now_();
  if (now - start_ < delay_) return;
  if (drawn_ && now - last_draw_ < kMinRedraw) return;
  Draw(done, now);
}

void ProgressBar::Draw(uint64_t done, Clock::time_point now) {
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string tail;
  double fraction = -1;
  if (total_ > 0) {
    fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    tail = fmt::format(" {:3.0f}%  {}", fraction * 100, Seconds(elapsed));
    if (fraction > 0.01 && fraction < 1) tail += "  eta " + Seconds(elapsed * (1 - fraction) / fraction);
  } else {
    tail = "  " + Seconds(elapsed);
  }
  // label [#####.....] tail, fitted into the terminal width (one column spare: some
  // terminals wrap when the last column is written).
  int bar = width_ - 1 - static_cast<int>(label_.size()) - 3 - static_cast<int>(tail.size());
  std::string line = label_;
  if (bar >= 10) {
    bar = std::min(bar, 40);
    std::string cells(static_cast<size_t>(bar), '.');
    if (fraction >= 0) {
      std::fill_n(cells.begin(), static_cast<size_t>(fraction * bar), '#');
    } else {
      // Unknown total: a moving block.
      size_t pos = static_cast<size_t>(elapsed * 8) % static_cast<size_t>(bar);
      cells[pos] = '#';
    }
    line += " [" + cells + "]";
  }
  line += tail;
  if (static_cast<int>(line.size()) > width_ - 1) line.resize(static_cast<size_t>(width_ - 1));
  std::fprintf(out_, "\r%s\x1b[K", line.c_str());
  std::fflush(out_);
  drawn_ = true;
  last_draw_ = now;
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (drawn_) {
    std::fputs("\r\x1b[K", out_);  // leave the line clean for the summary that follows
    std::fflush(out_);
  }
}

namespace {

uint64_t TotalSize(const std::vector<std::string>& paths) {
  uint64_t total = 0;
  for (const std::string& p : paths) {
    std::error_code ec;
    const uintmax_t size = std::filesystem::file_size(p, ec);
    if (!ec) total += static_cast<uint64_t>(size);
  }
  return total;
}

}  // namespace

InputsProgress::InputsProgress(const std::vector<std::string>& paths)
    : done_(paths.size(), 0),
      bar_(paths.size() == 1 ? "reading " + paths.front() : fmt::format("reading {} files", paths.size()),
           TotalSize(paths)) {}

void InputsProgress::Update(size_t input, uint64_t done) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (input >= done_.size() || done < done_[input]) return;
  sum_ += done - done_[input];
  done_[input] = done;
  bar_.Update(sum_);
}

void InputsProgress::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  bar_.Finish();
}

}  // namespace ampscope
