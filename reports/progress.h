// A progress bar on stderr for inputs that take a while to read.
//
// It draws nothing unless stderr is a terminal and more than kDelay has passed since it
// was created, so quick runs and redirected output (CI logs) stay clean. Redraws are
// limited to 10 per second. Not thread-safe: call it from the thread that reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <vector>
#include <string>

namespace ampscope {

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  // Nothing is drawn before this much time has passed (AMPSCOPE_PROGRESS_DELAY_MS overrides it for
  // the bars of a run, so that a test sees them on a small input).
  static constexpr std::chrono::milliseconds kDelay{1000};
  static constexpr std::chrono::milliseconds kMinRedraw{100};

  // `total` in the caller's units (e.g. bytes of the input); 0 = unknown (spinner-like).
  ProgressBar(std::string label, uint64_t total);
  // For tests: where to draw, whether it is a terminal, and the clock.
  ProgressBar(std::string label, uint64_t total, std::FILE* out, bool is_tty, std::function<Clock::time_point()> now,
              int width = 80);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void Update(uint64_t done);
  // Clears the bar's line if it was drawn. Idempotent; the destructor calls it.
  void Finish();
  bool drawn() const { return drawn_; }

 private:
  void Draw(uint64_t done, Clock::time_point now);

  std::string label_;
  uint64_t total_;
  std::FILE* out_;
  bool enabled_;
  std::function<Clock::time_point()> now_;
  int width_;
  Clock::time_point start_;
  std::chrono::milliseconds delay_ = kDelay;
  Clock::time_point last_draw_{};
  bool drawn_ = false;
  bool finished_ = false;
};

// One bar over several inputs read at once (`analyze -j N`): the bytes read of all of them
// against their total size. Update may be called from any thread.
class InputsProgress {
 public:
  explicit InputsProgress(const std::vector<std::string>& paths);
  void Update(size_t input, uint64_t done);
  void Finish();

 private:
  std::mutex mutex_;
  std::vector<uint64_t> done_;
  uint64_t sum_ = 0;
  ProgressBar bar_;
};

}  // namespace ampscope
