#include "cli/phase_progress.h"

#include <chrono>

namespace ampscope::cli {

void PhaseProgress::Start(const std::string& label) {
  Stop();
  stop_ = false;
  bar_ = std::make_unique<ProgressBar>(label, 0);
  // The first frame here, not in the ticker: a phase that ends before the ticker thread runs
  // (a loaded machine) still drew its line once its delay allowed.
  bar_->Update(0);
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      bar_->Update(0);  // no total: the bar shows a moving block and the time spent
      wake_.wait_for(lock, ProgressBar::kMinRedraw);
    }
  });
}

void PhaseProgress::Stop() {
  if (!ticker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  bar_->Finish();
  bar_.reset();
}

}  // namespace ampscope::cli
