// The recording window and the buffer pool on their own, without CUPTI or a file. The expected
// values follow from the rules in collector/step_gate.h (open at the first step number in
// [gate_first, gate_last], close after gate_last, never reopen) and from the pool's bounds,
// counted by hand for each sequence below.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "collector/buffer_pool.h"
#include "collector/config.h"
#include "collector/step_gate.h"

namespace ampscope {
namespace step_gate_test {
namespace {

using collector::BufferPool;
using collector::SessionConfig;
using collector::StepGate;

// Plays the session's part: records what the gate asked for.
class Recorder : public StepGate::Actions {
 public:
  explicit Recorder(StepGate& gate) : gate_(gate) {}
  bool IsRecording() const override { return recording_; }
  void OpenWindow() override {
    if (gate_.done()) return;
    recording_ = true;
    ++opens;
  }
  void CloseWindow() override {
    if (!gate_.MarkDone()) return;
    recording_ = false;
    ++closes;
  }
  void RecordStepNumber(int64_t number, uint32_t tid) override { steps.push_back({number, tid}); }

  int opens = 0;
  int closes = 0;
  std::vector<std::pair<int64_t, uint32_t>> steps;

 private:
  StepGate& gate_;
  bool recording_ = false;
};

SessionConfig Steps(int64_t first, int64_t last) {
  SessionConfig c;
  c.gate_range_name = "step";
  c.gate_first = first;
  c.gate_last = last;
  return c;
}

// One push/pop pair of the range `name` on thread 7.
void Step(StepGate& gate, Recorder& r, const char* name) {
  const int64_t n = gate.StepNumber(name);
  gate.RangeBegins(n, 7, r);
  gate.RangeEnds(n, r);
}

TEST(StepGate, NoWindowAskedForMatchesNothing) {
  SessionConfig c;  // no --steps
  StepGate gate(c);
  EXPECT_FALSE(gate.enabled());
  EXPECT_EQ(gate.StepNumber("step"), -1);
  EXPECT_EQ(gate.ForgetRange(1), -1);
  EXPECT_FALSE(gate.EndOfRunWarning().has_value());
}

TEST(StepGate, UnnumberedRangesCountOccurrencesAndTheWindowClosesAfterTheLast) {
  const SessionConfig c = Steps(2, 3);
  StepGate gate(c);
  Recorder r(gate);
  // Occurrences 0..5 of "step": 2 opens the window, 3 is the last one in it and its end closes it.
  for (int i = 0; i < 6; ++i) Step(gate, r, "step");
  EXPECT_EQ(r.opens, 1);
  EXPECT_EQ(r.closes, 1);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0], std::make_pair(int64_t{2}, uint32_t{7}));
  EXPECT_EQ(r.steps[1], std::make_pair(int64_t{3}, uint32_t{7}));
  EXPECT_FALSE(r.IsRecording());
  EXPECT_FALSE(gate.EndOfRunWarning().has_value());  // all of 2..3 was recorded
}

TEST(StepGate, NumberedNamesUseTheirNumberAndOtherNamesAreIgnored) {
  const SessionConfig c = Steps(5, 6);
  StepGate gate(c);
  Recorder r(gate);
  EXPECT_EQ(gate.StepNumber("forward"), -1);
  Step(gate, r, "step 4");
  EXPECT_EQ(r.opens, 0);
  Step(gate, r, "step 5");
  EXPECT_EQ(r.opens, 1);
  EXPECT_TRUE(r.IsRecording());
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].first, 5);
}

TEST(StepGate, AClosedWindowNeverReopens) {
  const SessionConfig c = Steps(1, 1);
  StepGate gate(c);
  Recorder r(gate);
  Step(gate, r, "step 1");
  Step(gate, r, "step 1");  // the same number again, after the window closed
  EXPECT_EQ(r.opens, 1);
  EXPECT_EQ(r.closes, 1);
  EXPECT_EQ(r.steps.size(), 1u);
}

TEST(StepGate, AStepPastTheWindowClosesItBeforeItStarts) {
  const SessionConfig c = Steps(0, 5);
  StepGate gate(c);
  Recorder r(gate);
  // Start/end ranges: step 0 opens; step 9 begins while recording and is past the window.
  const int64_t a = gate.StepNumber("step 0");
  gate.RememberRange(11, a);
  gate.RangeBegins(a, 3, r);
  EXPECT_EQ(gate.ForgetRange(11), 0);
  EXPECT_EQ(gate.ForgetRange(11), -1);  // forgotten once
  gate.RangeBegins(gate.StepNumber("step 9"), 3, r);
  EXPECT_EQ(r.closes, 1);
  ASSERT_EQ(r.steps.size(), 1u);  // step 9 is not recorded
  // --steps 0..5 ended after step 0: one of six steps.
  std::optional<StepGate::Warning> w = gate.EndOfRunWarning();
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->code, "steps_window_cut");
  EXPECT_NE(w->message.find("only steps 0..0 (1 of 6)"), std::string::npos) << w->message;
}

TEST(StepGate, AWindowThatNeverOpenedSaysWhatWasSeen) {
  const SessionConfig c = Steps(10, 12);
  StepGate gate(c);
  Recorder r(gate);
  Step(gate, r, "step 3");
  Step(gate, r, "step 4");
  std::optional<StepGate::Warning> w = gate.EndOfRunWarning();
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->code, "capture_range_not_reached");
  EXPECT_NE(w->message.find("opened NVTX range 'step' 2 times (last step number 4)"), std::string::npos)
      << w->message;
  EXPECT_NE(w->message.find("the window is 10..12"), std::string::npos) << w->message;
}

TEST(StepGate, AnOpenEndedWindowIsNeverCutShort) {
  const SessionConfig c = Steps(1, std::numeric_limits<int64_t>::max());
  StepGate gate(c);
  Recorder r(gate);
  Step(gate, r, "step 1");
  EXPECT_EQ(r.closes, 0);
  EXPECT_FALSE(gate.EndOfRunWarning().has_value());
}

TEST(BufferPool, RefusesPastItsBoundAndReusesReleasedBuffers) {
  BufferPool pool(256, 2);
  uint8_t* a = pool.Acquire();
  uint8_t* b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);  // CUPTI's alignment
  EXPECT_EQ(pool.Acquire(), nullptr);                  // two buffers at most
  EXPECT_EQ(pool.refused(), 1u);

  pool.Complete(a, 100);
  pool.Complete(b, 0);
  EXPECT_EQ(pool.completed(), 2u);
  std::vector<BufferPool::Completed> done = pool.TakeCompleted();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].buffer, a);  // completion order
  EXPECT_EQ(done[0].valid_size, 100u);
  EXPECT_EQ(done[1].buffer, b);
  EXPECT_TRUE(pool.TakeCompleted().empty());

  pool.Release(b);
  EXPECT_EQ(pool.Acquire(), b);  // a released buffer comes back, no new allocation
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.refused(), 2u);
  pool.Release(a);
  pool.Release(b);
}

}  // namespace
}  // namespace step_gate_test
}  // namespace ampscope
