// The recording window (--steps / --capture-range): which NVTX step range opens it, which
// closes it, and what was seen of it for the end-of-run warnings.
//
// A range of the window's name gets a step number (the one in its name with --steps, e.g.
// "step 7", else its occurrence index, counted across the process); the window opens at the
// first step number in [gate_first, gate_last] and closes after gate_last, once: a window
// that closed never reopens. The gate decides; the session acts (enables or disables CUPTI's
// activity kinds, writes the step's number) through StepGate::Actions, called under the gate's
// lock so that a decision and its action are one step for every NVTX thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "collector/config.h"

namespace ampscope::collector {

class StepGate {
 public:
  class Actions {
   public:
    virtual bool IsRecording() const = 0;
    virtual void OpenWindow() = 0;
    virtual void CloseWindow() = 0;
    // A step inside the window begins on thread `tid`: its number goes into the file.
    virtual void RecordStepNumber(int64_t number, uint32_t tid) = 0;

   protected:
    ~Actions() = default;
  };

  // `config` must outlive the gate (the session owns both).
  explicit StepGate(const SessionConfig& config) : config_(config) {}

  bool enabled() const { return !config_.gate_range_name.empty(); }
  bool done() const { return done_.load(); }
  // Marks the window closed for good; false if it already was.
  bool MarkDone() { return !done_.exchange(true); }

  // The step number of an NVTX range called `name`, or -1 when it is not the window's range.
  int64_t StepNumber(std::string_view name);
  // Start/end ranges carry an id: the step number of an open one is kept until its end.
  void RememberRange(uint64_t id, int64_t step);
  int64_t ForgetRange(uint64_t id);  // -1 if `id` is not an open step range

  void RangeBegins(int64_t number, uint32_t tid, Actions& actions);
  void RangeEnds(int64_t number, Actions& actions);

  struct Warning {
    std::string code;
    std::string message;
  };
  // At the end of the run: the window never opened, or --steps was cut short.
  std::optional<Warning> EndOfRunWarning() const;

 private:
  const SessionConfig& config_;
  std::atomic<int64_t> count_{0};  // ranges of the window's name seen so far
  std::atomic<bool> done_{false};
  std::mutex ranges_mu_;
  std::unordered_map<uint64_t, int64_t> ranges_;  // open start/end id -> step number
  mutable std::mutex state_mu_;                   // guards the five fields below
  bool opened_ = false;
  int64_t last_step_seen_ = -1;
  int64_t first_step_recorded_ = -1;
  int64_t last_step_recorded_ = -1;
  int64_t steps_recorded_ = 0;
};

}  // namespace ampscope::collector
