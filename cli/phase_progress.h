// Signs of life after the read: "analysing trace.json" or "writing outputs" with the time spent,
// on stderr, drawn by reports/progress.h's ProgressBar (so only on a terminal, and only once a
// phase has taken over a second). A thread of its own redraws it while the phase runs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "reports/progress.h"

namespace ampscope::cli {

class PhaseProgress {
 public:
  PhaseProgress() = default;
  ~PhaseProgress() { Stop(); }
  PhaseProgress(const PhaseProgress&) = delete;
  PhaseProgress& operator=(const PhaseProgress&) = delete;

  // Ends the phase before (if any) and starts `label`'s.
  void Start(const std::string& label);
  // Ends the phase and clears its line. Idempotent.
  void Stop();

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::unique_ptr<ProgressBar> bar_;
  std::thread ticker_;
};

}  // namespace ampscope::cli
