#include "collector/step_gate.h"

#include <limits>

namespace ampscope::collector {

int64_t StepGate::StepNumber(std::string_view name) {
  if (!enabled()) return -1;
  int64_t number = -1;
  if (!GateRangeMatches(config_, name, &number)) return -1;
  const int64_t index = count_.fetch_add(1);
  return number >= 0 ? number : index;
}

void StepGate::RememberRange(uint64_t id, int64_t step) {
  std::lock_guard<std::mutex> lock(ranges_mu_);
  ranges_[id] = step;
}

int64_t StepGate::ForgetRange(uint64_t id) {
  if (!enabled()) return -1;
  std::lock_guard<std::mutex> lock(ranges_mu_);
  auto it = ranges_.find(id);
  if (it == ranges_.end()) return -1;
  const int64_t step = it->second;
  ranges_.erase(it);
  return step;
}

void StepGate::RangeBegins(int64_t number, uint32_t tid, Actions& actions) {
  if (number < 0) return;
  std::lock_guard<std::mutex> lock(state_mu_);
  const bool in_window = number >= config_.gate_first && number <= config_.gate_last;
  if (!actions.IsRecording() && !done() && in_window) {
    opened_ = true;
    actions.OpenWindow();
  } else if (actions.IsRecording() && number > config_.gate_last) {
    actions.CloseWindow();  // a step after the window: stop before it
  }
  if (number > last_step_seen_) last_step_seen_ = number;
  if (actions.IsRecording() && in_window) {
    if (steps_recorded_ == 0) first_step_recorded_ = number;
    last_step_recorded_ = number;
    ++steps_recorded_;
    // The step keeps its own number in the file: the next push/start on this thread is it.
    actions.RecordStepNumber(number, tid);
  }
}

void StepGate::RangeEnds(int64_t number, Actions& actions) {
  if (number >= 0 && number >= config_.gate_last) actions.CloseWindow();
}

std::optional<StepGate::Warning> StepGate::EndOfRunWarning() const {
  if (!enabled()) return std::nullopt;
  std::lock_guard<std::mutex> lock(state_mu_);
  const std::string range = "NVTX range '" + config_.gate_range_name + "'";
  const std::string window = config_.gate_last == std::numeric_limits<int64_t>::max()
                                 ? std::to_string(config_.gate_first) + ".."
                                 : std::to_string(config_.gate_first) + ".." + std::to_string(config_.gate_last);
  const int64_t seen = count_.load();
  if (!opened_) {
    std::string what = seen == 0 ? "the program never opened " + range
                                 : "the program opened " + range + " " + std::to_string(seen) +
                                       " times (last step number " + std::to_string(last_step_seen_) + ")";
    return Warning{"capture_range_not_reached",
                   "the recording window never opened: " + what + ", the window is " + window +
                       "; nothing inside it was recorded (name the step range with --step-range-name, or record fewer "
                       "steps)"};
  }
  if (!config_.gate_is_capture_range && config_.gate_last != std::numeric_limits<int64_t>::max() &&
      last_step_recorded_ < config_.gate_last)
    return Warning{"steps_window_cut",
                   "--steps " + window + ": the program ended after step " + std::to_string(last_step_recorded_) +
                       ", so only steps " + std::to_string(first_step_recorded_) + ".." +
                       std::to_string(last_step_recorded_) + " (" + std::to_string(steps_recorded_) + " of " +
                       std::to_string(config_.gate_last - config_.gate_first + 1) + ") were recorded"};
  return std::nullopt;
}

}  // namespace ampscope::collector
